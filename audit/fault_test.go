package audit

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestFaultExplainsOnlyItsOwnTear: a fault file names the offset where the
// torn line starts; one at another offset (a stale fault, or one planted
// to excuse a hand edit) does not turn a tear into "the disk was full".
func TestFaultExplainsOnlyItsOwnTear(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delta int64 // fault offset minus the torn line's start
		want  string
	}{
		{"at the torn line", 0, "torn: the disk was full at 2026-12-01T10:00:00.000Z"},
		{"elsewhere", -1, "torn line (a writer was killed mid-append)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := newLog(t, 3)
			st, err := os.Stat(filepath.Join(home, LogFile))
			if err != nil {
				t.Fatal(err)
			}
			name := faultPrefix + strconv.FormatInt(st.Size()+tc.delta, 10) + "-" + causeDiskFull + "-20261201T100000.000Z"
			writeFile(t, filepath.Join(home, name), nil)
			appendRaw(t, home, []byte(`{"event":"decision","rea`))
			appendRecords(t, home, 10, 1)
			requireProblems(t, mustVerify(t, home), Broken, problem{5, KindTorn, []string{tc.want}})
			if _, err := os.Stat(filepath.Join(home, name)); !os.IsNotExist(err) {
				t.Fatalf("fault file not cleared by the recovery: %v", err)
			}
		})
	}
}

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"audit.fault-1642-disk-full-20261201T213442.577Z", true},
		{"audit.fault-0-quota-20261201T213442.577Z", true},
		{"audit.fault-12-other-20261201T213442.577Z", false},
		{"audit.fault--1-disk-full-20261201T213442.577Z", false},
		{"audit.fault-12-disk-full-yesterday", false},
		{"audit.fault-12", false},
		{"audit.jsonl", false},
	} {
		if _, _, _, ok := parseFault(tc.name); ok != tc.ok {
			t.Errorf("parseFault(%q) ok=%v, want %v", tc.name, ok, tc.ok)
		}
	}
}
