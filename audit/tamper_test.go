package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The tamper tests start from a log of 10 records: line 1 is the automatic
// audit_start, lines 2-11 are records 0-9 (line k holds "reason number k-2").
const tamperRecords = 10

func TestVerifyTampering(t *testing.T) {
	type tamper func(t *testing.T, home string, lines [][]byte) [][]byte
	cases := []struct {
		name   string
		tamper tamper
		status Status
		want   []problem
	}{
		{
			name: "edit reason of a middle record",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[5] = bytes.Replace(lines[5], []byte("reason number 4"), []byte("reason number X"), 1)
				return lines
			},
			status: Broken,
			want:   []problem{{6, kindEdited, []string{"line 6 was edited"}}},
		},
		{
			name: "add an unknown field to a record",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				l := lines[4]
				lines[4] = append(append(bytes.Clone(l[:len(l)-1]), `,"zzz":"sneaky"`...), '}')
				return lines
			},
			status: Broken,
			want:   []problem{{5, kindEdited, []string{"line 5 was edited"}}},
		},
		{
			name: "re-encode a record without changing its content",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[4] = bytes.Replace(lines[4], []byte(`,"event":`), []byte(`, "event": `), 1)
				return lines
			},
			status: Broken,
			want:   []problem{{5, kindNonCanonical, []string{"line 5 was re-encoded"}}},
		},
		{
			name: "escape a character differently",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[4] = bytes.Replace(lines[4], []byte(`"/home/`), []byte(`"\/home/`), 1)
				return lines
			},
			status: Broken,
			want:   []problem{{5, kindNonCanonical, []string{"line 5 was re-encoded"}}},
		},
		{
			name: "delete a middle line",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				return slices.Delete(lines, 5, 6)
			},
			status: Broken,
			want:   []problem{{6, kindDeleted, []string{"line 6 does not chain to line 5", "deleted"}}},
		},
		{
			name: "delete the first line",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				return lines[1:]
			},
			status: Broken,
			want:   []problem{{1, kindDeleted, []string{"line 1 does not start the chain", "deleted from the start"}}},
		},
		{
			name: "edit a record and recompute its hash",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[5] = rehash(t, bytes.Replace(lines[5], []byte("reason number 4"), []byte("reason number X"), 1))
				return lines
			},
			status: Broken,
			want:   []problem{{7, kindDeleted, []string{"line 7 does not chain to line 6", "or line 6 was rewritten"}}},
		},
		{
			name: "insert a copied line",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				return slices.Insert(lines, 8, bytes.Clone(lines[3]))
			},
			status: Broken,
			want:   []problem{{9, kindInserted, []string{"line 9 was inserted", "copy of line 4"}}},
		},
		{
			name: "insert a copy of a later line",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				return slices.Insert(lines, 3, bytes.Clone(lines[8]))
			},
			status: Broken,
			want:   []problem{{4, kindInserted, []string{"line 4 was inserted", "copy of line 10"}}},
		},
		{
			name: "insert a forged record",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				forged, _, err := encodeRecord(testRecord(99), "1111111111111111111111111111111111111111111111111111111111111111")
				if err != nil {
					t.Fatal(err)
				}
				return slices.Insert(lines, 6, forged)
			},
			status: Broken,
			want:   []problem{{7, kindInserted, []string{"line 7 was inserted", "line 8 chains to line 6"}}},
		},
		{
			name: "swap two lines",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[5], lines[6] = lines[6], lines[5]
				return lines
			},
			status: Broken,
			want:   []problem{{6, kindReordered, []string{"line 6 is out of order", "line 7"}}},
		},
		{
			name: "move a line far down",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				l := lines[2]
				lines = slices.Delete(lines, 2, 3)
				return slices.Insert(lines, 8, l)
			},
			status: Broken,
			want:   []problem{{3, kindReordered, []string{"line 3 is out of order", "line 9"}}},
		},
		{
			name: "replace a line with garbage",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				lines[5] = []byte("this is not json")
				return lines
			},
			status: Broken,
			want: []problem{
				{6, kindMalformed, []string{"line 6 is malformed"}},
				{7, kindDeleted, []string{"line 7 does not chain to line 5"}},
			},
		},
		{
			name: "truncate the last 3 lines",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				return lines[:len(lines)-3]
			},
			status: Broken,
			want:   []problem{{9, kindTruncated, []string{"ends after line 8", "3 record(s) missing", "truncated"}}},
		},
		{
			name: "delete the whole log",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				if err := os.Remove(filepath.Join(home, LogFile)); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			status: Broken,
			want:   []problem{{1, kindTruncated, []string{"all 11 missing"}}},
		},
		{
			name: "torn last line",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				extra, _, err := encodeRecord(testRecord(10), lastHash(t, lines))
				if err != nil {
					t.Fatal(err)
				}
				writeLines(t, home, lines)
				appendRaw(t, home, extra[:len(extra)/2])
				return nil
			},
			status: Broken,
			want:   []problem{{12, KindTorn, []string{"line 12", "torn last line (a writer was killed mid-append)"}}},
		},
		{
			name: "complete last record without its newline",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				writeLines(t, home, lines)
				b, _ := os.ReadFile(filepath.Join(home, LogFile))
				writeFile(t, filepath.Join(home, LogFile), b[:len(b)-1])
				return nil
			},
			status: Broken,
			want:   []problem{{11, KindTorn, []string{"line 11 has no trailing newline", "torn last line"}}},
		},
		{
			name: "delete audit.head of a checkpointed log",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				removeHead(t, home)
				return lines
			},
			status: Broken,
			want:   []problem{{0, kindCheckpointMissing, []string{"audit.head is missing", "audit_start at line 1", "checkpoint was deleted"}}},
		},
		{
			name: "audit.head missing from a log that never had one",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				removeHead(t, home)
				removeGenesis(t, home) // a log from before audit.genesis
				return unmarkedChain(t, 5)
			},
			status: TailUnprovable,
			want:   []problem{{0, kindCheckpointMissing, []string{"audit.head is missing", "never checkpointed", "after line 5"}}},
		},
		{
			name: "checkpoint names another hash",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				writeHeadJSON(t, home, Head{Count: 11, Last: Genesis, At: "x"})
				return lines
			},
			status: Broken,
			want:   []problem{{11, kindCheckpointMismatch, []string{"line 11 has h 000000000000", "rewritten"}}},
		},
		{
			name: "checkpoint count edited",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				writeHeadJSON(t, home, Head{Count: 12, Last: lastHash(t, lines), At: "x"})
				return lines
			},
			status: Broken,
			want:   []problem{{0, kindCheckpointMismatch, []string{"counts 12 lines but the log has 11", "audit.head was edited"}}},
		},
		{
			name: "checkpoint unreadable",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				writeFile(t, filepath.Join(home, headFile), []byte("{garbage"))
				return lines
			},
			status: Broken,
			want:   []problem{{0, kindCheckpointMalformed, []string{"audit.head is unreadable"}}},
		},
		{
			name: "stale checkpoint (writer killed before updating it)",
			tamper: func(t *testing.T, home string, lines [][]byte) [][]byte {
				writeHeadJSON(t, home, Head{Count: 9, Last: hashOfLine(t, lines[8]), At: "x"})
				return lines
			},
			// intact with an unconfirmed-tail warning since issue 14
			// (TestVerifyTail); it was tail-unprovable
			status: Intact,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := newLog(t, tamperRecords)
			requireIntact(t, mustVerify(t, home), tamperRecords+1)
			if lines := tc.tamper(t, home, readLines(t, home)); lines != nil {
				writeLines(t, home, lines)
			}
			rep := mustVerify(t, home)
			t.Log(describe(rep))
			requireProblems(t, rep, tc.status, tc.want...)
		})
	}
}

