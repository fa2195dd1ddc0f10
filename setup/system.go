package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// SystemStores are the managed hook files `airlock init --system` writes
// on goos, under root ("" is the real root; tests give a directory): the
// channel each agent reads before the user's own settings, and that only
// root may change. Windows has none yet.
//
//   - Claude Code's managed settings (its hooks run whatever the user's
//     settings say, disableAllHooks included only from managed settings);
//   - Codex's requirements.toml, whose [hooks] Codex runs without the
//     trust a user's hooks need (openai/codex#18893);
//   - Cursor's enterprise hooks.json, Windsurf's system hooks.json, and a
//     file in Copilot CLI's policy.d.
func SystemStores(root, goos string) []Store {
	var files []struct{ id, p string }
	switch goos {
	case "linux":
		files = []struct{ id, p string }{
			{"claude-code.managed-settings", "/etc/claude-code/managed-settings.json"},
			{"codex.requirements", "/etc/codex/requirements.toml"},
			{"cursor.system-hooks", "/etc/cursor/hooks.json"},
			{"windsurf.system-hooks", "/etc/windsurf/hooks.json"},
			{"copilot.system-hooks", "/etc/github-copilot/policy.d/airlock.json"},
		}
	case "darwin":
		files = []struct{ id, p string }{
			{"claude-code.managed-settings", "/Library/Application Support/ClaudeCode/managed-settings.json"},
			{"codex.requirements", "/etc/codex/requirements.toml"},
			{"cursor.system-hooks", "/Library/Application Support/Cursor/hooks.json"},
			{"windsurf.system-hooks", "/Library/Application Support/Windsurf/hooks.json"},
			{"copilot.system-hooks", "/etc/github-copilot/policy.d/airlock.json"},
		}
	}
	var out []Store
	for _, f := range files {
		p := f.p
		if root != "" {
			p = filepath.Join(root, filepath.FromSlash(f.p))
		}
		out = append(out, newStore(f.id, p))
	}
	return out
}

// systemInit wires airlock-hook into every managed hook file.
func (run *initRun) systemInit() {
	for _, st := range SystemStores(run.opt.Root, run.opt.GOOS) {
		if st.ID == "codex.requirements" {
			run.codexRequirements(st)
			continue
		}
		run.hooks(st)
	}
}

// codexRequirementsMark opens the block init --system appends to
// requirements.toml; uninstall cuts the block out again.
const codexRequirementsMark = "# airlock init --system: airlock-hook gates every tool call (airlock uninstall --system removes this block)\n"

// codexRequirementsBlock is the TOML init --system appends: Codex's
// hooks schema inline ([hooks] with matcher groups), its managed_dir the
// directory the hook lives in.
func codexRequirementsBlock(hookPath string) string {
	var b strings.Builder
	b.WriteString("\n" + codexRequirementsMark)
	b.WriteString("[hooks]\n")
	b.WriteString("managed_dir = " + tomlQuote(path.Dir(filepath.ToSlash(hookPath))) + "\n")
	for _, ev := range codexDialect.events {
		fmt.Fprintf(&b, "\n[[hooks.%s]]\nmatcher = \"*\"\n\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n",
			ev.name, ev.name, tomlQuote(codexDialect.command(hookPath, ev.post)), HookTimeout)
	}
	return b.String()
}

// hasTOMLHooks says a requirements.toml defines hooks already: a [hooks]
// table, a [[hooks.…]] array or a top-level hooks key. init --system does
// not merge into them (TOML has one definition per table): the
// administrator adds airlock-hook there by hand.
func hasTOMLHooks(data []byte) bool {
	top := true
	for line := range strings.Lines(string(data)) {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "[[") && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(t, "[[")), "hooks"):
			return true
		case strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "[["):
			name := strings.TrimSpace(strings.TrimPrefix(t, "["))
			if name == "hooks]" || strings.HasPrefix(name, "hooks.") || strings.HasPrefix(name, "hooks]") || strings.HasPrefix(name, "hooks ") {
				return true
			}
			top = false
		case strings.HasPrefix(t, "["):
			top = false
		case top && (strings.HasPrefix(t, "hooks") && len(t) > 5 && strings.ContainsRune(" .=", rune(t[5]))):
			return true
		}
	}
	return false
}

// codexRequirements appends airlock-hook's managed hooks to Codex's
// requirements.toml (made when missing).
func (run *initRun) codexRequirements(st Store) {
	f := run.open(st)
	if f == nil {
		return
	}
	hookPath := run.opt.HookPath
	block := codexRequirementsBlock(hookPath)
	if f.exists {
		if bytes.Contains(f.data, []byte(strings.TrimPrefix(block, "\n"))) {
			run.r.file(st.Path, st.Agent, actHookPresent, codexDialect.command(hookPath, false))
			return
		}
		if hasTOMLHooks(f.data) {
			run.r.file(st.Path, st.Agent, actRefused, "it defines hooks already, and TOML allows one [hooks] table: add airlock-hook to it by hand ("+codexDialect.command(hookPath, false)+" under PreToolUse, with --post under PostToolUse)")
			return
		}
	}
	data := append([]byte(nil), f.data...)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	if len(data) == 0 {
		block = strings.TrimPrefix(block, "\n")
	}
	data = append(data, block...)
	var recs []hookRecord
	for _, ev := range codexDialect.events {
		recs = append(recs, hookRecord{Event: ev.name, Command: codexDialect.command(hookPath, ev.post)})
	}
	if !run.commit(st, f, data, systemMode(f), nil, recs, nil) {
		return
	}
	run.r.file(st.Path, st.Agent, actHookWired, wiredDetail(recs))
}

