package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// collect reads every line after p and returns them with the last position.
func collect(t *testing.T, home string, p Position) ([]Line, Position) {
	t.Helper()
	var out []Line
	err := LinesAfter(home, p, func(l Line) error {
		l.Raw = append([]byte(nil), l.Raw...)
		out = append(out, l)
		p = l.Pos
		return nil
	})
	if err != nil {
		t.Fatalf("LinesAfter(%+v): %v", p, err)
	}
	return out, p
}

func TestLinesAfterResumesAcrossRotations(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002") // a few records per segment
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 5)
	first, pos := collect(t, home, Position{})
	if len(first) < 6 || first[0].Prev != Genesis {
		t.Fatalf("first read: %d lines, first prev %q; want at least 6 from genesis", len(first), first[0].Prev)
	}
	seen := []Line{}
	seen = append(seen, first...)
	for round := 0; round < 6; round++ {
		appendRecords(t, home, 5+round*7, 7)
		more, next := collect(t, home, pos)
		if len(more) == 0 {
			t.Fatalf("round %d: nothing after %+v", round, pos)
		}
		if more[0].Prev != pos.H {
			t.Fatalf("round %d: first line after %s has prev %s: a gap or a repeat", round, pos.H[:12], more[0].Prev)
		}
		seen = append(seen, more...)
		pos = next
	}
	segs, _ := listSegments(home)
	if len(segs) < 3 {
		t.Fatalf("want several rotations under the test, got %d segments", len(segs))
	}
	all, _ := collect(t, home, Position{})
	if len(all) != len(seen) {
		t.Fatalf("resumed reads yielded %d lines, one read %d", len(seen), len(all))
	}
	for i := range all {
		if all[i].Pos.H != seen[i].Pos.H {
			t.Fatalf("line %d: resumed %s, whole %s", i, seen[i].Pos.H, all[i].Pos.H)
		}
		if _, err := CheckLine(all[i].Raw); err != nil && all[i].Pos.H != "" {
			t.Fatalf("line %d: CheckLine: %v", i, err)
		}
	}
}

func TestLinesAfterFindsAPositionWhoseFileWasRotated(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002")
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 2)
	_, pos := collect(t, home, Position{})
	if pos.File != LogFile {
		t.Fatalf("position %+v: want the live file", pos)
	}
	appendRecords(t, home, 2, 30) // rotates the live file away, several times
	more, _ := collect(t, home, pos)
	if len(more) == 0 || more[0].Prev != pos.H {
		t.Fatalf("after rotation: %d lines, first prev %v; want the line after %s", len(more), more, pos.H[:12])
	}
	// a wrong offset falls back to a search by hash
	pos.Off = 1
	again, _ := collect(t, home, pos)
	if len(again) != len(more) || again[0].Pos.H != more[0].Pos.H {
		t.Fatalf("search by hash: %d lines, want %d", len(again), len(more))
	}
}

func TestLinesAfterLostPositionIsAnError(t *testing.T) {
	home := newLog(t, 3)
	err := LinesAfter(home, Position{File: LogFile, Off: 0, H: Genesis[:63] + "1"}, func(Line) error { return nil })
	if !errors.Is(err, ErrPositionLost) {
		t.Fatalf("unknown h: err %v, want ErrPositionLost", err)
	}
}

func TestCheckLineDetectsAnEdit(t *testing.T) {
	home := newLog(t, 1)
	lines := readLines(t, home)
	if _, err := CheckLine(lines[1]); err != nil {
		t.Fatalf("stored line: %v", err)
	}
	edited := append([]byte(nil), lines[1]...)
	for i := range edited {
		if string(edited[i:i+4]) == "hook" {
			copy(edited[i:], "HOOK")
			break
		}
	}
	if _, err := CheckLine(edited); err == nil {
		t.Fatalf("edited line passed CheckLine: %s", edited)
	}
	if _, err := CheckLine([]byte("not json")); err == nil {
		t.Fatal("not json passed CheckLine")
	}
}

// A segment between the position and the live file deleted underneath a
// follower: LinesAfter must not step over it and yield the next segment's
// lines as if they followed (airlock forward would ship past the hole).
func TestLinesAfterAMissingSegmentIsAnError(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002")
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 3)
	_, pos := collect(t, home, Position{})
	appendRecords(t, home, 3, 30)
	segs, _ := listSegments(home)
	if len(segs) < 3 {
		t.Fatalf("want several segments, got %d", len(segs))
	}
	// the newest segment that holds nothing at or before pos
	victim := segs[len(segs)-1]
	if err := os.Remove(filepath.Join(home, victim)); err != nil {
		t.Fatal(err)
	}
	var got []Line
	err := LinesAfter(home, pos, func(l Line) error { got = append(got, l); return nil })
	if err == nil {
		for i := 1; i < len(got); i++ {
			if got[i].Pos.H != "" && got[i-1].Pos.H != "" && got[i].Prev != got[i-1].Pos.H {
				t.Fatalf("segment %s removed: LinesAfter yielded line %d (prev %s) after %s without an error", victim, i, got[i].Prev[:12], got[i-1].Pos.H[:12])
			}
		}
		t.Fatalf("segment %s removed: no error, %d lines", victim, len(got))
	}
	if !errors.Is(err, ErrSegmentMissing) || !strings.Contains(err.Error(), victim) {
		t.Fatalf("segment %s removed: %v; want ErrPositionLost naming it", victim, err)
	}
}
