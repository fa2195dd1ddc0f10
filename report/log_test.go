package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// chainedLog writes rs to a real chained log in a new home.
func chainedLog(t *testing.T, rs ...audit.Record) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), ".airlock")
	l, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, r := range rs {
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestCleanLogHasNoBurns(t *testing.T) {
	home := chainedLog(t,
		audit.Record{Event: "decision", Source: "hook", Session: "s", Tool: "Read", Decision: "allow", Effective: "allow", Target: "main.go"},
		audit.Record{Event: "decision", Source: "hook", Session: "s", Tool: "WebFetch", Decision: "allow", Effective: "allow", Target: "pkg.go.dev"},
	)
	integ, err := CheckIntegrity(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if integ.Status != audit.Intact || !integ.Trusted() {
		t.Fatalf("integrity = %+v, want intact", integ)
	}
	entries, err := Collect(LogSource(home), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	b := Analyze(entries, integ, Filter{})
	if b.Burned() {
		t.Fatalf("clean log graded %+v", b.Findings)
	}
	var out bytes.Buffer
	if err := b.Text(&out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "No burns"); n != 1 {
		t.Errorf("clean output says 'No burns' %d times:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "only as strong as the directory's permissions") {
		t.Errorf("unanchored chain not called out:\n%s", out.String())
	}
}

func TestReportOpensWithIntegrityBanner(t *testing.T) {
	home := chainedLog(t, audit.Record{Event: "decision", Source: "hook", Tool: "Read", Decision: "block", Effective: "block", Rule: "secrets.ssh", Target: "/h/.ssh/id_rsa", Reason: "SSH keys and config are credentials"})
	for _, tc := range []struct {
		name   string
		mutate func()
		want   string
	}{
		{"intact", func() {}, "INTEGRITY: intact"},
		{"broken", func() {
			p := filepath.Join(home, audit.LogFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("SSH keys"), []byte("SSH kees"), 1), 0o600)
		}, "INTEGRITY: BROKEN"},
	} {
		tc.mutate()
		integ, err := CheckIntegrity(home, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := Collect(LogSource(home), Filter{})
		var out bytes.Buffer
		Summarize(entries, integ, Filter{}).Text(&out)
		lines := strings.Split(out.String(), "\n")
		if !strings.HasPrefix(lines[2], tc.want) {
			t.Errorf("%s: report opens with %q, want %q", tc.name, lines[2], tc.want)
		}
		if !strings.Contains(out.String(), "Strength: only as strong as the directory's permissions") {
			t.Errorf("%s: an unsigned, unanchored chain's limit is not stated", tc.name)
		}
	}
}

func TestReviewChain(t *testing.T) {
	home := t.TempDir()
	for i, v := range []string{VerdictClean, VerdictAnomalous} {
		r, err := AppendReview(home, Review{Time: "2026-02-01T00:00:00.000Z", Until: "x", Verdict: v, By: ByAutomatic, ReportDigest: ReportDigest([]byte{byte(i)})})
		if err != nil || r.H == "" {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	revs, err := ReadReviews(home)
	if err != nil || len(revs) != 2 || revs[1].Prev != revs[0].H || revs[0].Prev != audit.Genesis {
		t.Fatalf("chain = %+v, %v", revs, err)
	}
	p := filepath.Join(home, reviewsFile)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(`"verdict":"anomalous"`), []byte(`"verdict":"clean"`), 1), 0o600)
	if _, err := ReadReviews(home); err == nil || !strings.Contains(err.Error(), "altered") {
		t.Errorf("an edited review was not detected: %v", err)
	}
	if _, err := AppendReview(home, Review{Verdict: VerdictClean}); err == nil {
		t.Errorf("appended to an altered review chain")
	}
}

// The log source reads every rotated segment, then the live file.
func TestLogSourceReadsAcrossRotation(t *testing.T) {
	t.Setenv(audit.MaxMBEnv, "0.002") // ~2 KB: many rotations
	home := t.TempDir()
	l, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const n = 60
	for i := 0; i < n; i++ {
		if _, err := l.Append(audit.Record{Event: "decision", Source: "hook", Session: "s", Tool: "Read", Decision: "allow", Effective: "allow", Target: strings.Repeat("x", 40)}); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := Collect(LogSource(home), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	files, decisions := map[string]bool{}, 0
	for _, e := range entries {
		files[e.File] = true
		if e.Record.Event == "decision" {
			decisions++
		}
	}
	if decisions != n || len(files) < 3 {
		t.Fatalf("read %d decisions from %d files, want %d from several", decisions, len(files), n)
	}
}