// systemMode is the mode of a managed file init --system writes: the
// file's own when it exists, else readable by every user (the agents run
// as them) and writable by root alone.
func systemMode(f *fileState) fs.FileMode {
	if f.exists {
		return f.mode
	}
	return 0o644
}

// uncodexRequirements takes init --system's block out of a
// requirements.toml edited since.
func uncodexRequirements(data []byte, recs []hookRecord) ([]byte, int, error) {
	if len(recs) == 0 {
		return data, 0, nil
	}
	hookPath := firstWord(recs[0].Command)
	block := []byte(codexRequirementsBlock(hookPath))
	switch {
	case bytes.Contains(data, block):
		return bytes.Replace(data, block, nil, 1), len(recs), nil
	case bytes.HasPrefix(data, block[1:]):
		return data[len(block)-1:], len(recs), nil
	case !bytes.Contains(data, []byte(codexRequirementsMark)):
		return data, 0, nil // taken out by hand already
	}
	return nil, 0, errors.New("the block airlock init --system appended was edited since: take the [hooks] tables that run airlock-hook out by hand")
}

// SystemHook is how one agent's managed channel stands: whether its file
// runs airlock-hook before a tool call.
type SystemHook struct {
	Agent, Path string
	// Wired: the file's pre-tool event runs airlock-hook; Command is it.
	Wired   bool
	Command string
	// Problem says why the file could not be read ("" when it could, or
	// does not exist).
	Problem string
}

// SystemWiring reads each managed hook file on goos under root ("" is
// the real root) and says which run airlock-hook: what init --system
// wired, or an administrator by hand. A missing file is not wired.
func SystemWiring(root, goos string) []SystemHook {
	var out []SystemHook
	for _, st := range SystemStores(root, goos) {
		h := SystemHook{Agent: st.Agent, Path: st.Path}
		f, err := readState(st.Path)
		switch {
		case err != nil:
			h.Problem = err.Error()
		case !f.exists:
		case st.ID == "codex.requirements":
			// Codex's own TOML reader is the judge; Airlock's block is
			// recognised by its mark and command.
			if i := bytes.Index(f.data, []byte(codexRequirementsMark)); i >= 0 {
				for line := range strings.Lines(string(f.data[i:])) {
					if c, ok := strings.CutPrefix(strings.TrimSpace(line), "command = "); ok && IsAirlockHook(strings.Trim(c, `"`)) {
						h.Wired, h.Command = true, strings.Trim(c, `"`)
						break
					}
				}
			}
		default:
			cfg, err := Parse(st, f.data)
			if err != nil && cfg == nil {
				h.Problem = err.Error()
				break
			}
			d := dialectOf(st)
			for _, hk := range cfg.Hooks {
				if hk.Event == d.events[0].name && IsAirlockHook(hk.Command) {
					h.Wired, h.Command = true, hk.Command
					break
				}
			}
		}
		out = append(out, h)
	}
	return out
}

// WindowsChannel is what one agent offers for managed wiring on Windows,
// where init --system wires nothing: the file an MDM deploys ("" when the
// agent has no machine-wide channel Airlock knows of) and what to do.
type WindowsChannel struct {
	Agent   string
	Channel string
	Advice  string
}

// WindowsChannels are the agents' managed channels on Windows, from each
// agent's documentation. init --system does not write them there: the
// binaries' and folders' ACLs would need the judgment the managed file
// has (internal/home), and a fleet's MDM already writes such files.
func WindowsChannels() []WindowsChannel {
	mdm := "deploy it with your MDM (Intune, GPO), the hooks as docs/fleet.md shows, running airlock-hook from a folder only Administrators can write"
	return []WindowsChannel{
		{"Claude Code", `C:\Program Files\ClaudeCode\managed-settings.json`, mdm},
		{"Codex", "", "no machine-wide requirements.toml on Windows that Airlock knows of: airlock init wires the user's config.toml, which the user can edit back"},
		{"Cursor", `C:\ProgramData\Cursor\hooks.json`, mdm},
		{"Windsurf", `C:\ProgramData\Windsurf\hooks.json`, mdm},
		{"Copilot CLI", "", "no policy.d on Windows that Airlock knows of: airlock init wires the user's hooks, which the user can edit back"},
	}
}

// ManagedMCPFile is Claude Code's managed MCP servers file on goos (under
// root, as SystemStores): the servers an organisation sets for every user.
// init --system does not rewrite it (it wires hooks only), so its servers
// reach Claude Code without airlock-mcp; init and doctor say so. "" where
// init --system wires nothing.
func ManagedMCPFile(root, goos string) string {
	var p string
	switch goos {
	case "linux":
		p = "/etc/claude-code/managed-mcp.json"
	case "darwin":
		p = "/Library/Application Support/ClaudeCode/managed-mcp.json"
	default:
		return ""
	}
	if root != "" {
		p = filepath.Join(root, filepath.FromSlash(p))
	}
	return p
}
