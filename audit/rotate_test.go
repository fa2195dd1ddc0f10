package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rotatedLog appends n test records with a rotation size of about 2 KB:
// every segment holds 4 lines (segment_start or audit_start and 3 records,
// the first one 4 records) and the live file the rest.
func rotatedLog(t testing.TB, n int) string {
	t.Helper()
	t.Setenv(MaxMBEnv, "0.002")
	home := filepath.Join(t.TempDir(), "h")
	appendRecords(t, home, 0, n)
	return home
}

func ledgerOf(t testing.TB, home string) []ledgerEntry {
	t.Helper()
	li, err := readLedger(home)
	if err != nil {
		t.Fatal(err)
	}
	return li.entries
}

func fileLines(t testing.TB, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.Split(b, []byte{'\n'})
}

func writeFileLines(t testing.TB, path string, lines [][]byte) {
	t.Helper()
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	writeFile(t, path, b)
}

// fileProblem is an expected finding: file is "seg<N>" (the N-th segment
// in the ledger), "live", "ledger" or "head".
type fileProblem struct {
	file string
	line int
	kind string
}

const plantedSegment = "audit-20990101T000000.000000000Z-000099.jsonl"

func resolveFile(t testing.TB, segs []ledgerEntry, f string) string {
	t.Helper()
	switch f {
	case "live":
		return LogFile
	case "ledger":
		return LedgerFile
	case "head":
		return headFile
	case "planted":
		return plantedSegment
	}
	i, err := strconv.Atoi(strings.TrimPrefix(f, "seg"))
	if err != nil || i < 1 || i > len(segs) {
		t.Fatalf("bad file %q", f)
	}
	return segs[i-1].Segment
}

func describeFiles(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status=%v records=%d segments=%d", rep.Status, rep.Records, rep.Segments)
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "\n  %s line %d %s [%v]: %s", p.File, p.Line, p.Kind, p.Severity, p.Message)
	}
	return b.String()
}

func requireFileProblems(t testing.TB, rep *Report, segs []ledgerEntry, status Status, want ...fileProblem) {
	t.Helper()
	ok := rep.Status == status && len(rep.Problems) == len(want)
	for i := 0; ok && i < len(want); i++ {
		p, w := rep.Problems[i], want[i]
		ok = p.File == resolveFile(t, segs, w.file) && p.Line == w.line && p.Kind == w.kind
	}
	if !ok {
		t.Fatalf("want %v %+v\ngot  %s", status, want, describeFiles(rep))
	}
}

