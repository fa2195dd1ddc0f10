package setup

import (
	"fmt"
	"os"
	"path/filepath"
)

// StatusReport is how far the agents on this machine are behind Airlock,
// for the doctor: per config file, which servers are wrapped, which stdio
// servers are not (stragglers), which are remote (no stdio proxy can gate
// them); whether Claude Code runs airlock-hook; and what init recorded.
type StatusReport struct {
	Stores []storeStatus `json:"stores"`
	Hook   HookStatus    `json:"hook"`
	// Agents are the other agents whose own tools init wires to
	// airlock-hook (Codex, Gemini CLI, Cursor, Windsurf, Copilot, Cline).
	Agents   []AgentStatus `json:"agents"`
	Manifest *manifest     `json:"manifest,omitempty"`
}

// storeStatus is one existing config file.
type storeStatus struct {
	Store Store  `json:"store"`
	Error string `json:"error,omitempty"` // the file could not be read, or read cleanly
	// Wrapped: behind airlock-mcp. Stragglers: stdio servers that are not.
	// Remote: URLs not behind airlock-mcp --url. HookGated: Claude
	// Code's own servers (~/.claude.json), whose calls airlock-hook sees.
	Wrapped    []string `json:"wrapped,omitempty"`
	Stragglers []string `json:"stragglers,omitempty"`
	Remote     []string `json:"remote,omitempty"`
	HookGated  []string `json:"hook_gated,omitempty"`
	// Misrouted: servers whose command is named airlock-mcp but that are
	// not gated as themselves: the program is not the installed
	// airlock-mcp (missing, moved, another file), or --name gives another
	// server's name (its grants and pins). Each item says which.
	Misrouted []string `json:"misrouted,omitempty"`
	// Bridges: the wrapped servers that are remote ones behind
	// airlock-mcp --url, name and URL (wrap_remote.go).
	Bridges []Bridge `json:"bridges,omitempty"`
}

// HookStatus is Airlock's hook in Claude Code's user settings.
type HookStatus struct {
	Settings string `json:"settings"`
	Error    string `json:"error,omitempty"`
	Pre      bool   `json:"pre"`  // PreToolUse runs airlock-hook
	Post     bool   `json:"post"` // PostToolUse runs airlock-hook
	// Failure: PostToolUseFailure runs airlock-hook, so a tool that
	// failed has its outcome recorded too (wirings before 0.x lack it).
	Failure bool   `json:"failure"`
	Command string `json:"command,omitempty"`
	// Executable: the program Command names exists and may be run.
	Executable bool `json:"executable"`
	// Disabled: a settings file that applies here (DisabledBy) sets
	// disableAllHooks, which silences it.
	Disabled   bool   `json:"disabled,omitempty"`
	DisabledBy string `json:"disabled_by,omitempty"`
	// Issues: airlock-hook hooks that do not count (a narrow matcher, an
	// "if" filter, async, a shell tail, a short timeout, another program).
	Issues []string `json:"issues,omitempty"`
	// Installed is the airlock-hook the hooks were compared with ("" when
	// it was not known).
	Installed string `json:"installed,omitempty"`
}

