package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// HookTimeout is the timeout, in seconds, written with Airlock's hooks:
// Claude Code's own default for a tool hook is ten minutes.
const HookTimeout = 30

// HookDeadline is when, in seconds, airlock-hook refuses a call it has not
// decided (hook.DefaultDeadline; a test holds the two together): a
// PreToolUse timeout at or under it lets a stuck call through before the
// hook refuses it.
const HookDeadline = HookTimeout - 5

// HookCommands are the commands init writes for airlock-hook at path in
// Claude Code: pre for PreToolUse, post for PostToolUse and
// PostToolUseFailure (Claude Code fires PostToolUse only for a tool that
// succeeded and PostToolUseFailure for one that failed: both record the
// outcome, so a failed run is in the log too).
func HookCommands(path string) (pre, post string) {
	return claudeDialect.command(path, false), claudeDialect.command(path, true)
}

// hookRecord is one hook init added to a Claude Code settings file.
type hookRecord struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	// Created is "event" when init also added the event's list, "hooks"
	// when it added the "hooks" object too; semantic uninstall removes
	// them again once they are empty.
	Created string `json:"created,omitempty"`
}

// orderedObj renders as a JSON object with its members in order.
type orderedObj []kv

func (o orderedObj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonQuote(m.key) + ":")
		// & < > as they are: a PowerShell command starts with "&"
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.val); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`) }) // compiled on first use, not in every process that links setup

// shellQuote quotes s for the shell Claude Code runs hook commands with.
func shellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstWord is the program a shell command line runs: its first word,
// quotes removed.
func firstWord(cmd string) string {
	w, _ := splitFirstWord(cmd)
	return w
}

// splitFirstWord splits a shell command line into its first word (quotes
// removed) and the rest of the line, as written.
func splitFirstWord(cmd string) (string, string) {
	cmd = strings.TrimLeft(cmd, " \t")
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; c {
		case ' ', '\t', '\n', ';', '&', '|':
			return b.String(), cmd[i:]
		case '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return b.String() + cmd[i+1:], ""
			}
			b.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) {
					i++
				}
				b.WriteByte(cmd[i])
			}
		case '\\':
			if i+1 < len(cmd) {
				i++
				b.WriteByte(cmd[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// minHookTimeout is the shortest hook timeout, in seconds, that counts as
// letting airlock-hook answer: a timed-out hook lets the call through.
const minHookTimeout = 5

// sameProgram says the program a config names is the file installed (the
// same file, by os.SameFile). A bare name is looked up on PATH; a relative
// path depends on the agent's directory and never counts.
func sameProgram(prog, installed string) bool {
	if prog == "" || installed == "" {
		return false
	}
	if !strings.ContainsAny(prog, `/\`) {
		lp, err := exec.LookPath(prog)
		if err != nil {
			return false
		}
		prog = lp
	}
	if !filepath.IsAbs(prog) {
		return false
	}
	a, err := os.Stat(prog)
	if err != nil {
		return false
	}
	b, err := os.Stat(installed)
	return err == nil && os.SameFile(a, b)
}

// installedKnown says path names an installed binary that exists, which
// programs named in configs can be compared with. When it does not (not
// found, or a test's made-up path), a program counts by its base name.
func installedKnown(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// runnable says prog is an absolute path to an executable regular file.
func runnable(prog string) bool {
	fi, err := os.Stat(prog)
	return err == nil && filepath.IsAbs(prog) && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// hookProblem says why a hook of one of the events d wires does not put
// every tool call of its event through the airlock-hook at hookPath in a
// way that can block ("" when it does). When hookPath is not known
// (installedKnown), any program named airlock-hook counts.
func hookProblem(h Hook, d *hookDialect, hookPath string) string {
	if why := hookRunProblem(h, d, hookPath); why != "" {
		return why
	}
	if !d.isPost(h.Event) && h.Timeout > 0 && h.Timeout <= d.deadline() {
		return fmt.Sprintf("%s gives airlock-hook a %d s timeout: a call it is stuck on (or an ask still open) goes through at %d s, before airlock-hook refuses it at %d s (give it %d s, as init writes)", h.Event, h.Timeout, h.Timeout, d.deadline(), d.seconds())
	}
	return ""
}

// hookRunProblem is hookProblem without the measure of the timeout
// against airlock-hook's deadline: whether the hook runs airlock-hook for
// every call of its event, and can block at all. Codex's trust is recorded
// for such a hook (an untrusted one does not run at all); doctor still
// reports its timeout.
func hookRunProblem(h Hook, d *hookDialect, hookPath string) string {
	prog, rest := splitFirstWord(h.Command)
	post := d.isPost(h.Event)
	want := strings.TrimSpace(d.args(post))
	switch {
	case !IsAirlockHook(h.Command):
		return "not airlock-hook"
	case installedKnown(hookPath) && !sameProgram(prog, hookPath):
		if _, err := os.Stat(prog); err != nil || !filepath.IsAbs(prog) {
			return fmt.Sprintf("%s runs %s, which does not exist (the installed airlock-hook is %s)", h.Event, prog, hookPath)
		}
		return fmt.Sprintf("%s runs %s, which is not the installed airlock-hook (%s)", h.Event, prog, hookPath)
	case strings.TrimSpace(rest) != want:
		if !post {
			return fmt.Sprintf("%s runs %q: anything after the program but %q can turn a block into an allow or read the event as another agent's", h.Event, h.Command, want)
		}
		return fmt.Sprintf("%s runs %q, not exactly the program with %q", h.Event, h.Command, want)
	case h.Matcher != "" && h.Matcher != "*":
		return fmt.Sprintf("%s runs airlock-hook for matcher %q only, not for every tool", h.Event, h.Matcher)
	case h.If != "":
		return fmt.Sprintf("%s runs airlock-hook only for calls matching \"if\": %q", h.Event, h.If)
	case h.Async:
		return fmt.Sprintf("%s runs airlock-hook asynchronously: it cannot block", h.Event)
	case h.Timeout > 0 && h.Timeout < minHookTimeout:
		return fmt.Sprintf("%s gives airlock-hook a %d s timeout: a timed-out hook lets the call through", h.Event, h.Timeout)
	}
	return ""
}

// staleHook says an airlock-hook hook runs a program that is not the one
// installed at hookPath (moved, removed or another file).
func staleHook(command, hookPath string) bool {
	return IsAirlockHook(command) && installedKnown(hookPath) && !sameProgram(firstWord(command), hookPath)
}

// IsAirlockHook says a hook command runs airlock-hook (by its base name,
// wherever it is installed).
func IsAirlockHook(command string) bool {
	b := base(firstWord(command))
	return b == "airlock-hook" || strings.EqualFold(b, "airlock-hook.exe")
}

// wireHooks adds airlock-hook at hookPath to the events the store's
// dialect wires (Claude Code's PreToolUse, PostToolUse and
// PostToolUseFailure; Codex's, Gemini CLI's, Cursor's, Windsurf's,
// Copilot's own), for every tool, where no airlock-hook runs yet. data is
// nil when the file does not exist; otherwise Parse read it without
// error. It returns the new bytes and what it added (nothing: the file
// needs no change).
func wireHooks(st Store, data []byte, hookPath string) ([]byte, []hookRecord, error) {
	d := dialectOf(st)
	if d == nil {
		return nil, nil, refuse("internal error: %s holds no hooks airlock wires", st.ID)
	}
	var before *Config
	var repointed []hookRecord
	if data != nil {
		var err error
		if before, err = Parse(st, data); err != nil {
			return nil, nil, err
		}
		if data, repointed, err = repointHooks(st, d, data, before, hookPath); err != nil {
			return nil, nil, err
		}
		if len(repointed) > 0 {
			if before, err = Parse(st, data); err != nil {
				return nil, nil, refuse("internal error: the edited file no longer reads: %v", err)
			}
		}
	} else {
		before = &Config{Store: st}
	}
	var recs []hookRecord
	for _, ev := range d.events {
		wired := false
		for _, h := range before.Hooks {
			wired = wired || h.Event == ev.name && !h.Helper && hookProblem(h, d, hookPath) == ""
		}
		if !wired {
			recs = append(recs, hookRecord{Event: ev.name, Command: d.command(hookPath, ev.post)})
		}
	}
	if len(recs) == 0 {
		return data, repointed, nil
	}
	list := func(ev string) []any { return []any{d.entry(hookPath, d.ev(ev))} }
	events := func(rs []hookRecord) orderedObj {
		var o orderedObj
		for _, r := range rs {
			o = append(o, kv{r.Event, list(r.Event)})
		}
		return o
	}
	nl := newline(data)
	doc := &jdoc{src: blankJSONC(data)}
	root, ok := doc.root()
	var sp []splice
	switch {
	case !ok:
		// No file, or nothing but white space and comments: write the
		// object after what is there.
		for i := range recs {
			recs[i].Created = "hooks"
		}
		top := orderedObj{{"hooks", events(recs)}}
		if d.version {
			top = append(orderedObj{{"version", 1}}, top...)
		}
		text := jsonRender(top, true, "", "  ") + "\n"
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			text = nl + text
		}
		sp = append(sp, splice{len(data), len(data), text})
	case root.kind() != kObj:
		return nil, nil, refuse("the file is not a JSON object")
	default:
		hm, ok := jlast(root, "hooks")
		switch {
		case !ok || hm.val.kind() == kNull:
			for i := range recs {
				recs[i].Created = "hooks"
			}
			if ok {
				ind := indentOf(doc.src, hm.keyOff)
				sp = append(sp, splice{hm.val.off, hm.val.end, jsonRender(events(recs), spansLines(root), ind, jsonIndentUnit(doc.src))})
			} else {
				sp = append(sp, insertMembers(root, []kv{{"hooks", events(recs)}}, nl))
			}
		case hm.val.kind() != kObj:
			return nil, nil, refuse(`"hooks" is not an object`)
		default:
			var add []hookRecord
			for i, r := range recs {
				em, ok := jlast(hm.val, r.Event)
				switch {
				case !ok:
					recs[i].Created = "event"
					add = append(add, r)
				case em.val.kind() == kNull:
					recs[i].Created = "event"
					ind := indentOf(doc.src, em.keyOff)
					sp = append(sp, splice{em.val.off, em.val.end, jsonRender(list(r.Event), spansLines(hm.val), ind, jsonIndentUnit(doc.src))})
				case em.val.kind() == kArr:
					sp = append(sp, appendElem(em.val, list(r.Event)[0], nl))
				default:
					return nil, nil, refuse("hooks.%s is not a list", r.Event)
				}
			}
			if len(add) > 0 {
				sp = append(sp, insertMembers(hm.val, events(add), nl))
			}
		}
	}
	out, err := applySplices(data, sp)
	if err != nil {
		return nil, nil, err
	}
	if err := checkHooks(st, d, before, out, recs); err != nil {
		return nil, nil, err
	}
	return out, append(repointed, recs...), nil
}

// commandKey is the handler field that holds the command line.
func (d *hookDialect) commandKey() string {
	if d.copilot {
		return "bash"
	}
	return "command"
}

// handlerSite is one handler object in a hooks file: the list it sits in
// and its index there, and the group holding that list (grouped dialects).
type handlerSite struct {
	event      string
	group      jval // the group object; unset for a flat dialect
	groupList  jval // the event's list of groups
	gi         int
	list       jval // the list the handler is in
	hi         int
	h          jval
	groupCount int // handlers in the list
}

// handlerSites lists every handler object under the dialect's events in
// the hooks object hm, in file order.
func handlerSites(d *hookDialect, hm jval) []handlerSite {
	var out []handlerSite
	for _, em := range jmembers(hm) {
		if !d.has(em.key) || em.val.kind() != kArr {
			continue
		}
		if !d.grouped {
			hs := jelems(em.val)
			for hi, h := range hs {
				out = append(out, handlerSite{event: em.key, list: em.val, hi: hi, h: h, groupCount: len(hs)})
			}
			continue
		}
		for gi, g := range jelems(em.val) {
			hl, ok := jlast(g, "hooks")
			if !ok || hl.val.kind() != kArr {
				continue
			}
			hs := jelems(hl.val)
			for hi, h := range hs {
				out = append(out, handlerSite{event: em.key, group: g, groupList: em.val, gi: gi, list: hl.val, hi: hi, h: h, groupCount: len(hs)})
			}
		}
	}
	return out
}

// repointHooks rewrites every airlock-hook command, in the event lists init
// wires, whose program is not the airlock-hook at hookPath (Airlock was
// moved or reinstalled elsewhere) to run hookPath instead, keeping the
// rest of the command line.
func repointHooks(st Store, d *hookDialect, data []byte, before *Config, hookPath string) ([]byte, []hookRecord, error) {
	doc := &jdoc{src: blankJSONC(data)}
	root, ok := doc.root()
	if !ok || root.kind() != kObj {
		return data, nil, nil
	}
	hm, ok := jlast(root, "hooks")
	if !ok || hm.val.kind() != kObj {
		return data, nil, nil
	}
	var sp []splice
	var recs []hookRecord
	repoint := func(cmd string) string {
		_, rest := splitFirstWord(cmd)
		return shellQuote(hookPath) + rest
	}
	for _, s := range handlerSites(d, hm.val) {
		c, ok := jlast(s.h, d.commandKey())
		if !ok || c.val.kind() != kStr || !staleHook(c.val.text(), hookPath) {
			continue
		}
		nc := repoint(c.val.text())
		sp = append(sp, splice{c.val.off, c.val.end, jsonQuote(nc)})
		recs = append(recs, hookRecord{Event: s.event, Command: nc})
	}
	if len(sp) == 0 {
		return data, nil, nil
	}
	out, err := applySplices(data, sp)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := Parse(st, out)
	if err != nil {
		return nil, nil, refuse("internal error: the edited file no longer reads: %v", err)
	}
	want := map[string]int{}
	key := func(h Hook) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s\x00%v", h.Event, h.Matcher, h.Command, h.Timeout, h.If, h.Async)
	}
	for _, h := range before.Hooks {
		if d.has(h.Event) && !h.Helper && staleHook(h.Command, hookPath) {
			h.Command = repoint(h.Command)
		}
		want[key(h)]++
	}
	for _, h := range cfg.Hooks {
		want[key(h)]--
	}
	for k, n := range want {
		if n != 0 {
			return nil, nil, refuse("internal error: hooks after repointing differ from what was meant (%q)", strings.ReplaceAll(k, "\x00", " "))
		}
	}
	return out, recs, nil
}

// checkHooks holds an edited hooks file to what wireHooks meant: the
// hooks it had, plus exactly the ones added.
func checkHooks(st Store, d *hookDialect, before *Config, after []byte, added []hookRecord) error {
	cfg, err := Parse(st, after)
	if err != nil {
		return refuse("internal error: the edited file no longer reads: %v", err)
	}
	want := map[string]int{}
	key := func(h Hook) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%d", h.Event, h.Matcher, h.Command, h.Timeout)
	}
	for _, h := range before.Hooks {
		want[key(h)]++
	}
	for _, r := range added {
		want[key(d.written(r))]++
	}
	for _, h := range cfg.Hooks {
		want[key(h)]--
	}
	for k, n := range want {
		if n != 0 {
			return refuse("internal error: hooks after the edit differ from what was meant (%q)", strings.ReplaceAll(k, "\x00", " "))
		}
	}
	if cfg.HooksDisabled != before.HooksDisabled {
		return refuse("internal error: the edit changed disableAllHooks")
	}
	return nil
}

// unwireHooks removes, from the events init wired, every hook that runs
// airlock-hook (a group left with no hook goes too), then the event lists
// and "hooks" object init created, once empty. The user's other hooks,
// and anything else in the file, are kept.
func unwireHooks(st Store, data []byte, recs []hookRecord) ([]byte, int, error) {
	d := dialectOf(st)
	if d == nil {
		return nil, 0, refuse("internal error: %s holds no hooks airlock wires", st.ID)
	}
	events := map[string]bool{}
	createdEvent := map[string]bool{}
	createdHooks := false
	for _, r := range recs {
		events[r.Event] = true
		if r.Created != "" {
			createdEvent[r.Event] = true
		}
		createdHooks = createdHooks || r.Created == "hooks"
	}
	removed := 0
	for step := 0; ; step++ {
		if step > 10000 {
			return nil, 0, refuse("internal error: unwiring hooks does not converge")
		}
		doc := &jdoc{src: blankJSONC(data)}
		root, ok := doc.root()
		if !ok || root.kind() != kObj {
			return data, removed, nil
		}
		hm, ok := jlast(root, "hooks")
		if !ok || hm.val.kind() != kObj {
			return data, removed, nil
		}
		sp, ok := nextAirlockHook(d, hm.val, events)
		if !ok {
			sp, ok = emptyCreated(root, hm, createdEvent, createdHooks, d.version)
			if !ok {
				if _, err := Parse(st, data); err != nil {
					return nil, 0, refuse("internal error: the edited file no longer reads: %v", err)
				}
				return data, removed, nil
			}
		} else {
			removed++
		}
		out, err := applySplices(data, []splice{sp})
		if err != nil {
			return nil, 0, err
		}
		data = out
	}
}

// nextAirlockHook finds the first airlock-hook hook under the given
// events and the splice that removes it.
func nextAirlockHook(d *hookDialect, hooks jval, events map[string]bool) (splice, bool) {
	for _, s := range handlerSites(d, hooks) {
		if !events[s.event] {
			continue
		}
		c, ok := jlast(s.h, d.commandKey())
		if !ok || c.val.kind() != kStr || !IsAirlockHook(c.val.text()) {
			continue
		}
		if d.grouped && s.groupCount == 1 {
			return removeElem(s.groupList, s.gi), true
		}
		return removeElem(s.list, s.hi), true
	}
	return splice{}, false
}

// emptyCreated finds an event list, or the hooks object, that init
// created and that is now empty. version: init wrote "version" next to
// the hooks object it created, and it goes with it when nothing else is
// left.
func emptyCreated(root jval, hm jmem, createdEvent map[string]bool, createdHooks, version bool) (splice, bool) {
	mems := jmembers(hm.val)
	for i, em := range mems {
		if createdEvent[em.key] && em.val.kind() == kArr && len(jelems(em.val)) == 0 {
			return removeMember(hm.val, i), true
		}
	}
	if createdHooks && len(mems) == 0 {
		rm := jmembers(root)
		if version && len(rm) == 2 && rm[0].key == "version" && rm[1].keyOff == hm.keyOff {
			return removeMember(root, 0), true
		}
		for i, m := range rm {
			if m.keyOff == hm.keyOff {
				return removeMember(root, i), true
			}
		}
	}
	return splice{}, false
}
