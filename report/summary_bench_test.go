package report

import (
	"fmt"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// BenchmarkSummarize is a week of a busy machine: 20,000 decisions over 50
// sessions, one in a hundred a secret read, one in fifty an observe-mode
// block that ran.
func BenchmarkSummarize(b *testing.B) {
	entries := busyWeek()
	b.ReportAllocs()
	for b.Loop() {
		Summarize(entries, Integrity{Status: audit.Intact}, Filter{})
	}
}

// BenchmarkAnalyze is airlock breach over the same log.
func BenchmarkAnalyze(b *testing.B) {
	entries := busyWeek()
	b.ReportAllocs()
	for b.Loop() {
		Analyze(entries, Integrity{Status: audit.Intact}, Filter{})
	}
}

func busyWeek() []Entry {
	var rs []audit.Record
	for i := range 20000 {
		r := audit.Record{Time: fmt.Sprintf("2026-02-01T10:%02d:%02d.000Z", i/60%60, i%60), Event: "decision", Source: "hook",
			Session: fmt.Sprintf("s%d", i%50), Tool: "Read", Target: fmt.Sprintf("/w/f%d.go", i%500), Decision: "allow", Effective: "allow",
			Mode: "guard", ArgsDigest: fmt.Sprintf("%064x", i)}
		switch {
		case i%100 == 0:
			r.Rule, r.Target, r.Decision = "secrets.ssh", "/home/dev/.ssh/id_rsa", "block"
		case i%50 == 1:
			r.Tool, r.Rule, r.Target, r.Decision, r.Mode = "Bash", "net.exfil-collector", "webhook.site", "block", "observe"
		}
		rs = append(rs, r)
	}
	return entriesOf(rs...)
}
