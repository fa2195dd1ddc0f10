package gate

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/agentairlock/airlock/policy"
)

// TestOversizedCallsAreRefused: past a budget the call is refused, never
// waved through as "nothing found"; under it, the secret is still found.
func TestOversizedCallsAreRefused(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	for _, c := range corpus.Oversized() {
		res := g.Decide(Call{Source: "cli", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Attended: true})
		if res.Effective != policy.Block {
			t.Errorf("%s: %s (%s), want block", c.Note, res.Effective, res.Decision.Explain())
			continue
		}
		if !strings.Contains(res.Decision.Explain(), c.Want) {
			t.Errorf("%s: reason %q does not say %q", c.Note, res.Decision.Explain(), c.Want)
		}
	}
}

// TestBudgetRefusesEvenInGuard: a guard-mode policy whose default is
// allow still blocks an unread call.
func TestBudgetRefusesEvenInGuard(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	in := `{"a":` + strings.Repeat(`[`, 20) + strings.Repeat(`]`, 20) + `}`
	res := g.Decide(Call{Source: "cli", Tool: "mcp__x__y", Input: []byte(in), Cwd: fx.WS, Attended: true})
	if res.Effective != policy.Block || res.Decision.Source != policy.FromBudget {
		t.Fatalf("deeply nested call: %s from %s", res.Effective, res.Decision.Source)
	}
}
