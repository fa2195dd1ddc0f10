package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeal covers what a seal covers and what it refuses.
func TestSeal(t *testing.T) {
	t.Run("intact: nothing to seal", func(t *testing.T) {
		home := newLog(t, 3)
		if _, err := Seal(home, "why"); !errors.Is(err, ErrNothingToSeal) {
			t.Fatalf("err %v, want ErrNothingToSeal", err)
		}
	})
	t.Run("a reason is required", func(t *testing.T) {
		home := newLog(t, 3)
		appendRaw(t, home, []byte("garbage\n"))
		if _, err := Seal(home, " "); err == nil || !strings.Contains(err.Error(), "reason is required") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("refused: a line inserted in the middle leaves the checkpoint counting wrong", func(t *testing.T) {
		home := newLog(t, 4)
		lines := readLines(t, home)
		lines = append(lines[:3], append([][]byte{[]byte("an editor's stray line")}, lines[3:]...)...)
		writeLines(t, home, lines)
		if _, err := Seal(home, "my editor"); err == nil || !strings.Contains(err.Error(), kindCheckpointMismatch) {
			t.Fatalf("err %v, want a refusal naming the checkpoint", err)
		}
	})
	t.Run("lines appended after the checkpoint", func(t *testing.T) {
		home := newLog(t, 4)
		appendRaw(t, home, []byte("an editor's stray line\n"))
		before := mustVerify(t, home)
		if before.Status != Broken {
			t.Fatal(describe(before))
		}
		res, err := Seal(home, "my editor")
		if err != nil {
			t.Fatal(err)
		}
		// (the seal's repair confirms the checkpoint, so only the stray line is left)
		if res.Segment == "" || len(res.Sealed) != 1 || res.Sealed[0].Kind != kindMalformed {
			t.Fatalf("seal %+v of %s", res, describe(before))
		}
		appendRecords(t, home, 50, 1)
		rep := mustVerify(t, home)
		requireProblems(t, rep, Intact)
		if len(rep.Warnings) != 1 {
			t.Fatalf("warnings %+v", rep.Warnings)
		}
		for _, w := range rep.Warnings {
			if w.Kind != KindSealedBreak || w.File != res.Segment {
				t.Fatalf("warning %+v, want sealed-break in %s", w, res.Segment)
			}
		}
		// a new break after the seal is broken, the sealed one stays a warning
		appendRaw(t, home, []byte("more garbage\n"))
		rep = mustVerify(t, home)
		if rep.Status != Broken || len(rep.Warnings) != 1 {
			t.Fatalf("after new garbage: %s %+v", describe(rep), rep.Warnings)
		}
	})
	t.Run("a seal record cannot cover a break after it", func(t *testing.T) {
		home := newLog(t, 3)
		appendRaw(t, home, []byte("garbage\n"))
		if _, err := Seal(home, "first"); err != nil {
			t.Fatal(err)
		}
		// the same bytes at a later position are a new break
		appendRaw(t, home, []byte("garbage\n"))
		if rep := mustVerify(t, home); rep.Status != Broken {
			t.Fatalf("a copy of the sealed line later: %s", describe(rep))
		}
	})
	t.Run("refused: a deleted segment is not a line", func(t *testing.T) {
		home := rotatedLog(t, 20)
		segs := ledgerOf(t, home)
		if err := os.Remove(filepath.Join(home, segs[1].Segment)); err != nil {
			t.Fatal(err)
		}
		_, err := Seal(home, "oops")
		if err == nil || !strings.Contains(err.Error(), "cannot be sealed") || !strings.Contains(err.Error(), kindSegmentMissing) {
			t.Fatalf("err %v, want a refusal naming segment-missing", err)
		}
		if b, _ := os.ReadFile(filepath.Join(home, LogFile)); bytes.Contains(b, []byte(eventSeal)) {
			t.Fatal("a refused seal wrote a seal record")
		}
	})
}

// TestSealManyBreaks: a seal naming thousands of breaks costs verify one
// read of the file for the digests, not one per break (the seal record
// is in the log, so its size is the attacker's to choose).
func TestSealManyBreaks(t *testing.T) {
	home := newLog(t, 2)
	appendRaw(t, home, bytes.Repeat([]byte("garbage\n"), 5000))
	res, err := Seal(home, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sealed) != 5000 {
		t.Fatalf("sealed %d breaks, want 5000", len(res.Sealed))
	}
	rep := mustVerify(t, home)
	if rep.Status != Intact || len(rep.Warnings) != 5000 {
		t.Fatalf("status %v with %d warnings", rep.Status, len(rep.Warnings))
	}
}
