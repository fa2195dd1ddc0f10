package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// Init puts every stdio MCP server the agents' config files define behind
// airlock-mcp, wires airlock-hook into Claude Code, and writes policy.yaml
// when there is none. It never prompts and never guesses: a file it cannot
// read cleanly, or edit exactly, is left as it is and reported (Refused).
//
// Each file it changes is backed up first (a new name per run, never
// overwritten), recorded in the manifest with its hash after the edit,
// and replaced atomically through any symlink, with its mode (and owner,
// where allowed) kept. Edits are byte splices: comments, key order,
// unknown keys and everything else in the file stay as they were. A second
// Init finds every server wrapped and the hook wired, and writes nothing.
//
// The error is for what stops Init before it touches anything (missing
// binaries, an unreadable manifest); everything else is in the Report.
func Init(opt Options) (*Report, error) {
	opt.defaults()
	if err := opt.check(); err != nil {
		return nil, err
	}
	if _, err := ReadManifest(opt.AirlockHome); err != nil {
		return nil, err
	}
	run := &initRun{opt: opt, r: &Report{DryRun: opt.DryRun},
		bk: newBackups(opt.AirlockHome, opt.Now()), seen: map[string]bool{}}
	if opt.System {
		run.systemInit()
		return run.r, nil
	}
	run.policy()
	for _, sf := range opt.Services {
		run.service(sf)
	}
	for _, st := range opt.stores() {
		switch {
		case st.ID == "claude-code.user-settings":
			run.hooks(st)
		case st.Kind == kindHooks:
			run.agentHooks(st)
		case st.Kind == kindMCP:
			run.store(st)
		}
	}
	return run.r, nil
}

type initRun struct {
	opt  Options
	r    *Report
	bk   *backups
	seen map[string]bool // real paths done: a file two stores name is edited once
	// codexTrust is what config.toml must hold for Codex to run the
	// hooks wired in hooks.json (filled before config.toml is reached).
	codexTrust []trustRecord
}

func (run *initRun) policy() {
	o := run.opt
	if o.Policy == nil {
		return
	}
	p := home.PolicyFile(o.AirlockHome)
	cur, err := regular.ReadState(p, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !o.DryRun {
			if err := writeAtomic(o.AirlockHome, p, o.Policy); err != nil {
				run.r.file(p, "", actRefused, err.Error())
				return
			}
		}
		run.r.file(p, "", actWrote, "profile "+o.Profile)
		run.r.Changed++
	case err != nil:
		run.r.file(p, "", actRefused, err.Error())
	case bytes.Equal(cur, o.Policy):
		run.r.file(p, "", actUnchanged, "profile "+o.Profile)
	default:
		name := ""
		if o.ProfileOf != nil {
			name = o.ProfileOf(cur)
		}
		if name == "" {
			run.r.file(p, "", actKeptEdited, "")
		} else {
			run.r.file(p, "", actKept, fmt.Sprintf("profile %s; airlock profile %s switches", name, o.Profile))
		}
	}
}

// open reads a store's file; nil when there is nothing to do with it.
func (run *initRun) open(st Store) *fileState {
	f, err := readState(st.Path)
	if err != nil {
		run.r.file(st.Path, st.Agent, actRefused, err.Error())
		return nil
	}
	if f.exists {
		if run.seen[f.real] {
			return nil
		}
		run.seen[f.real] = true
		if n := linkCount(f.info); n > 1 {
			run.r.file(st.Path, st.Agent, actRefused, hardLinkRefusal(n))
			return nil
		}
	}
	return f
}

// hardLinkRefusal is why a file with n hard links is not edited: the
// atomic rename that replaces it would leave the other names holding the
// old bytes, and the two copies would silently part.
func hardLinkRefusal(n uint64) string {
	return fmt.Sprintf("the file has %d hard links: replacing it would split it from its other copies; edit the file the other link names, or break the link (cp FILE FILE.new && mv FILE.new FILE), then run the command again", n)
}

func refusedParse(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ") + "; fix the file and run airlock init again"
}

