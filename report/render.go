package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Coverage is the standing statement of what the log can and cannot show.
const Coverage = "Coverage: it sees what the gate saw: calls through the hook and the MCP proxy; not what a process did after it ran."

// Text writes the plain-text report. Its bytes depend only on the log and
// the window, so its SHA-256 can be signed off (see Review).
func (s Summary) Text(w io.Writer) error {
	return s.render(w, textStyle{})
}

// Markdown writes the report as Markdown.
func (s Summary) Markdown(w io.Writer) error {
	return s.render(w, mdStyle{})
}

// style is one output medium: how to escape record text and lay out the
// three kinds of block a report has.
type style interface {
	esc(string) string
	short(string) string // shortens the hashes in escaped text
	title(b *strings.Builder, s string)
	heading(b *strings.Builder, s string)
	para(b *strings.Builder, s string)
	table(b *strings.Builder, head [2]string, rows [][2]string)
	list(b *strings.Builder, items []string)
}

func (s Summary) render(w io.Writer, st style) error {
	var b strings.Builder
	st.title(&b, "Airlock report")
	st.para(&b, s.Integrity.Headline())
	if c := s.Integrity.Caveat(); c != "" {
		st.para(&b, c)
	}
	st.para(&b, s.window(st))
	st.para(&b, Coverage)
	s.renderNeeds(&b, st)

	st.heading(&b, "Policy changes")
	if len(s.PolicyChanges) == 0 {
		st.para(&b, "No policy change in this window: one policy was in force throughout.")
	} else {
		var items []string
		for _, r := range s.PolicyChanges {
			items = append(items, st.short(recordLine(st, r)))
		}
		st.para(&b, fmt.Sprintf("%d gate configuration record(s): each names the policy files, mode and weakening variables in force from then on at that enforcement point (the first one there is its starting configuration; every later one is a change, and the decisions after it were made by a different gate):", len(s.PolicyChanges)))
		st.list(&b, items)
	}

	st.heading(&b, "Calls by decision")
	if len(s.Decisions) == 0 {
		st.para(&b, "No decisions in this window.")
	} else {
		st.table(&b, [2]string{"result", "calls"}, countRows(st, s.Decisions))
		if s.Observed > 0 {
			st.para(&b, fmt.Sprintf("%d call(s) the policy would have blocked ran because of the mode (observe).", s.Observed))
		}
	}

	st.heading(&b, "Top blocked targets")
	if len(s.TopBlocked) == 0 {
		st.para(&b, "Nothing was blocked.")
	} else {
		st.table(&b, [2]string{"target", "blocks"}, countRows(st, s.TopBlocked))
	}

	st.heading(&b, "Asks")
	if len(s.Asks) == 0 {
		st.para(&b, "No call was sent to a person.")
	} else {
		st.table(&b, [2]string{"answer", "calls"}, countRows(st, s.Asks))
	}

	st.heading(&b, "Interruptions")
	if len(s.Asks) == 0 {
		st.para(&b, "No ask in this window: nobody was interrupted.")
	} else {
		st.table(&b, [2]string{"asks", "calls"}, s.interruptionRows())
		if s.UnattendedAllowed > 0 {
			st.para(&b, fmt.Sprintf("%d ask(s) ran without a person's answer: ask_fallback allowed them.", s.UnattendedAllowed))
		}
	}

	st.heading(&b, "Grant candidates")
	if len(s.GrantCandidates) == 0 {
		st.para(&b, "No gated call that a grant could lift.")
	} else {
		st.para(&b, CandidatesNote)
		st.list(&b, candidateLines(st, s.GrantCandidates))
	}

	st.heading(&b, "Holds")
	if len(s.Holds) == 0 {
		st.para(&b, "No MCP server's toolset was held.")
	} else {
		var items []string
		for _, r := range s.Holds {
			items = append(items, st.short(recordLine(st, r)))
		}
		st.para(&b, fmt.Sprintf("%d hold record(s) in this window (those still in force are under Needs you):", len(s.Holds)))
		st.list(&b, items)
	}

	if len(s.Taints) > 0 {
		// only when there is one: a report of ordinary work reads as before
		st.heading(&b, "Tainted sessions")
		var items []string
		for _, r := range s.Taints {
			items = append(items, st.short(recordLine(st, r)))
		}
		st.para(&b, fmt.Sprintf("%d taint record(s): a session saw a result carrying injection, and its privileged actions were escalated until the taint ended (airlock taint):", len(s.Taints)))
		st.list(&b, items)
	}

	if len(s.Limits) > 0 {
		st.heading(&b, "Call limits")
		var items []string
		for _, r := range s.Limits {
			items = append(items, st.short(recordLine(st, r)))
		}
		st.para(&b, fmt.Sprintf("%d call-limit decision(s): the same call repeated past the loop detector, or a per-minute cap passed (loop:, limits:):", len(s.Limits)))
		st.list(&b, items)
	}

	st.heading(&b, "Top tools")
	if len(s.TopTools) == 0 {
		st.para(&b, "No tool calls in this window.")
	} else {
		st.table(&b, [2]string{"tool", "calls"}, countRows(st, s.TopTools))
	}

	if len(s.Trouble) > 0 {
		st.heading(&b, "Problems recorded")
		st.table(&b, [2]string{"event", "records"}, countRows(st, s.Trouble))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (s Summary) window(st style) string {
	since, until := "the start of the log", "the end of the log"
	if !s.Since.IsZero() {
		since = s.Since.UTC().Format(audit.TimeFormat)
	}
	if !s.Until.IsZero() {
		until = s.Until.UTC().Format(audit.TimeFormat)
	}
	out := fmt.Sprintf("Window: %s to %s; %d record(s)", since, until, s.Records)
	if s.First != "" {
		out += fmt.Sprintf(", first %s, last %s", st.esc(s.First), st.esc(s.Last))
	}
	if s.Malformed > 0 {
		out += fmt.Sprintf("; %d line(s) are not records", s.Malformed)
	}
	return out + "."
}

// recordLine is one record in a list: time, then what it says.
func recordLine(st style, r audit.Record) string {
	parts := []string{st.esc(r.Time)}
	for _, f := range []string{r.Source, r.Tool, r.Rule, r.Target, r.Reason, r.Detail} {
		if f != "" {
			parts = append(parts, st.esc(f))
		}
	}
	return strings.Join(parts, " ")
}

// CandidatesNote introduces the grant candidates in every format.
const CandidatesNote = "The gated calls seen most often that a grant could lift (built-in forbids are left out: no grant lifts them). Add --dry-run to see a grant before it is written:"

// interruptionRows are the report's own words, not record text: nothing to
// escape.
func (s Summary) interruptionRows() [][2]string {
	return [][2]string{
		{"a person was prompted (the agent's own prompt, or Airlock's ask channel)", fmt.Sprint(s.Interruptions)},
		{"repeats silenced by a remembered answer", fmt.Sprint(s.Silenced)},
		{"approved by --yes, no person asked", fmt.Sprint(s.Automatic)},
		{"allowed by ask_fallback, no person answered", fmt.Sprint(s.UnattendedAllowed)},
	}
}

// candidateLines is one line per candidate: how often, what, and the
// command, every record-derived piece escaped for st.
func candidateLines(st style, cs []candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		target := "(no target)"
		if c.Target != "" {
			target = st.short(st.esc(c.Target)) // the grant command keeps it whole
		}
		out[i] = fmt.Sprintf("%d× %s on %s (rule %s): %s", c.Count, st.esc(orNone(c.Tool)), target, st.esc(orNone(c.Rule)), st.esc(c.Grant))
	}
	return out
}

func countRows(st style, cs []Count) [][2]string {
	rows := make([][2]string, len(cs))
	for i, c := range cs {
		rows[i] = [2]string{st.esc(c.Key), fmt.Sprint(c.N)}
	}
	return rows
}

// textStyle is for a terminal: textsafe.Escape, fixed-width columns.
type textStyle struct{}

func (textStyle) esc(s string) string   { return textsafe.Escape(s) }
func (textStyle) short(s string) string { return shortenHashes(s) }
func (textStyle) title(b *strings.Builder, s string) {
	b.WriteString(s + "\n" + strings.Repeat("=", len(s)) + "\n")
}
func (textStyle) heading(b *strings.Builder, s string) { b.WriteString("\n" + s + "\n") }
func (textStyle) para(b *strings.Builder, s string)    { b.WriteString(s + "\n") }
func (textStyle) list(b *strings.Builder, items []string) {
	for _, it := range items {
		b.WriteString("  " + it + "\n")
	}
}
func (textStyle) table(b *strings.Builder, _ [2]string, rows [][2]string) {
	for _, r := range rows {
		fmt.Fprintf(b, "  %6s  %s\n", r[1], r[0])
	}
}

// mdStyle is CommonMark: record text is made inert (see mdEscape).
type mdStyle struct{}

func (mdStyle) esc(s string) string                  { return mdEscape(s) }
func (mdStyle) short(s string) string                { return shortenHashes(s) }
func (mdStyle) title(b *strings.Builder, s string)   { b.WriteString("# " + s + "\n\n") }
func (mdStyle) heading(b *strings.Builder, s string) { b.WriteString("\n## " + s + "\n\n") }
func (mdStyle) para(b *strings.Builder, s string)    { b.WriteString(mdEscapeProse(s) + "\n\n") }
func (mdStyle) list(b *strings.Builder, items []string) {
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
}
func (mdStyle) table(b *strings.Builder, head [2]string, rows [][2]string) {
	b.WriteString("| " + head[0] + " | " + head[1] + " |\n|---|---:|\n")
	for _, r := range rows {
		b.WriteString("| " + r[0] + " | " + r[1] + " |\n")
	}
}

// mdEscape makes record text inert in Markdown: control and invisible
// characters are made visible (textsafe.Escape), <, > and & become entities
// (no raw HTML), and every other ASCII punctuation character is
// backslash-escaped, so no link, emphasis, code span, heading or table
// cell boundary can come from a record.
func mdEscape(s string) string {
	s = textsafe.Escape(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r < 0x80 && strings.ContainsRune("\\`*_{}[]()#+-.!|~\"'$%,/:;=?@^", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdEscapeProse is for the report's own sentences, which may already hold
// escaped record text: only what would start raw HTML is neutralised.
func mdEscapeProse(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}
