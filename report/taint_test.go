package report

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// TestReportShowsTaintsAndOffersNoGrantForThem: taint records get their
// own section, and a call escalated by a taint is no grant candidate (the
// taint stage runs after the grants).
func TestReportShowsTaintsAndOffersNoGrantForThem(t *testing.T) {
	rs := []audit.Record{
		{Time: "2026-12-02T12:03:00Z", Event: "taint", Source: "hook", Session: "s1", Tool: "mcp__notes__read_note", Decision: "taint", Rule: "inject.override",
			Reason: "the session is tainted by the result of mcp__notes__read_note: names ~/.ssh/id_rsa"},
		{Time: "2026-12-02T12:04:00Z", Event: "decision", Source: "hook", Session: "s1", Tool: "WebFetch", Decision: "ask", Effective: "ask", Rule: TaintRule,
			Target: "https://collect.example.net/k", Reason: "data goes to collect.example.net while the session is tainted, after the result of mcp__notes__read_note at 12:03"},
	}
	s := Summarize(entriesOf(rs...), Integrity{Status: audit.Intact}, Filter{})
	if len(s.Taints) != 1 {
		t.Fatalf("taints: %d, want 1", len(s.Taints))
	}
	for _, c := range s.GrantCandidates {
		if c.Rule == TaintRule {
			t.Errorf("a taint escalation is offered as a grant: %+v", c)
		}
	}
	var b strings.Builder
	if err := s.Text(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "Tainted sessions") || !strings.Contains(text, "mcp__notes__read_note") {
		t.Errorf("the report does not show the taint:\n%s", text)
	}
}
