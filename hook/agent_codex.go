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
	switch {
	case strings.EqualFold(raw, "apply_patch"):
		patch, ok := patchText(in)
		if !ok {
			return nil, errors.New("apply_patch without a patch")
		}
		calls, err := patchCalls(patch)
		if err != nil {
			return nil, fmt.Errorf("apply_patch: %w", err)
		}
		ev.Calls = calls
	case codexShell(raw):
		cmdv := in.Get("command")
		if !cmdv.Exists() {
			cmdv = in.Get("cmd")
		}
		cmd, ok := commandOf(cmdv)
		if !ok {
			return nil, fmt.Errorf("%s without a command", raw)
		}
		if wd := str(in, "workdir"); wd != "" {
			ev.Cwd = joinCwd(ev.Cwd, wd)
		}
		if argv := cmdv.Array(); cmdv.IsArray() && len(argv) >= 2 && argv[0].Str == "apply_patch" {
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
	default:
		ev.Calls = []Call{{Tool: raw, Input: ev.Input}}
	}
	ev.Tool, ev.Input = ev.Calls[0].Tool, ev.Calls[0].Input
	if raw != ev.Tool {
		ev.AgentTool = raw
	}
	return ev, nil
}

// patchText finds the patch in apply_patch's arguments.
func patchText(in gjson.Result) (string, bool) {
	for _, k := range []string{"patch", "input", "command", "content"} {
		v := in.Get(k)
		if v.Type == gjson.String && v.Str != "" {
			return v.Str, true
		}
		if v.IsArray() {
			a := v.Array()
			if len(a) >= 2 && a[0].Str == "apply_patch" && a[1].Type == gjson.String {
				return a[1].Str, true
			}
		}
	}
	return "", false
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
