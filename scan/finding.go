package scan

import (
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Severity orders how much a finding, or a set of findings, should worry a
// person.
type Severity int

// Severities, weakest first.
const (
	None Severity = iota
	Low
	Med
	High
)

// String returns "none", "low", "med" or "high".
func (s Severity) String() string {
	switch s {
	case None:
		return "none"
	case Low:
		return "low"
	case Med:
		return "med"
	case High:
		return "high"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Category groups indicators by what they are evidence of.
type Category string

// Categories.
const (
	injection    Category = "injection"
	Secret       Category = "secret"
	Exfiltration Category = "exfiltration"
	Execution    Category = "execution"
	Stealth      Category = "stealth"
)

// Finding is one indicator hit.
type Finding struct {
	ID       string   // e.g. "inject.override", "stealth.tag-chars"
	Category Category // what it is evidence of
	Severity Severity // of this indicator in this context
	Line     int      // 1-based line in the scanned string (for Tool: in the field's decoded value)
	Col      int      // 1-based, counted in runes
	Match    string   // the matched text, Escape'd, at most maxMatch runes
	Explain  string   // one line for a person
	Field    string   // where in a structured input ("description", "inputSchema.properties.path.description"); "" for plain text
	Tool     string   // the tool's name when the finding came from Tool (Escape'd); "" otherwise

	para     int // 1-based paragraph (text between blank lines) of plain text; 0 when unknown
	off, end int // the match's bytes in the scanned string (Text only), for Neutralise
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Tool != "" {
		fmt.Fprintf(&b, "tool %q ", f.Tool)
	}
	if f.Field != "" {
		fmt.Fprintf(&b, "%s ", f.Field)
	}
	fmt.Fprintf(&b, "%d:%d %s %s %q: %s", f.Line, f.Col, f.Severity, f.ID, f.Match, f.Explain)
	return b.String()
}

// Context says what kind of text is being scanned, which decides how much
// an imperative in it weighs.
type Context int

// Contexts.
const (
	// Instructions is text a model will follow: SKILL.md, command files,
	// rules, tool descriptions. Imperatives are evidence at full weight.
	Instructions Context = iota
	// Prose is text about these attacks (docs, READMEs, security
	// write-ups): indicators are listed but weighted down.
	Prose
	// Code is source code and tests: weighted down like Prose.
	Code
	// Config is an agent's configuration: MCP server launch commands and
	// hook commands run without a person reading them, so execution,
	// exfiltration and stealth weigh in full; credential names (a
	// server's ${GITHUB_TOKEN}) and imperatives are weighted down.
	Config
	// Script is code that ships inside a skill or runs as a hook: what it
	// executes, reads and sends weighs in full; imperatives in it are
	// not addressed to the model and are weighted down.
	Script
)

// weighsDown reports whether a finding of category cat is weighted down
// in this context.
func (c Context) weighsDown(cat Category) bool {
	switch c {
	case Instructions:
		return false
	case Config:
		return cat == injection || cat == Secret
	case Script:
		return cat == injection
	}
	return true
}

func (c Context) String() string {
	switch c {
	case Instructions:
		return "instructions"
	case Prose:
		return "prose"
	case Code:
		return "code"
	case Config:
		return "config"
	case Script:
		return "script"
	}
	return fmt.Sprintf("context(%d)", int(c))
}

// maxMatch bounds Finding.Match, in runes of the escaped form.
const maxMatch = 120

// clip escapes s and bounds it to n runes, marking a cut with "…".
func clip(s string, n int) string { return textsafe.CutRunes(textsafe.EscapeLoose(s), n) }

// ClipMatch is s as a Finding's Match holds it: escaped, at most maxMatch
// runes. A caller that builds its own findings (the file scanner's config
// indicators) fills Match with it.
func ClipMatch(s string) string { return clip(s, maxMatch) }

// At is f placed elsewhere: at line and col, in field. Text scanned on its
// own and found in a file somewhere else (a frontmatter value decoded out
// of its YAML) sits where its key does; its paragraph, counted in the
// value, means nothing in the file and is dropped, so Risk's nearness
// falls back to lines.
func (f Finding) At(line, col int, field string) Finding {
	f.Line, f.Col, f.Field, f.para = line, col, field, 0
	return f
}

// ParseSeverity reads "low", "med" (or "medium") and "high".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "low":
		return Low, nil
	case "med", "medium":
		return Med, nil
	case "high":
		return High, nil
	}
	return None, fmt.Errorf("severity %q: want low, med or high", s)
}
