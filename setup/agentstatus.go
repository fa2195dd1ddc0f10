package setup

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// AgentStatus is how far one agent's own tools (its shell, file reads and
// edits, its MCP calls) are behind airlock-hook, for the doctor. Claude
// Code's is HookStatus; this is every other agent init wires.
type AgentStatus struct {
	Agent string `json:"agent"`
	// File is the hook file read (Cline: its hooks folder).
	File string `json:"file"`
	// Dir is the agent's own directory; Installed: it exists for this
	// user (init wires only an agent it finds).
	Dir       string `json:"dir"`
	Installed bool   `json:"installed"`
	Error     string `json:"error,omitempty"`
	// Pre and Post are the events that run the installed airlock-hook as
	// init wires it; MissingPre and MissingPost the ones that do not.
	Pre         []string `json:"pre,omitempty"`
	MissingPre  []string `json:"missing_pre,omitempty"`
	Post        []string `json:"post,omitempty"`
	MissingPost []string `json:"missing_post,omitempty"`
	Command     string   `json:"command,omitempty"`
	// Executable: the program Command names exists and may be run.
	Executable bool `json:"executable"`
	// Issues: airlock-hook hooks that do not count, and why.
	Issues []string `json:"issues,omitempty"`
	// Trust (Codex): the hooks.state entries Codex must hold to run the
	// hooks, and whether config.toml holds each.
	Trust []TrustEntry `json:"trust,omitempty"`
}

// TrustEntry is one hook Codex runs only once trusted.
type TrustEntry struct {
	Key      string `json:"key"`
	Hash     string `json:"hash"`
	Recorded bool   `json:"recorded"`
}

// Gated says every pre-tool event of the agent runs airlock-hook (which
// can then refuse a call), as far as the files tell: Codex's own view of
// its trust is the doctor's to ask.
func (a AgentStatus) Gated() bool {
	if !a.Installed || a.Error != "" || len(a.Pre) == 0 || len(a.MissingPre) > 0 || !a.Executable {
		return false
	}
	for _, t := range a.Trust {
		if !t.Recorded {
			return false
		}
	}
	return true
}

// agentStatuses reads the hook file of each agent init wires, one
// AgentStatus per agent, in the order the stores come.
func agentStatuses(stores []Store, hookPath string) []AgentStatus {
	var out []AgentStatus
	idx := map[string]int{}
	for _, st := range stores {
		if _, ok := wiredStores[st.ID]; !ok {
			continue
		}
		d := dialectOf(st)
		i, ok := idx[st.Agent]
		if !ok {
			i = len(out)
			idx[st.Agent] = i
			file := st.Path
			if d == clineDialect {
				file = filepath.Dir(st.Path)
			}
			out = append(out, AgentStatus{Agent: st.Agent, File: file, Dir: agentDir(st)})
		}
		a := &out[i]
		a.Installed = a.Installed || agentInstalled(st)
		var hooks []Hook
		var data []byte
		var off []string
		f, err := readState(st.Path)
		switch {
		case err != nil:
			a.Error = err.Error()
		case f.exists:
			data = f.data
			cfg, err := Parse(st, f.data)
			if err != nil {
				a.Error = err.Error()
			}
			if cfg != nil {
				hooks, off = cfg.Hooks, cfg.DisabledHooks
				if cfg.HooksDisabled {
					a.Error = st.Path + " sets hooksConfig.enabled to false: Gemini CLI runs no hook, airlock-hook included"
				}
			}
		}
		if st.ID == "codex.user-hooks" && codexHooksOff(filepath.Join(filepath.Dir(st.Path), "config.toml")) {
			a.Error = "config.toml sets [features] hooks = false: Codex runs no hook, airlock-hook included"
		}
		for _, ev := range d.events {
			if d == clineDialect && (ev.post != (st.ID == "cline.user-post")) {
				continue // each of Cline's files is one event
			}
			ok := false
			for _, h := range hooks {
				if h.Event != ev.name || !IsAirlockHook(h.Command) {
					continue
				}
				if slices.Contains(off, h.Command) {
					a.Issues = append(a.Issues, fmt.Sprintf("%s: hooksConfig.disabled turns %q off", ev.name, h.Command))
					continue
				}
				if why := hookProblem(h, d, hookPath); why != "" {
					if !slices.Contains(a.Issues, why) {
						a.Issues = append(a.Issues, why)
					}
					continue
				}
				ok = true
				if !ev.post && a.Command == "" {
					a.Command = h.Command
					a.Executable = runnable(firstWord(h.Command))
				}
			}
			switch {
			case ok && ev.post:
				a.Post = append(a.Post, ev.name)
			case ok:
				a.Pre = append(a.Pre, ev.name)
			case ev.post:
				a.MissingPost = append(a.MissingPost, ev.name)
			default:
				a.MissingPre = append(a.MissingPre, ev.name)
			}
		}
		if st.ID == "codex.user-hooks" && data != nil {
			recorded := map[string]string{}
			if cf, err := readState(filepath.Join(filepath.Dir(st.Path), "config.toml")); err == nil && cf.exists {
				recorded, _, _ = codexStates(cf.data)
			}
			for _, t := range codexTrust(st.Path, data, hookPath) {
				a.Trust = append(a.Trust, TrustEntry{Key: t.Key, Hash: t.Hash, Recorded: recorded[t.Key] == t.Hash})
			}
		}
	}
	return out
}

// codexHooksOff says a Codex config.toml turns hooks off ([features]
// hooks = false; they are on by default since Codex 0.124.0).
func codexHooksOff(path string) bool {
	f, err := readState(path)
	if err != nil || !f.exists || tomlDepth(f.data) > maxTOMLDepth {
		return false
	}
	var doc struct {
		Features struct {
			Hooks *bool `toml:"hooks"`
		} `toml:"features"`
	}
	if guard(func() error { _, e := toml.Decode(string(f.data), &doc); return e }) != nil {
		return false
	}
	return doc.Features.Hooks != nil && !*doc.Features.Hooks
}
