package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/agentairlock/airlock/internal/yamldoc"
)

// A flag (or argument) whose value is one of a fixed set is checked here,
// by every command: a value outside the set is a usage error naming the
// set and the nearest value, never a filter that quietly matches nothing.

// Values of the enumerated flags.
var (
	// decisionValues are what a record's decision or effective result can
	// be (log --decision matches either).
	decisionValues = []string{"allow", "ask", "block", "ran", "change", "stopped"}
	severityValues = []string{"low", "med", "medium", "high"}
)

// oneOf returns the value of the set that got names (compared without
// regard to case), or an error: `--NAME "got" is not one of a, b, c (did
// you mean "b"?)`. name is the flag's name without dashes; a name with a
// space in it ("profile name") is an argument and is written as it is.
func oneOf(name, got string, values ...string) (string, error) {
	for _, v := range values {
		if strings.EqualFold(got, v) {
			return v, nil
		}
	}
	what := name
	if !strings.Contains(name, " ") {
		what = "--" + name
	}
	msg := fmt.Sprintf("%s %q is not one of %s", what, got, strings.Join(values, ", "))
	if s := nearestValue(got, values); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return "", fmt.Errorf("%s", msg)
}

// enumFlag checks a flag of command verb against values: the canonical
// value, or a usage error (exit 64). An empty value is left to the caller
// (most such flags are optional).
func enumFlag(verb, name, got string, values ...string) (string, error) {
	if got == "" {
		return "", nil
	}
	v, err := oneOf(name, got, values...)
	if err != nil {
		return "", exitWith(64, "airlock %s: %v", verb, err)
	}
	return v, nil
}

// nearestValue is the value nearest to got: one got begins with or that
// begins with got ("blocked" → "block", "para" → "paranoid"), else the one
// fewest edits away (yamldoc.Distance, the loaders' measure of a typo) when that is at most about a third
// of its length (and at least one edit is allowed). "" when none is near. (Not yamldoc.Suggest: a flag's
// values are short words a person abbreviates, a key is a name a person misspells.)
func nearestValue(got string, values []string) string {
	g := strings.ToLower(got)
	if g == "" {
		return ""
	}
	for _, v := range values {
		if len(g) >= 2 && (strings.HasPrefix(g, v) || strings.HasPrefix(v, g)) {
			return v
		}
	}
	best, bestD := "", -1
	for _, v := range values {
		d := yamldoc.Distance(g, v)
		limit := max(1, (utf8.RuneCountInString(v)+1)/3)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = v, d
		}
	}
	return best
}

// atLeastZero is the Action of an int flag that counts something: a
// negative value is a usage error, never "no limit" or "no requirement".
func atLeastZero(verb, name string) func(*cli.Context, int) error {
	return func(_ *cli.Context, v int) error {
		if v < 0 {
			dash := "--"
			if len(name) == 1 {
				dash = "-"
			}
			return exitWith(64, "airlock %s: %s%s %d is negative: give 0 or more", verb, dash, name, v)
		}
		return nil
	}
}
