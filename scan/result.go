package scan

import (
	"slices"
	"strings"
)

// Results: what a server's tool returns (or a prompt's messages, a
// resource's contents) is data the model reads, and the place an attacker
// who cannot change a toolset puts instructions (poisoned tool output).
// ReadResult scans one string of it with the same engine as toolsets, but
// only acts on what addresses the model or hides from the person: an
// injection at High (alone or combined with a credential or a
// destination), hidden characters, terminal control sequences. What a
// result merely mentions (a curl | sh in a README, a credential path in a
// log) is the data the agent asked for, and passes.
//
// Most results are source files, JSON, logs and images that hold none of
// the anchors those indicators need, so a cheap pass over the bytes sends
// them through untouched without the full scan (mayCarry).

// Reading is what ReadResult found in one string.
type Reading struct {
	Findings []Finding // every finding of the full scan (nil when the cheap pass found nothing to read)
	Inject   bool      // it carries instructions to the model or hides text: warn, neutralise, taint
	Control  bool      // it carries terminal control sequences (made inert in Out)
	Reason   string    // one line for the person and the model when Inject or Control
	Out      string    // the text to deliver: s itself when nothing needed changing
}

// Changed reports whether the text delivered differs from the text read.
func (r Reading) Changed() bool { return r.Inject || r.Control }

// Removed is what stands in a result where an instruction to the model was.
const Removed = "[instruction removed by Airlock]"

// ReadResult reads one string of a result.
func ReadResult(s string) Reading {
	if !mayCarry(s) {
		return Reading{Out: s}
	}
	fs := Text(s, Instructions)
	r := Reading{Findings: fs, Out: s}
	high := Risk(fs) == High
	var injected, hiding bool
	for _, f := range fs {
		switch {
		case f.ID == "stealth.ansi":
			r.Control = true
			hiding = hiding || f.Severity == High
		case f.Category == injection && f.Severity >= Med:
			injected = true
		case f.Category == Stealth && f.Severity == High && f.ID != "scan.truncated":
			hiding = true
		}
	}
	r.Inject = hiding || (high && injected)
	if !r.Changed() {
		return r
	}
	if bad, why := Poisoned(fs); bad {
		r.Reason = why
	}
	if r.Reason == "" {
		for _, f := range fs {
			if f.Category == Stealth && f.Severity >= Med {
				r.Reason = label(f)
				break
			}
		}
	}
	r.Out = neutralise(s, fs, r.Inject)
	return r
}

// neutralise rewrites s so what it found cannot act: instructions are
// replaced by Removed, hidden characters dropped, control sequences
// shown as the symbols of their bytes.
func neutralise(s string, fs []Finding, inject bool) string {
	type edit struct {
		a, b int
		with string
	}
	var edits []edit
	for _, f := range fs {
		if f.end <= f.off || f.end > len(s) {
			continue
		}
		switch {
		case f.ID == "stealth.ansi":
			edits = append(edits, edit{f.off, f.end, inert(s[f.off:f.end])})
		case !inject:
		case f.ID == "stealth.tag-chars", f.ID == "stealth.bidi", f.ID == "stealth.zero-width":
			edits = append(edits, edit{f.off, f.end, ""})
		case f.ID == "stealth.base64" && f.Severity == High:
			edits = append(edits, edit{f.off, f.end, Removed})
		case f.Category == injection && f.Severity >= Med:
			edits = append(edits, edit{f.off, f.end, Removed})
		}
	}
	if len(edits) == 0 {
		return s
	}
	slices.SortFunc(edits, func(x, y edit) int { return x.a - y.a })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, e := range edits {
		if e.a < at {
			// overlapping: an instruction inside one already removed,
			// or a wider span over a narrower one
			if e.b > at && e.with == Removed {
				at = e.b
			}
			continue
		}
		b.WriteString(s[at:e.a])
		b.WriteString(e.with)
		at = e.b
	}
	b.WriteString(s[at:])
	return b.String()
}

// inert shows a control sequence's control bytes as their symbols.
var inert = strings.NewReplacer("\x1b", "␛", "\x08", "␈", "\x7f", "␡", "\x07", "␇",
	"\u009b", "␛[", "\u009d", "␛]", "\u0090", "␛P", "\u0098", "␛X", "\u009c", "␛\\", "\u009e", "␛^", "\u009f", "␛_").Replace

// resultNeedles are the words every indicator ReadResult acts on needs
// one of (lower case). A result without any, without a control or
// non-ASCII byte and without base64 that decodes to text, cannot carry
// one, and skips the full scan.
var resultNeedles = []string{
	// override
	"ignore", "disregard", "forget", "override", "bypass", "neglect", "new instruction", "new system instruction", "system prompt",
	// concealment without "user"
	"mention", "reveal", "disclose", "acknowledge", "secret instruction", "keep this", "keep it", "keep that",
	// role
	"you are now", "act as", "developer mode", "god mode", "jailbr", "do anything now", "pretend", "from now on",
	// redirect
	"bcc", "recipient", "payee", "iban", "wallet address", "account number", "to address", "forward all", "forward every",
	"forward any", "send all", "send every", "send any", "redirect",
	// built-in tools
	"built-in", "builtin", "built in", "native", "prefer this", "prefer these", "prefer our",
	// tag blocks
	"<important", "<system", "<sys", "<instruction", "<admin", "<override", "<secret", "<hidden", "<critical", "[inst]",
	"<<sys", "<|im_start|", "<|system|", "[system", "< ",
	// steering other tools
	"tool is", "tools are", "tool gets", "before using", "before calling", "before invoking", "before running",
	"before executing", "prior to", "instead of", "rather than", "every tool", "each tool", "any tool", "all tool",
	"subsequent", "calls to", "you call", "you use", "you invoke", "model calls", "assistant calls", "agent calls",
	"this tool must", "this tool should",
}

// concealNeedles: with "user", the words concealment is made of.
var concealNeedles = []string{"tell", "inform", "notify", "alert", "hide", "know", "see", "notice", "aware", "learn", "find out"}

// mayCarry is the cheap pass: false when s cannot hold anything
// ReadResult acts on.
func mayCarry(s string) bool {
	lower := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80, c < 0x20 && c != '\n' && c != '\t' && c != '\r', c == 0x7f:
			return true // hidden characters, look-alikes, control sequences
		case c == '&' && (strings.HasPrefix(s[i:], "&#") || strings.HasPrefix(s[i:], "&lt")):
			return true // entities fold to the characters they spell
		case c == '*' || c == '_':
			continue // emphasis folds away: "**ignore** all", "ignore_all"
		case c == '\n' || c == '\t' || c == '\r' || c == '>':
			c = ' ' // a quote marker or a line break between two words
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if c == ' ' && len(lower) > 0 && lower[len(lower)-1] == ' ' {
			continue
		}
		lower = append(lower, c)
	}
	l := string(lower)
	for _, n := range resultNeedles {
		if strings.Contains(l, n) {
			return true
		}
	}
	if strings.Contains(l, "user") {
		for _, n := range concealNeedles {
			if strings.Contains(l, n) {
				return true
			}
		}
	}
	return textInBase64(s)
}

// textInBase64 reports a base64 run long enough to be reported that
// decodes to text (its start is enough to tell): a picture is binary.
func textInBase64(s string) bool {
	if len(s) < minBase64 {
		return false
	}
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64(s[j]) {
			j++
		}
		if j-i >= minBase64 {
			if _, ok := decodeText(s[i : i+min(j-i, 400)&^3]); ok {
				return true
			}
		}
		i = j
	}
	return false
}
