package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/audit"
)

// Grade is how strong the evidence of a burn is.
type Grade int

const (
	// Possible: a secret was read (or a read was attempted) and nothing in
	// the log ties it to egress.
	possible Grade = iota + 1
	// Probable: after a secret read in the same session, a call went to a
	// known collector or hit an exfiltration rule; or the secret's digest
	// reappeared in a call the gate blocked.
	probable
	// Confirmed: the secret's own digest reappeared in an outbound payload
	// the gate let through.
	confirmed
)

func (g Grade) String() string {
	switch g {
	case confirmed:
		return "CONFIRMED"
	case probable:
		return "PROBABLE"
	case possible:
		return "POSSIBLE"
	}
	return fmt.Sprintf("Grade(%d)", int(g))
}

// step is one record of a kill chain.
type step struct {
	Phase  string // PhaseSecret, PhaseStaging or PhaseEgress
	Line   int
	Record audit.Record
}

// Kill-chain phases.
const (
	phaseSecret  = "secret access"
	phaseStaging = "staging"
	phaseEgress  = "egress"
)

// finding is one secret access and what followed it.
type finding struct {
	Grade      Grade
	Session    string
	Credential string   // what to rotate (raw text: escape to display)
	Read       bool     // false when the gate blocked the read
	Digests    []string // the secret's digests, when an outcome recorded them
	Why        string   // the evidence for the grade
	Timeline   []step
}

// breach is the result of Analyze.
type breach struct {
	Integrity Integrity
	Window    Filter
	Records   int
	Findings  []finding // worst first
	// Attempts are secret reads the gate blocked with nothing after them
	// tied to egress: the gate did its job, nothing was read, nothing
	// needs rotating. They are listed, not counted as burns.
	Attempts []finding
}

// Burned reports whether any finding was made.
func (b breach) Burned() bool { return len(b.Findings) > 0 }

// Worst is the highest grade found, 0 when clean.
func (b breach) Worst() Grade {
	g := Grade(0)
	for _, f := range b.Findings {
		g = max(g, f.Grade)
	}
	return g
}

type indexed struct {
	line int
	r    audit.Record
}

// egressFacts is what grading needs of one decision record, worked out
// once: a report grades every secret access of a week's log, and each
// looked at every later record again (quadratic: seconds on 20,000).
type egressFacts struct {
	digests   []string // payload digests
	host      string   // a known collector it called
	exfilRule bool
	staging   bool
}

// egressIndex holds the decision records that can move a grade: those
// with payload digests (any session), and per session those that hit an
// exfiltration rule, call a collector or stage data. Indices ascend.
type egressIndex struct {
	recs      []indexed
	facts     map[int]egressFacts
	digested  []int
	bySession map[string][]int
}

func newEgressIndex(recs []indexed) *egressIndex {
	x := &egressIndex{recs: recs, facts: map[int]egressFacts{}, bySession: map[string][]int{}}
	for i, e := range recs {
		r := e.r
		if r.Event != "decision" {
			continue
		}
		f := egressFacts{digests: payloadDigests(r), host: collectorHost(r.Target), exfilRule: isExfilRule(r.Rule)}
		f.staging = f.host == "" && !f.exfilRule && isStaging(r)
		if len(f.digests) == 0 && f.host == "" && !f.exfilRule && !f.staging {
			continue
		}
		x.facts[i] = f
		if len(f.digests) > 0 {
			x.digested = append(x.digested, i)
		}
		if f.host != "" || f.exfilRule || f.staging {
			x.bySession[r.Session] = append(x.bySession[r.Session], i)
		}
	}
	return x
}

// after calls fn, in log order, on every record after i that can move the
// grade of a secret access in session (digest: whether the access has
// digests to match).
func (x *egressIndex) after(i int, session string, digest bool, fn func(j int) bool) {
	a := x.bySession[session]
	var d []int
	if digest {
		d = x.digested
	}
	a = a[sort.SearchInts(a, i+1):]
	d = d[sort.SearchInts(d, i+1):]
	for len(a) > 0 || len(d) > 0 {
		var j int
		switch {
		case len(d) == 0 || (len(a) > 0 && a[0] < d[0]):
			j, a = a[0], a[1:]
		case len(a) == 0 || d[0] < a[0]:
			j, d = d[0], d[1:]
		default: // the same record in both
			j, a, d = a[0], a[1:], d[1:]
		}
		if !fn(j) {
			return
		}
	}
}

