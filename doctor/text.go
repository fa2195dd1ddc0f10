package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// briefItems is how many of a check's items the default text report
// prints; --verbose prints them all.
const briefItems = 6

// Verdict is the report's first line: enforcing or not, and why not.
func (r *report) Verdict() string {
	fails, warns := 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case fail:
			fails++
		case warn:
			warns++
		}
	}
	switch {
	case r.NothingWired && fails > 1:
		return "NOT enforcing: nothing is wired — no agent's tool calls pass the gate: run airlock init (and see the FAIL lines below)"
	case r.NothingWired:
		return "NOT enforcing: nothing is wired — no agent's tool calls pass the gate: run airlock init"
	case fails > 0:
		return fmt.Sprintf("NOT enforcing: %d check(s) FAIL below (airlock doctor --fix wraps stragglers and wires the hook)", fails)
	case warns > 0:
		return fmt.Sprintf("enforcing: everything checked is in force; %d warning(s) below are limits, listed so they are known", warns)
	}
	return "enforcing: everything checked is in force"
}

// WriteText writes the report for a person: the verdict first, then one
// line per check with its details below it. By default it fits a screen:
// a check with a Brief is that one line, and at most briefItems items are
// printed per check; verbose prints every detail.
func (r *report) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	b.WriteString(r.Verdict() + "\n\n")
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	pad := strings.Repeat(" ", width+8)
	for _, c := range r.Checks {
		mark := map[Status]string{OK: "ok  ", info: "info", warn: "warn", fail: "FAIL"}[c.Status]
		detail, items := c.Detail, c.Items
		if !verbose && c.Brief != "" {
			detail, items = c.Brief, nil
		}
		fmt.Fprintf(&b, "%s  %-*s  %s\n", mark, width, c.Name, shown(detail))
		for i, it := range items {
			if !verbose && !c.table && i == briefItems-1 && len(items) > briefItems {
				fmt.Fprintf(&b, "%sand %d more: airlock doctor --verbose\n", pad, len(items)-i)
				break
			}
			fmt.Fprintf(&b, "%s%s\n", pad, shown(it))
		}
		if c.Fix != "" && c.Status != OK && c.Status != info {
			fmt.Fprintf(&b, "%sfix: %s\n", pad, shown(c.Fix))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shown is s for a terminal: as it is, unless it holds a control or
// hidden character (a path or a name a repository chose can), which is
// then escaped as the audit log escapes it.
func shown(s string) string {
	if e := textsafe.Escape(s); e != strings.ReplaceAll(s, `\`, `\\`) {
		return e
	}
	return s
}