func (run *initRun) store(st Store) {
	f := run.open(st)
	if f == nil || !f.exists && !run.extraEdit(st) {
		return
	}
	cfg, err := Parse(st, f.data)
	if err != nil {
		run.r.file(st.Path, st.Agent, actRefused, refusedParse(err))
		return
	}
	r := run.r
	switch {
	case st.ID == "claude-code.user-mcp":
		r.file(st.Path, st.Agent, actLeftAlone, "Claude Code's own servers are gated by airlock-hook")
		for _, s := range cfg.Servers {
			name := s.Name
			if s.Project != "" {
				name = s.Project + " " + s.Name
			}
			r.server(st.Path, st.Agent, name, actLeftAlone, "")
		}
		return
	case st.Scope == scopeSystem:
		r.file(st.Path, st.Agent, actLeftAlone, "managed by an administrator: airlock init does not edit system files")
		for _, s := range cfg.Servers {
			r.add(serverState(st, s, actNotWrapped))
		}
		return
	}
	var lines []line
	var todo []string
	stale := map[string]bool{}
	remote := map[string]bool{}
	for _, s := range cfg.Servers {
		switch {
		case s.Command != "" && !s.Wrapped && !s.Remote:
			todo = append(todo, s.Name)
		case s.Remote && remoteWhyNot(st, s) == "":
			todo = append(todo, s.Name)
			remote[s.Name] = true
		case s.Wrapped && s.Project == "" && s.WrapName == s.Name && len(s.Inner) > 0 && installedKnown(run.opt.MCPPath) && !sameProgram(s.Command, run.opt.MCPPath):
			// Behind an airlock-mcp that is not the one installed (Airlock
			// moved): unwrap and wrap again with the installed one.
			todo = append(todo, s.Name)
			stale[s.Name] = true
		}
	}
	data, cur := f.data, cfg
	var recs []wrapRecord
	argv := map[string][]string{}
	failed := map[string]string{}
	for _, name := range todo {
		if remote[name] {
			out, rec, err := wrapRemote(st, data, cur, serverByName(cur, name), run.opt.MCPPath)
			if err != nil {
				failed[name] = err.Error()
				continue
			}
			data, recs = out, append(recs, rec)
			argv[name] = []string{bridgeSentinel}
			if cur, err = Parse(st, data); err != nil {
				run.r.file(st.Path, st.Agent, actRefused, "internal error: "+err.Error())
				return
			}
			continue
		}
		if stale[name] {
			old := serverByName(cur, name)
			if old == nil {
				failed[name] = fmt.Sprintf("no single server named %q", name)
				continue
			}
			was := old.Command
			out, ok, err := unwrapServer(st, data, cur, wrapRecord{Name: name})
			if err == nil && !ok {
				err = refuse("server %q: cannot take it from behind the old airlock-mcp", name)
			}
			if err != nil {
				failed[name] = err.Error()
				continue
			}
			ucfg, err := Parse(st, out)
			if err != nil {
				failed[name] = "internal error: " + err.Error()
				continue
			}
			wout, rec, err := wrapServer(st, out, ucfg, name, run.opt.MCPPath)
			if err != nil {
				failed[name] = err.Error()
				continue
			}
			rec.Was = was
			data, recs = wout, append(recs, rec)
			argv[name] = argvOf(serverByName(ucfg, name))
			if cur, err = Parse(st, data); err != nil {
				run.r.file(st.Path, st.Agent, actRefused, "internal error: "+err.Error())
				return
			}
			continue
		}
		out, rec, err := wrapServer(st, data, cur, name, run.opt.MCPPath)
		if err != nil {
			failed[name] = err.Error()
			continue
		}
		data, recs = out, append(recs, rec)
		argv[name] = argvOf(serverByName(cur, name))
		if cur, err = Parse(st, data); err != nil {
			run.r.file(st.Path, st.Agent, actRefused, "internal error: "+err.Error())
			return
		}
	}
	for _, s := range cfg.Servers {
		switch msg, bad := failed[s.Name]; {
		case bad:
			lines = append(lines, line{Path: st.Path, Agent: st.Agent, Server: s.Name, Action: actRefused, Detail: msg})
		case argv[s.Name] != nil && remote[s.Name]:
			lines = append(lines, line{Path: st.Path, Agent: st.Agent, Server: s.Name, Action: actWrapped, Detail: "remote " + ShownURL(s.URL) + ", through airlock-mcp --url"})
		case argv[s.Name] != nil && stale[s.Name]:
			lines = append(lines, line{Path: st.Path, Agent: st.Agent, Server: s.Name, Action: actWrapped, Detail: "moved from " + s.Command + " to " + run.opt.MCPPath})
		case argv[s.Name] != nil:
			lines = append(lines, line{Path: st.Path, Agent: st.Agent, Server: s.Name, Action: actWrapped})
		default:
			lines = append(lines, serverState(st, s, ""))
		}
	}
	if len(recs) > 0 {
		if err := checkEdit(st, cfg, data, argv, nil); err != nil {
			r.file(st.Path, st.Agent, actRefused, err.Error())
			return
		}
	}
	data, hooks, trust, after := run.extras(st, f, data)
	if len(recs) > 0 || len(hooks) > 0 || len(trust) > 0 {
		mode := f.mode
		if !f.exists {
			mode = 0o600
		}
		if !run.commit(st, f, data, mode, recs, hooks, trust) {
			return
		}
	}
	for _, l := range lines {
		r.add(l)
	}
	for _, l := range after {
		r.add(l)
	}
}