// Analyze grades every secret access in entries (already filtered to the
// window) by the egress that followed it.
func Analyze(entries []Entry, integ Integrity, f Filter) breach {
	b := breach{Integrity: integ, Window: f}
	recs := make([]indexed, 0, len(entries))
	for _, e := range entries {
		b.Records++
		if e.Err == nil {
			recs = append(recs, indexed{e.Line, e.Record})
		}
	}
	// an outcome joins its decision by session, tool and args digest
	outcomes := map[string][]int{}
	for j, x := range recs {
		if x.r.Event == "outcome" {
			k := outcomeKey(x.r)
			outcomes[k] = append(outcomes[k], j)
		}
	}
	egress := newEgressIndex(recs)
	used := map[int]bool{}
	for i, x := range recs {
		r := x.r
		secretDecision := r.Event == "decision" && isSecretRule(r.Rule)
		lone := r.Event == "outcome" && !used[i] && (isSecretRule(r.Rule) || len(secretDigests(r)) > 0)
		if !secretDecision && !lone {
			continue
		}
		fd := finding{Session: r.Session, Credential: credentialLabel(r), Read: r.Effective != "block",
			Timeline: []step{{phaseSecret, x.line, r}}}
		if lone {
			fd.Digests = secretDigests(r)
		} else if fd.Read {
			js := outcomes[outcomeKey(r)]
			for _, j := range js[sort.SearchInts(js, i+1):] {
				if !used[j] {
					used[j] = true
					fd.Digests = secretDigests(recs[j].r)
					fd.Timeline = append(fd.Timeline, step{phaseSecret, recs[j].line, recs[j].r})
					break
				}
			}
		}
		grade(&fd, i, egress)
		if !fd.Read && fd.Grade == possible {
			b.Attempts = append(b.Attempts, fd)
			continue
		}
		b.Findings = append(b.Findings, fd)
	}
	sort.SliceStable(b.Findings, func(i, j int) bool { return b.Findings[i].Grade > b.Findings[j].Grade })
	return b
}

// grade follows the secret access at record i through the records after
// it that can move its grade.
func grade(fd *finding, i int, egress *egressIndex) {
	fd.Grade = possible
	if fd.Read {
		fd.Why = "a secret was read; nothing in the log ties it to egress"
	} else {
		fd.Why = "a secret read was attempted and blocked; nothing in the log ties it to egress"
	}
	egress.after(i, fd.Session, len(fd.Digests) > 0, func(j int) bool {
		x, facts := egress.recs[j], egress.facts[j]
		r := x.r
		sameSession := r.Session == fd.Session
		hit := shared(fd.Digests, facts.digests)
		digestHit := hit != ""
		host := facts.host
		exfil := sameSession && (facts.exfilRule || host != "")
		switch {
		case digestHit:
			fd.Timeline = append(fd.Timeline, step{phaseEgress, x.line, r})
			if r.Effective != "block" {
				fd.Grade = confirmed
				fd.Why = "the secret's own digest (" + hit + ") reappeared in an outbound payload the gate let through"
				return false
			}
			if fd.Grade < probable {
				fd.Grade = probable
				fd.Why = "the secret's own digest (" + hit + ") reappeared in an outbound call; the gate blocked that call"
			}
		case exfil:
			fd.Timeline = append(fd.Timeline, step{phaseEgress, x.line, r})
			if fd.Read && fd.Grade < probable {
				fd.Grade = probable
				switch {
				case host != "":
					fd.Why = "after the secret was read, the same session called a known collector (" + host + ")"
				default:
					fd.Why = "after the secret was read, the same session hit exfiltration rule " + r.Rule
				}
				if r.Effective == "block" {
					fd.Why += "; the gate blocked that call"
				}
			} else if !fd.Read && fd.Grade == possible {
				fd.Why = "a secret read was attempted and blocked; the same session then tried egress (see timeline)"
			}
		case sameSession && facts.staging:
			fd.Timeline = append(fd.Timeline, step{phaseStaging, x.line, r})
		}
		return true
	})
}

// shared returns a digest in both lists, or "".
func shared(a, b []string) string {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return x
			}
		}
	}
	return ""
}

// rotation is one credential to rotate, at the worst grade seen for it.
type rotation struct {
	Credential string
	Grade      Grade
}