// Status reads, and changes nothing. Options' HookPath, MCPPath, DryRun
// and Policy are not used.
func Status(opt Options) (*StatusReport, error) {
	opt.defaults()
	sr := &StatusReport{Stores: []storeStatus{}}
	seen := map[string]bool{}
	var settings []Store
	stores := opt.stores()
	sr.Agents = agentStatuses(stores, opt.HookPath)
	for _, st := range stores {
		switch st.ID {
		case "claude-code.user-settings":
			sr.Hook = hookStatus(st, opt.HookPath)
			continue
		case "claude-code.project-settings", "claude-code.local-settings", "claude-code.managed-settings":
			settings = append(settings, st)
			continue
		}
		if st.Kind != kindMCP {
			continue
		}
		f, err := readState(st.Path)
		if err != nil {
			sr.Stores = append(sr.Stores, storeStatus{Store: st, Error: err.Error()})
			continue
		}
		if !f.exists || seen[f.real] {
			continue
		}
		seen[f.real] = true
		ss := storeStatus{Store: st}
		cfg, err := Parse(st, f.data)
		if err != nil {
			ss.Error = err.Error()
		}
		if cfg != nil {
			for _, s := range cfg.Servers {
				name := s.Name
				if s.Project != "" {
					name = s.Project + " " + s.Name
				}
				switch {
				case st.ID == "claude-code.user-mcp":
					ss.HookGated = append(ss.HookGated, name)
				case s.Wrapped:
					if why := misrouted(s, opt.MCPPath); why != "" {
						ss.Misrouted = append(ss.Misrouted, fmt.Sprintf("%q %s", name, why))
					} else {
						ss.Wrapped = append(ss.Wrapped, name)
						if u := bridgeURL(&s); u != "" {
							ss.Bridges = append(ss.Bridges, Bridge{Name: s.WrapName, URL: u})
						}
					}
				case s.Remote:
					ss.Remote = append(ss.Remote, name)
				case s.Command != "":
					ss.Stragglers = append(ss.Stragglers, name)
				}
			}
		}
		sr.Stores = append(sr.Stores, ss)
	}
	if !sr.Hook.Disabled {
		for _, st := range settings {
			if hooksDisabledIn(st) {
				sr.Hook.Disabled, sr.Hook.DisabledBy = true, st.Path
				break
			}
		}
	}
	if opt.AirlockHome != "" {
		man, err := ReadManifest(opt.AirlockHome)
		if err != nil {
			return sr, err
		}
		if len(man.Files) > 0 {
			sr.Manifest = man
		}
	}
	return sr, nil
}

// misrouted says why a wrapped server is not gated as itself ("" when it
// is): its airlock-mcp is not the one installed at mcpPath, or it runs
// under another server's name.
func misrouted(s server, mcpPath string) string {
	switch {
	case installedKnown(mcpPath) && !sameProgram(s.Command, mcpPath):
		if fi, err := os.Stat(s.Command); err != nil || !filepath.IsAbs(s.Command) || !fi.Mode().IsRegular() {
			return fmt.Sprintf("runs %s, which does not exist here (the installed airlock-mcp is %s)", s.Command, mcpPath)
		}
		return fmt.Sprintf("is wrapped by %s, a program that is not Airlock's airlock-mcp (%s)", s.Command, mcpPath)
	case s.WrapName == "":
		return "runs behind airlock-mcp without --name"
	case s.WrapName != s.Name:
		return fmt.Sprintf("runs behind airlock-mcp as %q: another server's grants, pins and contract apply to it", s.WrapName)
	case len(s.Inner) == 0 && bridgeURL(&s) == "":
		return "runs behind airlock-mcp with no command after -- (and no --url)"
	}
	return ""
}

// hooksDisabledIn says a Claude Code settings file sets disableAllHooks.
func hooksDisabledIn(st Store) bool {
	f, err := readState(st.Path)
	if err != nil || !f.exists {
		return false
	}
	cfg, _ := Parse(st, f.data)
	return cfg != nil && cfg.HooksDisabled
}

func hookStatus(st Store, hookPath string) HookStatus {
	h := HookStatus{Settings: st.Path, Installed: hookPath}
	f, err := readState(st.Path)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	if !f.exists {
		return h
	}
	cfg, err := Parse(st, f.data)
	if err != nil {
		h.Error = err.Error()
	} else if why := claudeSkips(f.data); why != "" {
		h.Error = st.Path + ": " + why + ": Claude Code discards the whole file, so no hook in it runs"
	}
	if cfg == nil {
		return h
	}
	h.Disabled = cfg.HooksDisabled
	if h.Disabled {
		h.DisabledBy = st.Path
	}
	for _, hk := range cfg.Hooks {
		if hk.Helper || !IsAirlockHook(hk.Command) || !claudeDialect.has(hk.Event) {
			continue
		}
		if h.Command == "" {
			h.Command = hk.Command
		}
		if why := hookProblem(hk, claudeDialect, hookPath); why != "" {
			h.Issues = append(h.Issues, why)
			continue
		}
		switch hk.Event {
		case "PreToolUse":
			if !h.Pre {
				h.Pre, h.Command = true, hk.Command
				h.Executable = runnable(firstWord(hk.Command))
			}
		case "PostToolUse":
			h.Post = true
		case "PostToolUseFailure":
			h.Failure = true
		}
	}
	return h
}