func TestRotationContinuesTheChain(t *testing.T) {
	home := rotatedLog(t, 30)
	segs := ledgerOf(t, home)
	if len(segs) != 9 {
		t.Fatalf("%d segments, want 9", len(segs))
	}
	rep := mustVerify(t, home)
	if rep.Status != Intact || rep.Records != 40 || rep.Segments != 9 {
		t.Fatalf("want intact, 40 records (30 + audit_start + 9 segment_start) in 9 segments: %s", describeFiles(rep))
	}
	names := make([]string, len(segs))
	prev := Genesis
	for i, e := range segs {
		names[i] = e.Segment
		if e.Seq != i+1 || e.FirstPrev != prev || e.Count != 4 {
			t.Errorf("ledger line %d: %+v, want seq %d from %s", i+1, e, i+1, prev)
		}
		prev = e.Last
		lines := fileLines(t, filepath.Join(home, e.Segment))
		if got := hashOfLine(t, lines[len(lines)-1]); got != e.Last {
			t.Errorf("%s ends in %s, ledger says %s", e.Segment, got, e.Last)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("segment names do not sort in rotation order: %v", names)
	}
	// The live file starts with a segment_start chained to the last
	// segment, naming its ledger line.
	var first Record
	live := fileLines(t, filepath.Join(home, LogFile))
	first = parseForDisplay(live[0])
	last := segs[len(segs)-1]
	if first.Event != eventSegmentStart || first.Prev != last.Last || first.Detail != segmentStartDetail(last) {
		t.Errorf("live file starts with %+v, want segment_start after %s", first, last.Segment)
	}
	head, err := readHead(home)
	if err != nil || head.Count != len(live) || head.Segments != 9 || head.Ledger != last.H {
		t.Errorf("checkpoint %+v, want %d lines after 9 rotations (ledger %s)", head, len(live), last.H)
	}
}

// TestVerifyTamperingRotated runs every tamper class against a rotated log:
// 9 segments of 4 lines, live file of 4 lines.
func TestVerifyTamperingRotated(t *testing.T) {
	type env struct {
		t    *testing.T
		home string
		segs []ledgerEntry
	}
	path := func(e env, f string) string { return filepath.Join(e.home, resolveFile(e.t, e.segs, f)) }
	edit := func(f string, fn func(lines [][]byte) [][]byte) func(env) {
		return func(e env) {
			p := path(e, f)
			writeFileLines(e.t, p, fn(fileLines(e.t, p)))
		}
	}
	remove := func(f string) func(env) {
		return func(e env) {
			if err := os.Remove(path(e, f)); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	both := func(a, b func(env)) func(env) { return func(e env) { a(e); b(e) } }
	forged := func(e env) []byte {
		line, _, err := encodeRecord(testRecord(99), strings.Repeat("1", 64))
		if err != nil {
			e.t.Fatal(err)
		}
		return line
	}
	cases := []struct {
		name   string
		tamper func(env)
		status Status
		want   []fileProblem
	}{
		{"edit a field in a segment", edit("seg3", func(l [][]byte) [][]byte {
			l[2] = bytes.Replace(l[2], []byte("reason number"), []byte("reason numbex"), 1)
			return l
		}), Broken, []fileProblem{{"seg3", 3, kindEdited}}},
		{"edit a field in the live file", edit("live", func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte("reason number"), []byte("reason numbex"), 1)
			return l
		}), Broken, []fileProblem{{"live", 2, kindEdited}}},
		{"delete a middle line of a segment", edit("seg3", func(l [][]byte) [][]byte { return slices.Delete(l, 1, 2) }),
			Broken, []fileProblem{{"seg3", 2, kindDeleted}}},
		{"delete a middle line of the live file", edit("live", func(l [][]byte) [][]byte { return slices.Delete(l, 1, 2) }),
			Broken, []fileProblem{{"live", 2, kindDeleted}}},
		{"insert a forged line in a segment", func(e env) {
			edit("seg3", func(l [][]byte) [][]byte { return slices.Insert(l, 2, forged(e)) })(e)
		}, Broken, []fileProblem{{"seg3", 3, kindInserted}}},
		{"insert a forged line in the live file", func(e env) {
			edit("live", func(l [][]byte) [][]byte { return slices.Insert(l, 2, forged(e)) })(e)
		}, Broken, []fileProblem{{"live", 3, kindInserted}}},
		{"reorder two lines of a segment", edit("seg3", func(l [][]byte) [][]byte { l[1], l[2] = l[2], l[1]; return l }),
			Broken, []fileProblem{{"seg3", 2, kindReordered}}},
		{"reorder two lines of the live file", edit("live", func(l [][]byte) [][]byte { l[1], l[2] = l[2], l[1]; return l }),
			Broken, []fileProblem{{"live", 2, kindReordered}}},
		{"truncate the tail of a segment", edit("seg3", func(l [][]byte) [][]byte { return l[:2] }),
			Broken, []fileProblem{{"seg3", 3, kindTruncated}}},
		{"truncate the tail of the live file", edit("live", func(l [][]byte) [][]byte { return l[:2] }),
			Broken, []fileProblem{{"live", 3, kindTruncated}}},
		{"move records from a segment's end to the next", func(e env) {
			a := fileLines(e.t, path(e, "seg3"))
			edit("seg4", func(l [][]byte) [][]byte { return append([][]byte{a[3]}, l...) })(e)
			writeFileLines(e.t, path(e, "seg3"), a[:3])
		}, Broken, []fileProblem{{"seg3", 4, kindTruncated}, {"seg4", 1, kindInserted}}},
		{"delete the checkpoint", remove("head"),
			Broken, []fileProblem{{"head", 0, kindCheckpointMissing}}},
		{"delete a segment", remove("seg4"),
			Broken, []fileProblem{{"seg4", 0, kindSegmentMissing}}},
		{"delete the first segment", remove("seg1"),
			Broken, []fileProblem{{"seg1", 0, kindSegmentMissing}}},
		{"delete a segment and its ledger line", both(remove("seg4"), edit("ledger", func(l [][]byte) [][]byte { return slices.Delete(l, 3, 4) })),
			Broken, []fileProblem{{"ledger", 4, kindLedgerPruned}, {"seg5", 1, kindLedgerPruned}, {"seg5", 1, kindBoundary}}},
		{"delete the last segment and its ledger line", both(remove("seg9"), edit("ledger", func(l [][]byte) [][]byte { return l[:8] })),
			Broken, []fileProblem{{"ledger", 0, kindLedgerPruned}, {"live", 1, kindLedgerPruned}, {"live", 1, kindBoundary}}},
		{"delete the first segment and its ledger line", both(remove("seg1"), edit("ledger", func(l [][]byte) [][]byte { return l[1:] })),
			Broken, []fileProblem{{"ledger", 1, kindLedgerPruned}, {"seg2", 1, kindLedgerPruned}, {"seg2", 1, kindDeleted}}},
		{"prune a ledger line", edit("ledger", func(l [][]byte) [][]byte { return slices.Delete(l, 3, 4) }),
			Broken, []fileProblem{{"ledger", 4, kindLedgerPruned}, {"seg4", 0, kindSegmentUnlisted}, {"seg5", 1, kindLedgerPruned}}},
		{"prune the last ledger line", edit("ledger", func(l [][]byte) [][]byte { return l[:8] }),
			Broken, []fileProblem{{"ledger", 0, kindLedgerPruned}, {"seg9", 0, kindSegmentUnlisted}, {"live", 1, kindLedgerPruned}}},
		{"delete the ledger", remove("ledger"),
			Broken, []fileProblem{
				{"ledger", 0, kindLedgerPruned},
				{"seg1", 0, kindSegmentUnlisted},
				{"seg2", 1, kindLedgerPruned}, {"seg2", 0, kindSegmentUnlisted},
				{"seg3", 1, kindLedgerPruned}, {"seg3", 0, kindSegmentUnlisted},
				{"seg4", 1, kindLedgerPruned}, {"seg4", 0, kindSegmentUnlisted},
				{"seg5", 1, kindLedgerPruned}, {"seg5", 0, kindSegmentUnlisted},
				{"seg6", 1, kindLedgerPruned}, {"seg6", 0, kindSegmentUnlisted},
				{"seg7", 1, kindLedgerPruned}, {"seg7", 0, kindSegmentUnlisted},
				{"seg8", 1, kindLedgerPruned}, {"seg8", 0, kindSegmentUnlisted},
				{"seg9", 1, kindLedgerPruned}, {"seg9", 0, kindSegmentUnlisted},
				{"live", 1, kindLedgerPruned}}},
		{"edit a ledger line", edit("ledger", func(l [][]byte) [][]byte {
			l[4] = bytes.Replace(l[4], []byte(`"count":4`), []byte(`"count":5`), 1)
			return l
		}), Broken, []fileProblem{{"ledger", 5, kindLedgerEdited}, {"seg5", 0, kindLedgerMismatch}}},
		{"edit a ledger line and rehash it", func(e env) {
			edit("ledger", func(l [][]byte) [][]byte {
				l[4] = rehash(e.t, bytes.Replace(l[4], []byte(`"count":4`), []byte(`"count":5`), 1))
				return l
			})(e)
		}, Broken, []fileProblem{{"ledger", 6, kindLedgerEdited}, {"seg5", 0, kindLedgerMismatch}, {"seg6", 1, kindLedgerEdited}}},
		{"reorder two ledger lines", edit("ledger", func(l [][]byte) [][]byte { l[3], l[4] = l[4], l[3]; return l }),
			Broken, []fileProblem{{"ledger", 5, kindLedgerReordered}}},
		{"plant a copy of a segment", func(e env) {
			b, err := os.ReadFile(path(e, "seg2"))
			if err != nil {
				e.t.Fatal(err)
			}
			writeFile(e.t, filepath.Join(e.home, plantedSegment), b)
		}, Broken, []fileProblem{
			{"planted", 1, kindLedgerMismatch}, {"planted", 1, kindBoundary}, {"planted", 0, kindSegmentUnlisted},
			{"live", 1, kindBoundary}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := rotatedLog(t, 30)
			segs := ledgerOf(t, home)
			requireIntact(t, mustVerify(t, home), 40)
			tc.tamper(env{t, home, segs})
			rep := mustVerify(t, home)
			t.Log(describeFiles(rep))
			requireFileProblems(t, rep, segs, tc.status, tc.want...)
		})
	}
}

// TestRotationCrashPoints stops a rotation after each of its steps (see
// rotate.go), as a killed appender would, and checks what Verify says then
// and after the next append.
func TestRotationCrashPoints(t *testing.T) {
	renameOnly := func(t *testing.T, home string) {
		last := ledgerOf(t, home)[8]
		name, err := segmentName(home, time.Now(), last.Segment, last.Seq+1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(home, LogFile), filepath.Join(home, name)); err != nil {
			t.Fatal(err)
		}
	}
	rotate := func(t *testing.T, home string) ledgerEntry {
		head, err := readHead(home)
		if err != nil {
			t.Fatal(err)
		}
		e, ok, err := rotateLive(home, head, true, nil)
		if err != nil || !ok {
			t.Fatalf("rotateLive: %v %v", ok, err)
		}
		return e
	}
	newLive := func(t *testing.T, e ledgerEntry, cut bool) []byte {
		r := segmentStartRecord(e)
		r.Source, r.Time = "hook", "2026-11-29T10:43:49.123Z"
		line, _, err := encodeRecord(r, e.Last)
		if err != nil {
			t.Fatal(err)
		}
		if cut {
			return line[:len(line)/2]
		}
		return append(line, '\n')
	}
	cases := []struct {
		name          string
		crash         func(t *testing.T, home string)
		status, after Status
		before        []fileProblem
		afterWant     []fileProblem
		warn          string // the warning kind before recovery, "" for none
	}{
		// A writer stopped between two writes of a rotation leaves a
		// well-formed state: intact with a warning (it was tail-unprovable
		// before issue 14), confirmed by the next append.
		{"after the rename", renameOnly, Intact, Intact,
			nil, nil, kindRotationInterrupted},
		{"after the rename, with a torn ledger line", func(t *testing.T, home string) {
			renameOnly(t, home)
			f, err := os.OpenFile(filepath.Join(home, LedgerFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"count":4,"first_pr`); err != nil {
				t.Fatal(err)
			}
		}, Broken, Broken,
			[]fileProblem{{"ledger", 10, KindTorn}},
			[]fileProblem{{"ledger", 10, KindTorn}}, kindRotationInterrupted},
		{"after the ledger line", func(t *testing.T, home string) { rotate(t, home) }, Intact, Intact,
			nil, nil, kindUnconfirmedTail},
		{"while writing the new live file", func(t *testing.T, home string) {
			e := rotate(t, home)
			writeFile(t, filepath.Join(home, LogFile), newLive(t, e, true))
		}, Broken, Broken,
			[]fileProblem{{"live", 1, KindTorn}},
			[]fileProblem{{"live", 1, KindTorn}}, kindUnconfirmedTail},
		{"before the checkpoint", func(t *testing.T, home string) {
			e := rotate(t, home)
			writeFile(t, filepath.Join(home, LogFile), newLive(t, e, false))
		}, Intact, Intact,
			nil, nil, kindUnconfirmedTail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := rotatedLog(t, 30)
			tc.crash(t, home)
			rep := mustVerify(t, home)
			t.Log(describeFiles(rep))
			segs := ledgerOf(t, home)
			if tc.name == "after the rename" || strings.Contains(tc.name, "torn ledger") {
				// the moved file is not in the ledger yet: name it seg10
				names, _ := listSegments(home)
				segs = append(segs, ledgerEntry{Segment: names[len(names)-1]})
			}
			requireFileProblems(t, rep, segs, tc.status, tc.before...)
			requireWarnings(t, rep, tc.warn)
			appendRecords(t, home, 100, 1)
			rep = mustVerify(t, home)
			t.Log(describeFiles(rep))
			segs = ledgerOf(t, home)
			requireFileProblems(t, rep, segs, tc.after, tc.afterWant...)
			requireWarnings(t, rep)
			if len(segs) != 10 {
				t.Fatalf("%d segments after recovery, want 10", len(segs))
			}
			// The recovered chain continues: nothing new to report.
			// (The live file may rotate again, so only kinds are compared.)
			appendRecords(t, home, 200, 5)
			rep = mustVerify(t, home)
			var kinds, wantKinds []string
			for _, p := range rep.Problems {
				kinds = append(kinds, p.Kind)
			}
			for _, p := range tc.afterWant {
				wantKinds = append(wantKinds, p.kind)
			}
			if rep.Status != tc.after || !slices.Equal(kinds, wantKinds) {
				t.Fatalf("after more appends: %s", describeFiles(rep))
			}
		})
	}
}

func TestEachAndTailAcrossSegments(t *testing.T) {
	home := rotatedLog(t, 30)
	var got []Entry
	if err := Each(home, func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 40 {
		t.Fatalf("Each yielded %d records, want 40", len(got))
	}
	segs := ledgerOf(t, home)
	prev := Genesis
	for i, e := range got {
		if e.Record.Prev != prev {
			t.Fatalf("entry %d (%s line %d) does not chain to the one before", i, e.File, e.Line)
		}
		prev = e.Record.H
		wantFile, wantLine := LogFile, i-36+1
		if i < 36 {
			wantFile, wantLine = segs[i/4].Segment, i%4+1
		}
		if e.File != wantFile || e.Line != wantLine {
			t.Errorf("entry %d at %s line %d, want %s line %d", i, e.File, e.Line, wantFile, wantLine)
		}
	}
	all, err := Tail(home, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !reflect.DeepEqual(all[i], got[i].Record) {
			t.Fatalf("Tail(0)[%d] differs from Each", i)
		}
	}
	for _, n := range []int{1, 3, 4, 5, 9, 39, 40, 100} {
		tail, err := Tail(home, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := all[max(0, len(all)-n):]; !reflect.DeepEqual(tail, want) {
			t.Errorf("Tail(%d) = %d records, want the last %d", n, len(tail), len(want))
		}
	}
	// fn's error stops the walk and is returned; a break stops Records.
	stop := errors.New("stop")
	calls := 0
	if err := Each(home, func(Entry) error { calls++; return stopAt(calls, 7, stop) }); err != stop || calls != 7 {
		t.Errorf("Each with a failing fn: err %v after %d calls", err, calls)
	}
	calls = 0
	for range records(home) {
		if calls++; calls == 12 {
			break
		}
	}
	// A missing segment is skipped by readers (Verify reports it).
	if err := os.Remove(filepath.Join(home, segs[0].Segment)); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	if err := Each(home, func(e Entry) error { got = append(got, e); return nil }); err != nil || len(got) != 36 || got[0].File != segs[1].Segment {
		t.Fatalf("Each without the first segment: %d records, err %v", len(got), err)
	}
}

func stopAt(calls, at int, err error) error {
	if calls == at {
		return err
	}
	return nil
}

// TestCheckpointMarkAfterRotation: a rotated log is checkpointed (its live
// file starts with segment_start), so deleting audit.head is a deletion,
// and the next appender records it as one.
func TestCheckpointMarkAfterRotation(t *testing.T) {
	home := rotatedLog(t, 30)
	removeHead(t, home)
	segs := ledgerOf(t, home)
	rep := mustVerify(t, home)
	requireFileProblems(t, rep, segs, Broken, fileProblem{"head", 0, kindCheckpointMissing})
	if !strings.Contains(rep.Problems[0].Message, "audit_start at line 1 of "+segs[0].Segment) {
		t.Errorf("message does not name the mark: %s", rep.Problems[0].Message)
	}
	// Only the live file is left: its segment_start is the mark.
	for _, e := range segs {
		if err := os.Remove(filepath.Join(home, e.Segment)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(home, LedgerFile)); err != nil {
		t.Fatal(err)
	}
	rep = mustVerify(t, home)
	if p := rep.Problems[len(rep.Problems)-1]; p.Kind != kindCheckpointMissing || p.Severity != Broken || !strings.Contains(p.Message, "segment_start at line 1") {
		t.Errorf("live file alone without audit.head: %s", describeFiles(rep))
	}
	// The appender records the deletion in the chain.
	home = rotatedLog(t, 30)
	removeHead(t, home)
	appendRecords(t, home, 100, 1)
	requireFileProblems(t, mustVerify(t, home), ledgerOf(t, home), Broken, fileProblem{"live", 5, kindCheckpointMissing})
}

func TestMaxLiveBytes(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int64
	}{
		{"", 64 << 20}, {"1", 1 << 20}, {"0.01", 10485}, {" 2.5 ", 5 << 19},
		{"0", 64 << 20}, {"-3", 64 << 20}, {"abc", 64 << 20}, {"NaN", 64 << 20}, {"Inf", 64 << 20}, {"1e300", 64 << 20},
	} {
		t.Setenv(MaxMBEnv, c.env)
		if got := maxLiveBytes(); got != c.want {
			t.Errorf("%s=%q: %d bytes, want %d", MaxMBEnv, c.env, got, c.want)
		}
	}
}

func TestSegmentNamesSortAndNeverCollide(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 11, 29, 13, 22, 1, 123456789, time.UTC)
	a, err := segmentName(home, now, "", 1)
	if err != nil || a != "audit-20261129T132201.123456789Z-000001.jsonl" {
		t.Fatalf("name %q, %v", a, err)
	}
	// The clock went back: the next name still sorts after.
	b, _ := segmentName(home, now.Add(-time.Hour), a, 2)
	// The name is taken: a later one is used.
	writeFile(t, filepath.Join(home, "audit-20261129T132201.123456791Z-000003.jsonl"), nil)
	c, _ := segmentName(home, now, b, 3)
	if !(a < b && b < c) || c != "audit-20261129T132201.123456792Z-000003.jsonl" {
		t.Errorf("names %s %s %s", a, b, c)
	}
}

func TestNeedSyncCritical(t *testing.T) {
	cases := []struct {
		r    Record
		env  string
		want bool
	}{
		{Record{Event: "mcp_admit", Decision: "block"}, "", true},
		{Record{Event: "mcp_admit", Decision: "allow"}, "", false},
		{Record{Event: "mcp_release", Decision: "allow"}, "", true},
		{Record{Event: "gate_config"}, "critical", true},
		{Record{Event: eventSegmentStart}, "", true},
		{Record{Event: EventRecover}, "", true},
		{Record{Event: "decision", Effective: "hold"}, "", true},
		{Record{Event: "decision", Effective: "change"}, "", true},
		{Record{Event: "outcome", Effective: "ran"}, "critical", false},
		{Record{Event: "gate_config"}, "never", false},
		{Record{Event: "outcome"}, "always", true},
	}
	for _, c := range cases {
		if got := needSync(c.r, c.env); got != c.want {
			t.Errorf("needSync(%+v, %q) = %v, want %v", c.r, c.env, got, c.want)
		}
	}
}
