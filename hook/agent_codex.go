package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Codex (developers.openai.com/codex/hooks): Claude Code's event shape
// plus turn_id and model. Its shell reaches the hook as Bash (older
// builds: shell, exec_command, local_shell), with the command a string or
// an argv array (cmd for exec_command) and workdir; apply_patch carries
// the patch text; MCP tools are mcp__server__tool. Codex rejects an ask
// from a hook ("unsupported") and runs the call, so its asks go to
// Airlock's channel. A deny is exit 2 with the reason on stderr (the
// hookSpecificOutput deny JSON is written too).
var codexAdapter = &adapter{
	parse:  parseCodex,
	post:   func(root gjson.Result) bool { return postEvent(root.Get("hook_event_name").String()) },
	asks:   never,
	answer: answerCodex,
}

// codexShell: Codex's names for its shell tool.
func codexShell(name string) bool {
	switch strings.ToLower(name) {
	case "bash", "shell", "exec_command", "local_shell", "container.exec", "shell_command", "unified_exec":
		return true
	}
	return false
}

func parseCodex(root gjson.Result) (*Event, error) {
	ev, err := parseClaude(root)
	if err != nil {
		return nil, err
	}
	ev.Agent = Codex
	in := gjson.ParseBytes(ev.Input)
	raw := ev.Tool
	if !uniqueMembers(in) {
		return nil, errDuplicateMember
	}
	switch {
	case strings.EqualFold(raw, "apply_patch"):
		patches := patchTexts(in)
		if len(patches) == 0 {
			return nil, errors.New("apply_patch without a patch")
		}
		// every member that holds a patch is judged: which one Codex
		// applies is its own reading of the arguments
		ev.Calls = nil
		for _, patch := range patches {
			calls, err := patchCalls(patch)
			if err != nil {
				return nil, fmt.Errorf("apply_patch: %w", err)
			}
			ev.Calls = append(ev.Calls, calls...)
		}
		if len(ev.Calls) > maxPatchFiles {
			return nil, fmt.Errorf("apply_patch touches more than %d files: too many to inspect", maxPatchFiles)
		}
	case codexShell(raw):
		cmdv, err := oneOf(in, "command", "cmd")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", raw, err)
		}
		cmd, ok := commandOf(cmdv)
		if !ok {
			return nil, fmt.Errorf("%s without a command", raw)
		}
		if wd := str(in, "workdir"); wd != "" {
			ev.Cwd = joinCwd(ev.Cwd, wd)
		}
		if argv := cmdv.Array(); cmdv.IsArray() && len(argv) >= 2 && patchCommand(argv[0].Str) {
			// the patch tool run through the shell: judged as the patch
			calls, err := patchCalls(argv[1].Str)
			if err != nil {
				return nil, fmt.Errorf("apply_patch: %w", err)
			}
			ev.Calls = calls
			break
		}
		ni := newInput().set("command", cmd).from(in, "description", "description", "justification").consume("command", "cmd", "workdir")
		ev.Calls = []Call{{Tool: "Bash", Input: ni.json(in)}}
		// a patch in a shell script (bash -lc "apply_patch <<'EOF' …"):
		// Codex applies it itself, so every file it touches is a call
		if script, ok := shellPatchScript(cmdv); ok {
			patches, dirs, err := heredocPatches(script)
			if err != nil {
				return nil, fmt.Errorf("%s: apply_patch in a shell script: %w", raw, err)
			}
			for k, patch := range patches {
				dir := dirs[k]
				if dir != "" {
					dir = joinCwd(ev.Cwd, dir)
				}
				calls, err := patchCallsIn(patch, dir)
				if err != nil {
					return nil, fmt.Errorf("%s: apply_patch in a shell script: %w", raw, err)
				}
				ev.Calls = append(ev.Calls, calls...)
			}
			if len(ev.Calls) > maxPatchFiles {
				return nil, fmt.Errorf("%s: the patches touch more than %d files: too many to inspect", raw, maxPatchFiles)
			}
		}
	case strings.EqualFold(raw, "write_stdin") && str(in, "chars") != "":
		// text typed into a session exec_command started (a shell, as
		// often as not): what the shell will run, judged as a command
		ev.Calls = []Call{{Tool: "Bash", Input: newInput().set("command", str(in, "chars")).consume("chars", "session_id", "yield_time_ms", "max_output_tokens").json(in)}}
	default:
		ev.Calls = []Call{{Tool: raw, Input: ev.Input}}
	}
	ev.Tool, ev.Input = ev.Calls[0].Tool, ev.Calls[0].Input
	if raw != ev.Tool {
		ev.AgentTool = raw
	}
	return ev, nil
}

// patchCommand: the names Codex runs its patch tool by when the shell is
// asked to (codex-rs apply-patch, invocation.rs), by the command's base
// name.
func patchCommand(name string) bool {
	switch filepath.Base(name) {
	case "apply_patch", "applypatch":
		return true
	}
	return false
}

