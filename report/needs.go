package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentairlock/airlock/audit"
)

// Needs is what a report opens with: what the person has to look at. Every
// string in it is raw record text: each renderer escapes it.
type Needs struct {
	// Ran are the calls that ran although the policy said block: the mode
	// let them through (observe, or guard's default), or Airlock failed and
	// AIRLOCK_FAIL_OPEN=1 let the call pass. Grouped by session, tool,
	// target, rule and why, in order of first sight; at most topN groups.
	Ran     []ranCall
	RanMore int // groups left out of Ran
	RanN    int // calls in every group, shown or not
	// Unasked counts observe-mode calls the policy would have asked a
	// person about, which ran without asking.
	Unasked int
	// Holds are the MCP servers whose toolset was held at the end of the
	// window (no release recorded after the last hold).
	Holds []hold
	// Burns are breach findings (see Analyze): a secret was read, or its
	// digest left in a call.
	Burns []finding
	// Broken: the chain is broken, and nothing above can be trusted.
	Broken bool
	// Since is where `airlock breach` should start to see everything the
	// window saw: the window's start, or "all".
	Since string
}

// ranCall is one group of calls that ran although the policy said block.
type ranCall struct {
	First, Last string // ts of the first and last call of the group
	Session     string
	Tool        string
	Target      string
	Rule        string
	Reason      string
	Why         string // "mode observe", "mode guard", "AIRLOCK_FAIL_OPEN=1"
	Count       int
}

// hold is one MCP server held at the end of the window.
type hold struct {
	Server string // "" when the record does not name it
	Time   string // ts of the hold record that began it
	Reason string
	Hash   string // the held toolset's hash, when recorded
	Calls  int    // calls refused because of the hold in the window
	Early  bool   // the hold began before the window: Time is its first refused call
}

func callsOf(h *hold) int {
	if h == nil {
		return 0
	}
	return h.Calls
}

// Nothing reports whether nothing needs the person.
func (n Needs) Nothing() bool {
	return !n.Broken && len(n.Ran) == 0 && n.Unasked == 0 && len(n.Holds) == 0 && len(n.Burns) == 0
}

// Items is how many things need the person.
func (n Needs) Items() int {
	i := len(n.Ran) + n.RanMore + len(n.Holds) + len(n.Burns)
	if n.Unasked > 0 {
		i++
	}
	if n.Broken {
		i++
	}
	return i
}

// needsOf finds what needs the person in entries (the window, in order).
func needsOf(entries []Entry, integ Integrity, f Filter) Needs {
	n := Needs{Since: "all", Broken: !integ.Trusted()}
	if !f.Since.IsZero() {
		n.Since = f.Since.UTC().Format(audit.TimeFormat)
	}
	groups := map[string]int{}
	var ran []ranCall
	holds := map[string]*hold{}
	var order []string
	// the servers the proxies' own records name (mcp__SERVER), to tell a
	// server from its tool in a call's name
	servers := map[string]bool{}
	for _, e := range entries {
		if r := e.Record; e.Err == nil && r.Event != "decision" && r.Source == "mcp" {
			if name, ok := strings.CutPrefix(r.Tool, "mcp__"); ok && name != "" {
				servers[name] = true
			}
		}
	}
	for _, e := range entries {
		if e.Err != nil {
			continue
		}
		r := e.Record
		switch {
		case r.Event == "decision" && r.Decision == "block" && r.Effective != "block":
			why := "mode " + orNone(r.Mode)
			if r.Mode == "" {
				why = "the mode"
			}
			addRan(&ran, groups, r, why)
		case r.Event == "hook_error" && r.Decision == "block" && r.Effective == "allow":
			addRan(&ran, groups, r, "AIRLOCK_FAIL_OPEN=1")
		case r.Event == "decision" && r.Decision == "ask" && r.Effective == "allow" && r.Mode == "observe":
			n.Unasked++
		}
		server, isMCP := mcpServer(r.Tool, r.Event == "decision", servers)
		switch {
		case r.Event == "mcp_admit" && r.Decision == "block":
			h := holds[server]
			if h == nil || h.Early {
				h = &hold{Server: server, Time: r.Time, Calls: callsOf(h)}
				holds[server] = h
				order = append(order, server)
			}
			h.Reason, h.Hash = r.Reason, r.Target // a proxy's restart holds it again: keep since when
		case r.Event == "mcp_release" || (r.Event == "mcp_admit" && r.Decision == "allow"):
			delete(holds, server)
		case isMCP && r.Event == "decision" && r.Effective == "block" && r.Rule == "pins:held":
			h := holds[server]
			if h == nil {
				// the hold began before the window: its calls still show it
				h = &hold{Server: server, Reason: r.Reason, Time: r.Time, Early: true}
				holds[server] = h
				order = append(order, server)
			}
			h.Calls++
		}
	}
	for _, g := range ran {
		n.RanN += g.Count
	}
	if len(ran) > topN {
		n.RanMore = len(ran) - topN
		ran = ran[:topN]
	}
	n.Ran = ran
	for _, s := range order {
		if h := holds[s]; h != nil {
			n.Holds = append(n.Holds, *h)
			holds[s] = nil // listed once
		}
	}
	n.Burns = Analyze(entries, integ, f).Findings
	return n
}

