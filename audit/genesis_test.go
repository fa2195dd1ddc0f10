package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGenesisMark: a home whose chain was started keeps audit.genesis, so
// deleting the log and its checkpoint (or starting a new chain in their
// place) is a finding, while a home never used verifies as 0 records.
func TestGenesisMark(t *testing.T) {
	rm := func(names ...string) func(t *testing.T, home string) {
		return func(t *testing.T, home string) {
			for _, n := range names {
				if err := os.Remove(filepath.Join(home, n)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cases := []struct {
		name    string
		tamper  func(t *testing.T, home string)
		status  Status
		records int
		want    []problem
	}{
		{"untouched", func(*testing.T, string) {}, Intact, 6, nil},
		{"log and checkpoint deleted", rm(LogFile, headFile), Broken, 0,
			[]problem{{0, kindLogDeleted, []string{"audit.jsonl and audit.head are gone but audit.genesis says", "the log was deleted"}}}},
		{"log and checkpoint deleted, then a new chain started", func(t *testing.T, home string) {
			rm(LogFile, headFile)(t, home)
			appendRecords(t, home, 50, 2)
		}, Broken, 3, []problem{{1, kindChainReplaced, []string{"new chain started"}}}},
		// The documented limit: deleting the mark too makes the home look
		// unused (anchors outside the home catch that).
		{"everything deleted", rm(LogFile, headFile, genesisFile), Intact, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := newLog(t, 5)
			tc.tamper(t, home)
			rep := mustVerify(t, home)
			if rep.Records != tc.records {
				t.Errorf("records = %d, want %d", rep.Records, tc.records)
			}
			requireProblems(t, rep, tc.status, tc.want...)
		})
	}
}

func TestGenesisMarkNamesTheFirstRecord(t *testing.T) {
	home := newLog(t, 3)
	first := readLines(t, home)[0]
	g, err := readGenesis(home)
	if err != nil || g == nil {
		t.Fatalf("genesis %v, %v", g, err)
	}
	if g.H != hashOfLine(t, first) {
		t.Fatalf("genesis h %s, want the audit_start's %s", g.H, hashOfLine(t, first))
	}
	before, _ := os.ReadFile(filepath.Join(home, genesisFile))
	appendRecords(t, home, 10, 3)
	if after, _ := os.ReadFile(filepath.Join(home, genesisFile)); string(after) != string(before) {
		t.Fatalf("audit.genesis was rewritten: %s -> %s", before, after)
	}
}

// TestStart: init's Start begins a chain in a new home, and adopts a log
// written before audit.genesis existed, so its deletion is detected from
// then on.
func TestStart(t *testing.T) {
	t.Run("new home", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "h")
		if err := Start(home, Record{Event: "airlock_init", Source: "cli"}); err != nil {
			t.Fatal(err)
		}
		requireIntact(t, mustVerify(t, home), 2)
		rm(t, home, LogFile, headFile)
		requireProblems(t, mustVerify(t, home), Broken, problem{0, kindLogDeleted, nil})
	})
	t.Run("log from before the mark", func(t *testing.T) {
		home := newLog(t, 3)
		rm(t, home, genesisFile)
		if err := Start(home, Record{Event: "airlock_init", Source: "cli"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(home, genesisFile))
		if err != nil {
			t.Fatal(err)
		}
		var g genesisMark
		if err := json.Unmarshal(b, &g); err != nil || g.H != hashOfLine(t, readLines(t, home)[0]) {
			t.Fatalf("adopted mark %s (%v), want the first record's h", b, err)
		}
		requireIntact(t, mustVerify(t, home), 5)
	})
}

func rm(t *testing.T, home string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.Remove(filepath.Join(home, n)); err != nil {
			t.Fatal(err)
		}
	}
}
