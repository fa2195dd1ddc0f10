package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testRecord is a realistic caller record; i makes it unique.
func testRecord(i int) Record {
	return Record{
		Event:      "decision",
		Source:     "hook",
		Session:    "sess-1",
		Tool:       "Bash",
		Decision:   "allow",
		Effective:  "allow",
		Rule:       fmt.Sprintf("rule-%d", i%7),
		Reason:     fmt.Sprintf("reason number %d", i),
		Target:     fmt.Sprintf("/home/user/project/file-%d.go", i),
		Mode:       "enforce",
		ArgsDigest: ArgsDigest([]byte(fmt.Sprintf(`{"command":"ls %d"}`, i))),
	}
}

// newLog appends n test records to a fresh home (plus the automatic
// audit_start) and returns the home.
func newLog(t testing.TB, n int) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, n)
	return home
}

func appendRecords(t testing.TB, home string, from, n int) []Record {
	t.Helper()
	l, err := Open(home)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()
	var out []Record
	for i := from; i < from+n; i++ {
		r, err := l.Append(testRecord(i))
		if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		out = append(out, r)
	}
	return out
}

func readLines(t testing.TB, home string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, LogFile))
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.Split(b, []byte{'\n'})
}

func writeLines(t testing.TB, home string, lines [][]byte) {
	t.Helper()
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	writeFile(t, filepath.Join(home, LogFile), b)
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

func mustVerify(t testing.TB, home string) *Report {
	t.Helper()
	rep, err := Verify(home)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

func describe(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status=%v records=%d", rep.Status, rep.Records)
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "\n  line %d %s [%v]: %s", p.Line, p.Kind, p.Severity, p.Message)
	}
	return b.String()
}

func requireIntact(t testing.TB, rep *Report, records int) {
	t.Helper()
	if rep.Status != Intact || len(rep.Problems) != 0 || rep.Records != records {
		t.Fatalf("want intact with %d records, got %s", records, describe(rep))
	}
}

// problem describes an expected finding.
type problem struct {
	line int
	kind string
	msg  []string // substrings the message must contain
}

// requireProblems checks status and that the problems are exactly want
// (in order).
func requireProblems(t testing.TB, rep *Report, status Status, want ...problem) {
	t.Helper()
	ok := rep.Status == status && len(rep.Problems) == len(want)
	if ok {
		for i, w := range want {
			p := rep.Problems[i]
			if p.Line != w.line || p.Kind != w.kind {
				ok = false
				break
			}
			for _, s := range w.msg {
				if !strings.Contains(p.Message, s) {
					ok = false
				}
			}
		}
	}
	if !ok {
		var b strings.Builder
		fmt.Fprintf(&b, "status=%v", status)
		for _, w := range want {
			fmt.Fprintf(&b, "\n  line %d %s: %q", w.line, w.kind, w.msg)
		}
		t.Fatalf("want %s\ngot  %s", b.String(), describe(rep))
	}
}

// requireWarnings checks the kinds of rep.Warnings, in order.
func requireWarnings(t testing.TB, rep *Report, kinds ...string) {
	t.Helper()
	var got []string
	for _, w := range rep.Warnings {
		got = append(got, w.Kind)
	}
	if strings.Join(got, ",") != strings.Join(kinds, ",") {
		t.Fatalf("warnings %v, want %v: %+v", got, kinds, rep.Warnings)
	}
}
