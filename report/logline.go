package report

import (
	"fmt"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// LogLine renders one record on one line for airlock log; every field that
// came from an agent is escaped so a record cannot forge a line or hide
// text.
func LogLine(r audit.Record) string {
	s := fmt.Sprintf("%s %-8s %-6s %-9s %s", textsafe.Escape(r.Time), textsafe.Escape(r.Event), textsafe.Escape(r.Source), textsafe.Escape(r.Effective), textsafe.Escape(r.Tool))
	if r.Effective != r.Decision && r.Decision != "" {
		s += fmt.Sprintf(" (policy: %s)", textsafe.Escape(r.Decision))
	}
	if r.Rule != "" {
		s += " [" + textsafe.Escape(r.Rule) + "]"
	}
	if r.Target != "" {
		s += " " + textsafe.Escape(r.Target)
	}
	if r.Reason != "" {
		s += " — " + textsafe.Escape(r.Reason)
	}
	if r.Event == audit.EventMalformed && r.Detail != "" {
		s += " " + textsafe.Escape(r.Detail)
	}
	return s
}

// Last keeps the last n entries of src that f keeps (all when n <= 0),
// reading the log once with memory bounded by n.
func Last(src Source, f Filter, n int) ([]Entry, error) {
	if n <= 0 {
		return Collect(src, f)
	}
	ring := make([]Entry, 0, n)
	next := 0
	err := src.Each(func(e Entry) error {
		if !f.Keep(e) {
			return nil
		}
		if len(ring) < n {
			ring = append(ring, e)
			return nil
		}
		ring[next] = e
		next = (next + 1) % n
		return nil
	})
	return append(ring[next:], ring[:next]...), err
}
