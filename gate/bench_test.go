package gate

import (
	"sort"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// BenchmarkDecide measures one decision in process (classification,
// forbids, rules, escalation, overlay, mode; no audit write) and reports
// p50 and p99 besides the mean. Targets: p50 ≤ 5 µs, p99 ≤ 50 µs.
func BenchmarkDecide(b *testing.B) {
	g, fx := fixtureGate(b, "default")
	cases := []struct{ name, tool, input string }{
		{"Read", "Read", `{"file_path":"` + fx.WS + `/src/components/App.tsx"}`},
		{"Write", "Write", `{"file_path":"` + fx.WS + `/src/app.go","content":"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}`},
		{"BashPipeline", "Bash", `{"command":"cd src && git ls-files | grep -E '\\.go$' | xargs wc -l | sort -n | tail -20 && go test ./... 2>&1 | tee /tmp/test.log","description":"count lines"}`},
		{"GrepTree", "Grep", `{"pattern":"TODO","path":"` + fx.WS + `/src","output_mode":"content"}`}, // a recursive read: every forbid is met against the tree
		{"MCPNested", "mcp__notes__read_note", `{"name":"todo","opts":{"format":"md","include":["tags","links"],"meta":{"author":"dev","depth":3,"filters":[{"k":"status","v":"open"},{"k":"owner","v":"me"}]}}}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			call := Call{Source: "cli", Tool: c.tool, Input: []byte(c.input), Cwd: fx.WS, Attended: true}
			if r := g.Decide(call); r.Effective.String() != "allow" {
				b.Fatalf("benchmark call is not allowed: %s", r.Decision.Explain())
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				g.Decide(call)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
		})
	}
}

// BenchmarkLoadPolicy is the policy load every hook process pays once.
func BenchmarkLoadPolicy(b *testing.B) {
	_, fx := fixtureGate(b, "default")
	env := home.Env{Home: fx.Home, User: fx.User, AirlockHome: fx.AirlockHome, Getenv: func(string) string { return "" }}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := policy.LoadEnv(env, fx.WS); err != nil {
			b.Fatal(err)
		}
	}
}