func addRan(ran *[]ranCall, groups map[string]int, r audit.Record, why string) {
	k := strings.Join([]string{r.Session, r.Tool, r.Target, r.Rule, why}, "\x00")
	if i, ok := groups[k]; ok {
		(*ran)[i].Count++
		(*ran)[i].Last = r.Time
		return
	}
	groups[k] = len(*ran)
	*ran = append(*ran, ranCall{First: r.Time, Last: r.Time, Session: r.Session, Tool: r.Tool, Target: r.Target,
		Rule: r.Rule, Reason: r.Reason, Why: why, Count: 1})
}

// mcpServer is the server an MCP proxy's record names in its tool:
// mcp__SERVER for the proxy's own records (admissions, releases), and
// mcp__SERVER__TOOL for a call, where a server whose name holds "__" is
// told from its tool by the servers the window names (the longest that
// fits).
func mcpServer(tool string, call bool, servers map[string]bool) (string, bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok || rest == "" {
		return "", false
	}
	if !call {
		return rest, true
	}
	best := ""
	for name := range servers {
		if len(name) > len(best) && strings.HasPrefix(rest, name+"__") {
			best = name
		}
	}
	if best != "" {
		return best, true
	}
	server, _, _ := strings.Cut(rest, "__")
	return server, true
}