// TestAppendAfterTampering checks that an appender that finds the log and
// its checkpoint inconsistent keeps the chain linear and preserves the
// evidence, so Verify still reports it after the checkpoint is rewritten.
func TestAppendAfterTampering(t *testing.T) {
	cases := []struct {
		name    string
		tamper  func(t *testing.T, home string)
		status  Status
		records int
		want    []problem
	}{
		{
			name: "truncated log",
			tamper: func(t *testing.T, home string) {
				writeLines(t, home, readLines(t, home)[:8])
			},
			status:  Broken,
			records: 10, // 8 + audit_recover + new record
			want:    []problem{{9, kindTruncated, []string{"line 9: an appender found the log truncated", "3 missing"}}},
		},
		{
			name:    "deleted checkpoint",
			tamper:  func(t *testing.T, home string) { removeHead(t, home) },
			status:  Broken,
			records: 13,
			want:    []problem{{12, kindCheckpointMissing, []string{"line 12: an appender found the checkpoint deleted"}}},
		},
		{
			name: "torn last line",
			tamper: func(t *testing.T, home string) {
				appendRaw(t, home, []byte(`{"decision":"block","event":"deci`))
			},
			status:  Broken,
			records: 14, // 11 + torn + audit_recover + new record
			want:    []problem{{12, KindTorn, []string{"line 12: torn line (a writer was killed mid-append)", "continues at line 13"}}},
		},
		{
			name: "stale checkpoint",
			tamper: func(t *testing.T, home string) {
				lines := readLines(t, home)
				writeHeadJSON(t, home, Head{Count: 10, Last: hashOfLine(t, lines[9]), At: "x"})
			},
			status:  Intact,
			records: 13,
		},
		{
			name: "complete record missing its newline",
			tamper: func(t *testing.T, home string) {
				b, _ := os.ReadFile(filepath.Join(home, LogFile))
				writeFile(t, filepath.Join(home, LogFile), b[:len(b)-1])
				lines := readLines(t, home)
				writeHeadJSON(t, home, Head{Count: 10, Last: hashOfLine(t, lines[9]), At: "x"})
			},
			status:  Intact,
			records: 13, // the record is adopted; audit_recover notes the stale checkpoint
		},
		{
			name: "emptied log",
			tamper: func(t *testing.T, home string) {
				writeFile(t, filepath.Join(home, LogFile), nil)
			},
			status:  Broken,
			records: 3, // audit_start + audit_recover + new record
			// audit.genesis (issue 14) also names the chain that was lost
			want: []problem{
				{1, kindChainReplaced, []string{"audit.genesis says it was started at"}},
				{2, kindTruncated, []string{"audit.jsonl was empty but the checkpoint recorded 11 records"}},
			},
		},
		{
			name: "unreadable checkpoint",
			tamper: func(t *testing.T, home string) {
				writeFile(t, filepath.Join(home, headFile), []byte("nope"))
			},
			status:  Broken,
			records: 13,
			want:    []problem{{12, kindCheckpointMismatch, []string{"line 12: an appender found the checkpoint did not match", "unreadable"}}},
		},
		{
			name: "log that was never checkpointed",
			tamper: func(t *testing.T, home string) {
				removeHead(t, home)
				removeGenesis(t, home) // a log from before audit.genesis
				writeLines(t, home, unmarkedChain(t, 4))
			},
			status:  TailUnprovable,
			records: 6,
			want:    []problem{{5, kindCheckpointMissing, []string{"line 5: an appender found no checkpoint", "records before line 5 may have been removed"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := newLog(t, tamperRecords)
			tc.tamper(t, home)
			appendRecords(t, home, 100, 1)
			rep := mustVerify(t, home)
			if rep.Records != tc.records {
				t.Errorf("records = %d, want %d", rep.Records, tc.records)
			}
			requireProblems(t, rep, tc.status, tc.want...)
			// The chain is linear again: further appends take the fast
			// path and add no new findings.
			appendRecords(t, home, 200, 2)
			rep2 := mustVerify(t, home)
			if rep2.Records != tc.records+2 {
				t.Errorf("after more appends: records = %d, want %d", rep2.Records, tc.records+2)
			}
			requireProblems(t, rep2, tc.status, tc.want...)
		})
	}
}

// rehash recomputes h for an edited line, as a forger would.
func rehash(t *testing.T, line []byte) []byte {
	t.Helper()
	m, err := decodeObject(line)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hashObject(m)
	if err != nil {
		t.Fatal(err)
	}
	m["h"] = h
	out, err := appendCanonical(nil, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hashOfLine(t testing.TB, line []byte) string {
	t.Helper()
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	return r.H
}

func lastHash(t testing.TB, lines [][]byte) string {
	t.Helper()
	return hashOfLine(t, lines[len(lines)-1])
}

func appendRaw(t testing.TB, home string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(home, LogFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func removeHead(t testing.TB, home string) {
	t.Helper()
	if err := os.Remove(filepath.Join(home, headFile)); err != nil {
		t.Fatal(err)
	}
}

func writeHeadJSON(t testing.TB, home string, h Head) {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, headFile), b)
}

// unmarkedChain builds a valid chain of n records without the audit_start
// mark, as a log from before checkpoints would look.
func unmarkedChain(t testing.TB, n int) [][]byte {
	t.Helper()
	var lines [][]byte
	prev := Genesis
	for i := range n {
		r := testRecord(i)
		r.Time = "2026-11-29T10:43:49.123Z"
		line, out, err := encodeRecord(r, prev)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
		prev = out.H
	}
	return lines
}

// TestAppendAfterTornFirstWrite: the very first append was torn, so the log
// holds no record; the next appender starts a new, marked chain.
func TestAppendAfterTornFirstWrite(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, LogFile), []byte(`{"detail":"checkpo`))
	appendRecords(t, home, 0, 2)
	lines := readLines(t, home)
	var first Record
	if err := json.Unmarshal(lines[1], &first); err != nil || first.Event != EventStart || first.Prev != Genesis {
		t.Fatalf("line 2 = %s, want audit_start at genesis", lines[1])
	}
	rep := mustVerify(t, home)
	if rep.Records != 5 { // torn + audit_start + audit_recover(torn) + 2 records
		t.Errorf("records = %d, want 5", rep.Records)
	}
	requireProblems(t, rep, Broken, problem{1, KindTorn, []string{"line 1: torn line (a writer was killed mid-append)", "continues at line 2"}})
	// The mark is there: deleting the checkpoint now is detected.
	removeHead(t, home)
	requireProblems(t, mustVerify(t, home), Broken,
		problem{1, KindTorn, nil},
		problem{0, kindCheckpointMissing, []string{"checkpoint was deleted"}})
}

func removeGenesis(t testing.TB, home string) {
	t.Helper()
	if err := os.Remove(filepath.Join(home, genesisFile)); err != nil {
		t.Fatal(err)
	}
}