// Rotations lists the credentials whose secret was read, worst first. A
// read the gate blocked leaked nothing through that call and is not listed.
func (b breach) Rotations() []rotation {
	worst := map[string]Grade{}
	for _, f := range b.Findings {
		if f.Read || f.Grade > possible {
			worst[f.Credential] = max(worst[f.Credential], f.Grade)
		}
	}
	out := make([]rotation, 0, len(worst))
	for c, g := range worst {
		out = append(out, rotation{c, g})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Grade != out[j].Grade {
			return out[i].Grade > out[j].Grade
		}
		return out[i].Credential < out[j].Credential
	})
	return out
}

// Checklist is what to do next, given the findings.
func (b breach) Checklist() []string {
	var out []string
	if !b.Integrity.Trusted() {
		out = append(out, "The log is broken: preserve a copy of $AIRLOCK_HOME as it is, and treat every credential this machine holds as exposed.")
	}
	if rot := b.Rotations(); len(rot) > 0 {
		out = append(out, "Rotate the credentials listed above, CONFIRMED first; then look for their use (cloud audit trails, git host security logs).")
	}
	if b.Worst() >= probable {
		out = append(out, "Find what made the agent do it: the skill, MCP server, repository file or web page it read just before the secret access (see the timeline's session in airlock log --session).")
		out = append(out, "Block the egress host for good (policy block rule) and check other machines for the same pattern.")
	}
	out = append(out,
		"Preserve the evidence: copy $AIRLOCK_HOME (audit.jsonl and its checkpoint) somewhere the agent cannot write.",
		"Run airlock verify, and airlock report for the same window, to see everything else the agent did.",
		"Remember what this cannot see: a process the gate allowed may have read or sent more than any record shows.")
	return out
}

// Text writes the breach analysis for a terminal.
func (b breach) Text(w io.Writer) error { return b.render(w, textStyle{}) }

// Markdown writes the breach analysis as Markdown.
func (b breach) Markdown(w io.Writer) error { return b.render(w, mdStyle{}) }

func (b breach) render(w io.Writer, st style) error {
	var sb strings.Builder
	st.title(&sb, "Airlock breach analysis")
	st.para(&sb, b.Integrity.Headline())
	if c := b.Integrity.Caveat(); c != "" {
		st.para(&sb, c)
	}
	st.para(&sb, Coverage)
	scope := fmt.Sprintf("Window: %d record(s)", b.Records)
	if !b.Window.Since.IsZero() {
		scope += " since " + b.Window.Since.UTC().Format(audit.TimeFormat)
	}
	if b.Window.Session != "" {
		scope += ", session " + st.esc(b.Window.Session)
	}
	st.para(&sb, scope+".")
	if !b.Burned() {
		if n := len(b.Attempts); n > 0 {
			st.para(&sb, fmt.Sprintf("No burns: no secret was read in this window; the gate blocked %d attempt(s) to read one, with no egress tied to them.", n))
		} else {
			st.para(&sb, "No burns: no secret was read or attempted in this window.")
		}
		_, err := io.WriteString(w, sb.String())
		return err
	}
	counts := map[Grade]int{}
	for _, f := range b.Findings {
		counts[f.Grade]++
	}
	st.para(&sb, fmt.Sprintf("Burns found: %d CONFIRMED, %d PROBABLE, %d POSSIBLE (and %d blocked attempt(s) with nothing read).", counts[confirmed], counts[probable], counts[possible], len(b.Attempts)))

	st.heading(&sb, "Kill chain")
	for _, f := range b.Findings {
		read := "read"
		if !f.Read {
			read = "read blocked"
		}
		st.para(&sb, fmt.Sprintf("%s: session %s, %s (%s): %s", f.Grade, st.esc(orNone(f.Session)), st.esc(f.Credential), read, st.esc(f.Why)))
		var items []string
		for _, s := range f.Timeline {
			items = append(items, fmt.Sprintf("%-13s line %d  %s %s", s.Phase, s.Line, st.esc(s.Record.Effective+" "+s.Record.Event), recordLine(st, s.Record)))
		}
		st.list(&sb, items)
	}

	st.heading(&sb, "Credentials to rotate")
	if rot := b.Rotations(); len(rot) == 0 {
		st.para(&sb, "None: every secret access was blocked before the read.")
	} else {
		var items []string
		for _, r := range rot {
			items = append(items, r.Grade.String()+"  "+st.esc(r.Credential))
		}
		st.list(&sb, items)
	}

	st.heading(&sb, "Checklist")
	var items []string
	for _, c := range b.Checklist() {
		items = append(items, "[ ] "+c)
	}
	st.list(&sb, items)
	_, err := io.WriteString(w, sb.String())
	return err
}
