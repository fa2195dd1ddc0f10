package secret

import (
	"strings"
	"testing"
)

// The texts of a typical hook decision record (event, source, session,
// tool, decision, effective, rule, reason, target, detail, mode).
var cleanRecord = []string{
	"decision", "hook", "5f0c6a8e-3b7d-4f1e-9a2c-8d4b6e1f3a57", "Bash", "allow", "allow",
	"grants.build", "matches grant build: go toolchain in the workspace",
	"go test ./... && git status --short && git log --oneline -5",
	"payload_digests=sha256:1f2e3d4c5b6a79881f2e3d4c5b6a7988", "guard",
}

var secretRecord = []string{
	"decision", "hook", "5f0c6a8e-3b7d-4f1e-9a2c-8d4b6e1f3a57", "Bash", "allow", "allow",
	"grants.net", "matches grant net: api.github.com",
	`curl -sS -H "Authorization: Bearer ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO" https://api.github.com/user`,
	"payload_digests=sha256:1f2e3d4c5b6a79881f2e3d4c5b6a7988", "guard",
}

func benchRecord(b *testing.B, fields []string) {
	compiled()
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range fields {
			Mask(f)
		}
	}
}

// BenchmarkMaskRecordClean: a record with no candidate pays the
// prefilter only.
func BenchmarkMaskRecordClean(b *testing.B) { benchRecord(b, cleanRecord) }

// BenchmarkMaskRecordSecret: the same record carrying a GitHub token in
// an Authorization header.
func BenchmarkMaskRecordSecret(b *testing.B) { benchRecord(b, secretRecord) }

// BenchmarkMaskHostile: 64 KiB texts made of one keyword repeated, the
// worst case for the prefilter (a candidate at every few bytes).
func BenchmarkMaskHostile(b *testing.B) {
	for _, k := range []string{"bearer ", "-----BEGIN PRIVATE KEY-----", "eyJhbGciOiJIUzI1NiJ9.eyJ", "https://u:p", "token=", "sk-"} {
		s := strings.Repeat(k, 64<<10/len(k))
		b.Run(strings.TrimSpace(k[:min(8, len(k))]), func(b *testing.B) {
			compiled()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Mask(s)
			}
		})
	}
}

// BenchmarkBuildTable: what the first Mask of a process (a hook call)
// pays before its prefilter runs; patterns compile later, when needed.
func BenchmarkBuildTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buildTable()
	}
}