// serverState is the line for a server init does not change. straggler is
// the action for a stdio server left unwrapped ("" when it cannot be).
func serverState(st Store, s server, straggler string) line {
	l := line{Path: st.Path, Agent: st.Agent, Server: s.Name}
	switch {
	case s.Wrapped:
		l.Action = actAlreadyWrapped
		if s.WrapName != s.Name {
			l.Detail = "behind airlock-mcp as " + s.WrapName
		}
	case s.Remote:
		l.Action, l.Detail = actRemote, ShownURL(s.URL)
		if why := remoteWhyNot(st, s); why != "" {
			l.Detail += ": " + why
		}
	case s.Command == "" && s.Transport == "builtin":
		l.Action, l.Detail = actSkipped, "built into "+st.Agent+": no process to wrap"
	case s.Command == "":
		l.Action, l.Detail = actSkipped, "no command in the file: nothing to wrap"
	default:
		l.Action = straggler
	}
	return l
}

// hooks wires airlock-hook into a hooks file (Claude Code's settings, or
// another agent's hook file); it returns the file's bytes as init leaves
// them, and false when it could not read or wire it.
func (run *initRun) hooks(st Store) ([]byte, bool) {
	f := run.open(st)
	if f == nil {
		return nil, false
	}
	var data []byte
	var cfg *Config
	if f.exists {
		var err error
		if cfg, err = Parse(st, f.data); err != nil {
			run.r.file(st.Path, st.Agent, actRefused, refusedParse(err))
			return nil, false
		}
		data = f.data
	}
	out, recs, err := wireHooks(st, data, run.opt.HookPath)
	if err != nil {
		run.r.file(st.Path, st.Agent, actRefused, err.Error())
		return nil, false
	}
	if cfg != nil && cfg.HooksDisabled {
		defer run.r.file(st.Path, st.Agent, actHooksDisabled, "Claude Code runs no hook, Airlock's included")
	}
	if len(recs) == 0 && cfg != nil {
		d := dialectOf(st)
		for _, h := range cfg.Hooks {
			if h.Event == d.events[0].name && IsAirlockHook(h.Command) {
				run.r.file(st.Path, st.Agent, actHookPresent, h.Command)
				return data, true
			}
		}
		return data, true
	}
	mode := f.mode
	if !f.exists {
		mode = 0o600
		if st.Scope == scopeSystem {
			mode = systemMode(f)
		}
	}
	if !run.commit(st, f, out, mode, nil, recs, nil) {
		return nil, false
	}
	run.r.file(st.Path, st.Agent, actHookWired, wiredDetail(recs))
	return out, true
}

