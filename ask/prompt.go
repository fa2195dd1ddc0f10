package ask

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// maxShown caps how much of one string a prompt shows.
const maxShown = 240

// quote shows a string that came from outside the broker: in double
// quotes, escaped with textsafe.Escape (control, bidi, invisible and tag
// characters made visible), its own quotes escaped, and cut at maxShown
// runes of the original with the length of the rest said. The cut is made
// before escaping, so it never splits an escape.
func quote(s string) string {
	rest := 0
	if utf8.RuneCountInString(s) > maxShown {
		n := 0
		for i := range s {
			if n == maxShown {
				rest = len(s) - i
				s = s[:i]
				break
			}
			n++
		}
	}
	e := `"` + strings.ReplaceAll(textsafe.Escape(s), `"`, `\"`)
	if rest > 0 {
		return e + fmt.Sprintf(`…" (%d more bytes)`, rest)
	}
	return e + `"`
}

// Lines renders the question: one line per field, each field's value
// quoted, so nothing in a value can start a line of its own.
func Lines(r Request) []string {
	out := []string{"Airlock asks about a call (" + word(r.Source) + "):"}
	if r.Server != "" {
		out = append(out, "  server  "+quote(r.Server))
	}
	out = append(out, "  tool    "+quote(r.Tool))
	if r.Target != "" {
		out = append(out, "  target  "+quote(r.Target))
	}
	if r.Args != "" {
		out = append(out, "  args    "+quote(r.Args))
	}
	out = append(out, "  rule    "+quote(r.Rule))
	if r.Reason != "" {
		out = append(out, "  reason  "+quote(r.Reason))
	}
	return out
}

// Question is the line that asks for the answer. fallback is what
// happens to the call when nobody answers in time: "allow" or "block".
func Question(left time.Duration, fallback string) string {
	then := "then it is refused"
	if fallback == "allow" {
		then = "then ask_fallback allows it"
	}
	secs := int((left + time.Second - 1) / time.Second)
	return fmt.Sprintf("Allow this call? [y/N] (%d s to answer, %s) ", max(secs, 1), then)
}

// plainText is the question for a dialog: the same lines, joined.
func plainText(r Request) string {
	return strings.Join(Lines(r), "\n") + "\n\nAllow this call?"
}

// word names the caller in the prompt; only known sources are shown as
// they are.
func word(source string) string {
	switch source {
	case "mcp":
		return "MCP proxy"
	case "sandbox":
		return "airlock run egress proxy"
	case "":
		return "unknown caller"
	}
	return quote(source)
}

// parseAnswer reads a typed answer: y/yes approves, n/no or an empty line
// refuses; anything else is not an answer.
func parseAnswer(line string) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Allow, true
	case "", "n", "no":
		return Deny, true
	}
	return Fallback, false
}