// shellPatchScript finds a shell script of a Codex shell call that runs
// the patch tool with the patch in the script (a heredoc): Codex reads
// such a script (bash, zsh or sh -c/-lc, pwsh -Command, cmd /c, or a
// command string its shell runs) and applies the patch itself, without
// the shell. Any word that names the patch tool and holds a patch counts,
// whatever shell runs it: a form this reader does not know is judged as
// a patch too, never let through as a command the policy cannot see
// writing.
func shellPatchScript(cmdv gjson.Result) (string, bool) {
	holds := func(s string) bool {
		return strings.Contains(s, "*** Begin Patch") && (strings.Contains(s, "apply_patch") || strings.Contains(s, "applypatch"))
	}
	if cmdv.Type == gjson.String {
		return cmdv.Str, holds(cmdv.Str)
	}
	for _, w := range cmdv.Array() {
		if w.Type == gjson.String && holds(w.Str) {
			return w.Str, true
		}
	}
	return "", false
}

// heredocPatches reads the patches out of a script that runs the patch
// tool: each run of lines from "*** Begin Patch" to its "*** End Patch"
// (Codex puts an apply_patch program on its shell's PATH, so a script of
// several runs them all), each with the directory it is applied in: that
// of a `cd DIR &&` before it, relative to the previous one ("" when none).
// A directory change this reader cannot follow refuses the script.
func heredocPatches(script string) (patches, dirs []string, err error) {
	lines := strings.Split(strings.ReplaceAll(script, "\r\n", "\n"), "\n")
	dir, from := "", 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "*** Begin Patch" {
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "*** End Patch" {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, nil, errors.New("a *** Begin Patch in the script with no *** End Patch after it")
		}
		head := lines[from:i]
		if len(patches) > 0 && len(head) > 0 && !strings.Contains(head[0], "cd") {
			head = head[1:] // the previous heredoc's closing word
		}
		d, err := cdBefore(strings.Join(head, "\n"))
		if err != nil {
			return nil, nil, err
		}
		if d != "" {
			dir = joinCwd(dir, d)
		}
		patches = append(patches, strings.Join(lines[i:end+1], "\n")+"\n")
		dirs = append(dirs, dir)
		i, from = end, end+1
	}
	if len(patches) == 0 {
		return nil, nil, errors.New("no *** Begin Patch … *** End Patch in the script")
	}
	return patches, dirs, nil
}

// cdBefore reads what runs the patch tool, the script up to the patch
// ("cd DIR && apply_patch <<'EOF'"): the DIR of a leading cd, "" when
// there is none, an error when a directory change is there that this
// reader cannot place.
func cdBefore(head string) (string, error) {
	if k := strings.LastIndex(head, "apply_patch"); k >= 0 {
		head = head[:k]
	} else if k := strings.LastIndex(head, "applypatch"); k >= 0 {
		head = head[:k]
	}
	head = strings.TrimSpace(head)
	rest, ok := strings.CutPrefix(head, "cd ")
	if !ok {
		if strings.Contains(head, "cd") {
			return "", errors.New("a directory change before the patch tool that this reader cannot follow")
		}
		return "", nil
	}
	d, _, ok := strings.Cut(rest, "&&")
	if !ok {
		return "", errors.New("a cd before the patch tool that this reader cannot follow")
	}
	d = strings.TrimSpace(d)
	if len(d) >= 2 && (d[0] == '\'' || d[0] == '"') && d[len(d)-1] == d[0] {
		d = d[1 : len(d)-1]
	}
	if d == "" || strings.ContainsAny(d, "$`\\;|&<>(){}* \t") {
		return "", fmt.Errorf("a cd before the patch tool to %q, which this reader cannot follow", cutText(d, 80))
	}
	return d, nil
}

// patchTexts finds the patches in apply_patch's arguments: each of the
// members that may hold one, distinct.
func patchTexts(in gjson.Result) []string {
	var out []string
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, k := range []string{"patch", "input", "command", "content"} {
		v := in.Get(k)
		if v.Type == gjson.String && v.Str != "" {
			add(v.Str)
		}
		if v.IsArray() {
			a := v.Array()
			if len(a) >= 2 && patchCommand(a[0].Str) && a[1].Type == gjson.String {
				add(a[1].Str)
			}
		}
	}
	return out
}

// joinCwd resolves a tool's working directory against the event's.
func joinCwd(cwd, dir string) string {
	if filepath.IsAbs(dir) || cwd == "" {
		return dir
	}
	return filepath.Join(cwd, dir)
}

func answerCodex(w answerTo, _ *Event, v verdict) int {
	if v.Action != policy.Block {
		return ExitAllow
	}
	msg := "Airlock blocked this call: " + v.Reason
	if v.Tool != "" {
		msg = "Airlock blocked this call: " + textsafe.Escape(v.Tool) + ": " + v.Reason
	}
	writeJSON(w.Stdout, map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": msg}})
	fmt.Fprintln(w.Stderr, msg)
	return ExitBlock
}