// shellArg quotes s for a POSIX shell when it holds anything but the
// characters of a plain word, so a command the report prints does what it
// says when pasted.
func shellArg(s string) string {
	if s != "" && plainWord.MatchString(s) {
		return s
	}
	// '"'"' closes the quote, adds a quoted quote and reopens: no
	// backslash, which a renderer's escaping would double
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9._:@%+=,/-]+$`)

// BreachCommand is the `airlock breach` that shows what a session touched
// in the window.
func (n Needs) BreachCommand(session string) string {
	cmd := "airlock breach --since " + n.Since
	switch {
	case strings.HasPrefix(session, "-"):
		cmd += " --session=" + shellArg(session) // not read as a flag
	case session != "":
		cmd += " --session " + shellArg(session)
	}
	return cmd
}

// pinsCommand is the command that reviews a held server.
func pinsCommand(server string) string {
	if server == "" {
		return "airlock pins list"
	}
	return "airlock pins diff " + shellArg(server)
}

// needItem is one line of the section: Text is escaped for its style
// (hashes in it shortened by the style), Cmd is raw: the command to run,
// escaped by the renderer and never shortened, so it pastes as printed.
type needItem struct {
	Text string
	Cmd  string
}

// needBlock is one kind of thing that needs the person.
type needBlock struct {
	Kind  string // ran, unasked, hold, burn, broken: a fixed CSS class
	Intro string // the report's own words
	Items []needItem
}

// ranItem is one group of calls that ran: who, what, why, and the command
// to see what it touched.
func (n Needs) ranItem(st style, g ranCall) needItem {
	target := "(no target)"
	if g.Target != "" {
		target = st.short(st.esc(g.Target))
	}
	times := st.esc(g.First)
	if g.Count > 1 {
		times = fmt.Sprintf("%d× %s to %s", g.Count, st.esc(g.First), st.esc(g.Last))
	}
	rule := ""
	if g.Rule != "" {
		rule = " (rule " + st.esc(g.Rule) + ")"
	}
	return needItem{fmt.Sprintf("%s session %s: %s on %s%s ran because of %s; see what it touched", times,
		st.short(st.esc(orNone(g.Session))), st.esc(orNone(g.Tool)), target, rule, st.esc(g.Why)), n.BreachCommand(g.Session)}
}

func holdItem(st style, h hold) needItem {
	since := " held since "
	if h.Early {
		since = " held at least since "
	}
	out := "an MCP server the record does not name," + since + st.esc(h.Time)
	if h.Server != "" {
		out = "server " + st.esc(h.Server) + since + st.esc(h.Time)
	}
	if h.Reason != "" {
		out += ": " + st.short(st.esc(h.Reason))
	}
	if h.Hash != "" {
		out += "; pending toolset " + st.short(st.esc(h.Hash))
	}
	if h.Calls > 0 {
		out += fmt.Sprintf(" (%d call(s) refused)", h.Calls)
	}
	return needItem{out + "; review it", pinsCommand(h.Server)}
}

func (n Needs) burnItem(st style, f finding) needItem {
	// a finding (not an attempt) always has something to rotate, as
	// Breach.Rotations lists it
	read := "secret read"
	if !f.Read {
		read = "read blocked"
	}
	return needItem{fmt.Sprintf("%s session %s (%s): %s; rotate %s; kill chain and checklist", f.Grade, st.short(st.esc(orNone(f.Session))),
		read, st.short(st.esc(f.Why)), st.short(st.esc(f.Credential))), n.BreachCommand(f.Session)}
}

// nothingNeedsYou is the one line of a report with nothing to look at.
const nothingNeedsYou = "Nothing needs you: no call ran that the policy would have blocked, no MCP server is held, no secret is burned."

// brokenNeedsYou opens the section of a report whose log is broken: what
// follows is only what the altered records say.
const brokenNeedsYou = "The audit log is broken: preserve a copy of $AIRLOCK_HOME before anything else writes to it; what follows is only what the altered records say"

// blocks is the "Needs you" section for st, worst first: a broken log,
// burns, calls that ran, holds.
func (n Needs) blocks(st style) []needBlock {
	var out []needBlock
	if n.Broken {
		out = append(out, needBlock{Kind: "broken", Intro: "Broken log:", Items: []needItem{{brokenNeedsYou, "airlock verify"}}})
	}
	if len(n.Burns) > 0 {
		bl := needBlock{Kind: "burn", Intro: fmt.Sprintf("Burned: %d secret access(es) the log ties to a read or to egress:", len(n.Burns))}
		for _, f := range n.Burns {
			bl.Items = append(bl.Items, n.burnItem(st, f))
		}
		out = append(out, bl)
	}
	if len(n.Ran) > 0 {
		bl := needBlock{Kind: "ran", Intro: fmt.Sprintf("Ran, but the policy would have blocked it: %d call(s):", n.RanN)}
		for _, g := range n.Ran {
			bl.Items = append(bl.Items, n.ranItem(st, g))
		}
		if n.RanMore > 0 {
			bl.Items = append(bl.Items, needItem{fmt.Sprintf("and %d more group(s)", n.RanMore), "airlock log --decision block --since " + n.Since})
		}
		out = append(out, bl)
	}
	if n.Unasked > 0 {
		out = append(out, needBlock{Kind: "unasked", Intro: "Ran without asking:", Items: []needItem{{
			fmt.Sprintf("%d call(s) the policy would have asked a person about ran because of mode observe", n.Unasked),
			"airlock log --decision ask --since " + n.Since}}})
	}
	if len(n.Holds) > 0 {
		bl := needBlock{Kind: "hold", Intro: fmt.Sprintf("Held: %d MCP server(s) refuse every call until a person approves the changed toolset:", len(n.Holds))}
		for _, h := range n.Holds {
			bl.Items = append(bl.Items, holdItem(st, h))
		}
		out = append(out, bl)
	}
	return out
}

// renderNeeds writes the "Needs you" section.
func (s Summary) renderNeeds(b *strings.Builder, st style) {
	st.heading(b, "Needs you")
	if s.Needs.Nothing() {
		st.para(b, nothingNeedsYou)
		return
	}
	st.para(b, fmt.Sprintf("%d thing(s) need you:", s.Needs.Items()))
	for _, bl := range s.Needs.blocks(st) {
		st.para(b, bl.Intro)
		items := make([]string, len(bl.Items))
		for i, it := range bl.Items {
			items[i] = it.Text + ": " + st.esc(it.Cmd)
		}
		st.list(b, items)
	}
}

// longHex is a hash in record text: 32 or more hex digits in a row.
var longHex = regexp.MustCompile(`[0-9a-fA-F]{32,}`)

// shortLen is how many hex digits a shortened hash keeps.
const shortLen = 12

// shortenHashes shortens every hash in s to its first shortLen hex digits
// and an ellipsis. s is already escaped for its medium: escaping never
// makes or breaks a run of hex digits.
func shortenHashes(s string) string {
	return longHex.ReplaceAllStringFunc(s, func(h string) string { return h[:shortLen] + "…" })
}

// piece is a run of HTML text: Full, when set, is the whole hash that
// Text shortens (shown as the element's title).
type piece struct {
	Text string
	Full string
}

// pieces splits s (raw for html/template) into text and shortened hashes.
func pieces(s string) []piece {
	var out []piece
	last := 0
	for _, m := range longHex.FindAllStringIndex(s, -1) {
		if m[0] > last {
			out = append(out, piece{Text: s[last:m[0]]})
		}
		h := s[m[0]:m[1]]
		out = append(out, piece{Text: h[:shortLen] + "…", Full: h})
		last = m[1]
	}
	if last < len(s) {
		out = append(out, piece{Text: s[last:]})
	}
	return out
}
