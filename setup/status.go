package setup

import (
	"os"
	"path/filepath"
)

// StatusReport is how far the agents on this machine are behind Airlock,
// for the doctor: per config file, which servers are wrapped, which stdio
// servers are not (stragglers), which are remote (no stdio proxy can gate
// them); whether Claude Code runs airlock-hook; and what init recorded.
type StatusReport struct {
	Stores   []StoreStatus `json:"stores"`
	Hook     HookStatus    `json:"hook"`
	Manifest *Manifest     `json:"manifest,omitempty"`
}

// StoreStatus is one existing config file.
type StoreStatus struct {
	Store Store  `json:"store"`
	Error string `json:"error,omitempty"` // the file could not be read, or read cleanly
	// Wrapped: behind airlock-mcp. Stragglers: stdio servers that are not.
	// Remote: URLs, which a stdio proxy cannot wrap. HookGated: Claude
	// Code's own servers (~/.claude.json), whose calls airlock-hook sees.
	Wrapped    []string `json:"wrapped,omitempty"`
	Stragglers []string `json:"stragglers,omitempty"`
	Remote     []string `json:"remote,omitempty"`
	HookGated  []string `json:"hook_gated,omitempty"`
}

// HookStatus is Airlock's hook in Claude Code's user settings.
type HookStatus struct {
	Settings string `json:"settings"`
	Error    string `json:"error,omitempty"`
	Pre      bool   `json:"pre"`  // PreToolUse runs airlock-hook
	Post     bool   `json:"post"` // PostToolUse runs airlock-hook
	Command  string `json:"command,omitempty"`
	// Executable: the program Command names exists and may be run.
	Executable bool `json:"executable"`
	// Disabled: the settings set disableAllHooks, which silences it.
	Disabled bool `json:"disabled,omitempty"`
}

// Status reads, and changes nothing. Options' HookPath, MCPPath, DryRun
// and Policy are not used.
func Status(opt Options) (*StatusReport, error) {
	opt.defaults()
	sr := &StatusReport{Stores: []StoreStatus{}}
	seen := map[string]bool{}
	for _, st := range opt.stores() {
		if st.ID == "claude-code.user-settings" {
			sr.Hook = hookStatus(st)
			continue
		}
		if st.Kind != KindMCP {
			continue
		}
		f, err := readState(st.Path)
		if err != nil {
			sr.Stores = append(sr.Stores, StoreStatus{Store: st, Error: err.Error()})
			continue
		}
		if !f.exists || seen[f.real] {
			continue
		}
		seen[f.real] = true
		ss := StoreStatus{Store: st}
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
					ss.Wrapped = append(ss.Wrapped, name)
				case s.Remote:
					ss.Remote = append(ss.Remote, name)
				case s.Command != "":
					ss.Stragglers = append(ss.Stragglers, name)
				}
			}
		}
		sr.Stores = append(sr.Stores, ss)
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

func hookStatus(st Store) HookStatus {
	h := HookStatus{Settings: st.Path}
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
	}
	if cfg == nil {
		return h
	}
	h.Disabled = cfg.HooksDisabled
	for _, hk := range cfg.Hooks {
		if !IsAirlockHook(hk.Command) {
			continue
		}
		switch hk.Event {
		case "PreToolUse":
			if !h.Pre {
				h.Pre, h.Command = true, hk.Command
			}
		case "PostToolUse":
			h.Post = true
		}
	}
	if h.Command != "" {
		p := firstWord(h.Command)
		if fi, err := os.Stat(p); err == nil && filepath.IsAbs(p) && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			h.Executable = true
		}
	}
	return h
}
