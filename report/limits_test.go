package report

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// TestReportShowsCallLimits: decisions of the loop detector and the caps
// get their own section (text and HTML), and are no grant candidates: a
// limit is counted after the grants.
func TestReportShowsCallLimits(t *testing.T) {
	rs := []audit.Record{
		{Time: "2026-12-02T12:04:00Z", Event: "decision", Source: "hook", Session: "s1", Tool: "Read", Decision: "ask", Effective: "ask", Rule: "limits.loop",
			Target: "/home/dev/proj/main.go", Reason: "the same call 21 times in 2m (loop: ask after 20)"},
		{Time: "2026-12-02T12:05:00Z", Event: "decision", Source: "mcp", Session: "mcp-notes-1", Tool: "mcp__notes__read_note", Decision: "block", Effective: "block", Rule: "limits.server",
			Reason: "9 calls of mcp__notes__* in 1m to this server (limits: block above 8 a minute)"},
		{Time: "2026-12-02T12:06:00Z", Event: "decision", Source: "hook", Session: "s1", Tool: "Write", Decision: "ask", Effective: "ask", Rule: "write-elsewhere",
			Target: "/opt/x", Reason: "a write outside the workspace and tmp"},
	}
	s := Summarize(entriesOf(rs...), Integrity{Status: audit.Intact}, Filter{})
	if len(s.Limits) != 2 {
		t.Fatalf("limits: %d, want 2", len(s.Limits))
	}
	for _, c := range s.GrantCandidates {
		if IsLimitRule(c.Rule) {
			t.Errorf("a call limit is offered as a grant: %+v", c)
		}
	}
	var b strings.Builder
	if err := s.Text(&b); err != nil {
		t.Fatal(err)
	}
	if text := b.String(); !strings.Contains(text, "Call limits") || !strings.Contains(text, "the same call 21 times in 2m") {
		t.Errorf("the report does not show the loop:\n%s", text)
	}
	b.Reset()
	if err := s.HTML(&b); err != nil {
		t.Fatal(err)
	}
	if h := b.String(); !strings.Contains(h, `id="limits"`) || !strings.Contains(h, "9 calls of mcp__notes__*") {
		t.Errorf("the HTML report does not show the cap")
	}
}
