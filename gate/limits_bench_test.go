package gate

import (
	"strconv"
	"testing"
	"time"

	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/policy"
)

// BenchmarkLimitsStage is what the limits stage costs a proxy call in
// process: counting the call in memory (calls.Memory) and the stage's
// decision, under the default profile (the loop detector, 20 in 2m), with
// the session's window full (MaxKept calls, 10 ms apart). same: every call
// identical, as a looping agent's; distinct: ordinary calls.
func BenchmarkLimitsStage(b *testing.B) {
	g, fx := fixtureGate(b, "default")
	for _, mode := range []string{"same", "distinct"} {
		b.Run(mode, func(b *testing.B) {
			g.Calls = &calls.Memory{}
			c := Call{Source: "mcp", Tool: "mcp__bench__echo", Input: []byte(`{"text":"hello"}`), Cwd: fx.WS, Session: "mcp-bench-1", Attended: true}
			f := policy.Classify(c.Tool, c.Input, policy.CallEnv{Cwd: fx.WS, Home: fx.Home, User: fx.User})
			at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
			input := func(i int) []byte {
				if mode == "same" {
					return c.Input
				}
				return []byte(`{"text":"hello ` + strconv.Itoa(i) + `"}`)
			}
			for i := range calls.MaxKept + 100 {
				c.Input = input(i)
				g.recentCalls(c, "bench", at)
				at = at.Add(10 * time.Millisecond)
			}
			inputs := make([][]byte, 1000)
			for i := range inputs {
				inputs[i] = input(calls.MaxKept + 100 + i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.Input = inputs[i%len(inputs)]
				r := g.recentCalls(c, "bench", at)
				g.Policy.Decide(f, at, policy.Stages{Limits: r})
				at = at.Add(10 * time.Millisecond)
				i++
			}
		})
	}
}