// wiredDetail says which events init wired, with the command.
func wiredDetail(recs []hookRecord) string {
	var evs []string
	for _, h := range recs {
		evs = append(evs, h.Event)
	}
	return strings.Join(evs, ", ") + ": " + recs[0].Command
}

// commit backs f up, records the change in the manifest, then replaces
// the file. A file init cannot record is not changed; a change that fails
// is taken out of the manifest again.
func (run *initRun) commit(st Store, f *fileState, data []byte, mode fs.FileMode, servers []wrapRecord, hooks []hookRecord, trust []trustRecord) bool {
	r, o := run.r, run.opt
	if o.DryRun {
		if f.exists {
			r.file(st.Path, st.Agent, actBackedUp, run.bk.dir+string(filepath.Separator)+"…")
		} else {
			r.file(st.Path, st.Agent, actCreated, "")
		}
		r.Changed++
		return true
	}
	ch := change{Time: o.Now().UTC(), Existed: f.exists, After: sum(data), AfterMode: modeString(mode), Servers: servers, Hooks: hooks, Trust: trust}
	if !f.exists {
		for d := filepath.Dir(f.real); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			ch.Made = append(ch.Made, d)
		}
	}
	if f.exists {
		b, err := run.bk.save(f.path, f.data)
		if err != nil {
			r.file(st.Path, st.Agent, actRefused, err.Error())
			return false
		}
		ch.Backup, ch.Before, ch.Mode = b, sum(f.data), modeString(f.mode)
	}
	if err := updateManifest(o.AirlockHome, func(m *manifest) {
		rec := m.record(f, st)
		rec.Changes = append(rec.Changes, ch)
	}); err != nil {
		r.file(st.Path, st.Agent, actRefused, "cannot record the change in the manifest: "+err.Error())
		return false
	}
	undo := func() error {
		return updateManifest(o.AirlockHome, func(m *manifest) {
			for i := range m.Files {
				fr := &m.Files[i]
				if fr.Real != f.real {
					continue
				}
				for j := len(fr.Changes) - 1; j >= 0; j-- {
					if c := fr.Changes[j]; c.After == ch.After && c.Time.Equal(ch.Time) && c.Backup == ch.Backup {
						fr.Changes = append(fr.Changes[:j], fr.Changes[j+1:]...)
						break
					}
				}
				if len(fr.Changes) == 0 {
					m.drop(fr.Path)
				}
				return
			}
		})
	}
	if err := commit(f, data, mode, o.beforeCommit); err != nil {
		if werr := undo(); werr != nil {
			err = fmt.Errorf("%v (and the manifest could not be put back: %v)", err, werr)
		}
		r.file(st.Path, st.Agent, actRefused, err.Error())
		return false
	}
	r.Changed++
	if f.exists {
		r.file(st.Path, st.Agent, actBackedUp, ch.Backup)
	} else {
		r.file(st.Path, st.Agent, actCreated, "")
	}
	return true
}

// service writes a whole file init owns (the forwarder's unit) when it is
// missing; one that is there, Airlock's or not, is left as it is.
func (run *initRun) service(sf ServiceFile) {
	st := Store{Agent: "airlock forward", ID: "airlock.forward-unit", Scope: scopeUser, Path: sf.Path, Format: formatScript, Kind: "service"}
	f := run.open(st)
	if f == nil {
		return
	}
	if f.exists {
		if bytes.Equal(f.data, sf.Data) {
			run.r.file(st.Path, st.Agent, actUnchanged, "")
		} else {
			run.r.file(st.Path, st.Agent, actKept, "it differs from what init writes: `airlock forward --print-unit` prints that")
		}
		return
	}
	if run.commit(st, f, sf.Data, 0o644, nil, nil, nil) && sf.Next != "" {
		run.r.file(st.Path, st.Agent, actWrote, sf.Next)
	}
}
