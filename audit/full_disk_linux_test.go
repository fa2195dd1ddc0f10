//go:build linux

package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/internal/fulldisk"
)

// TestFullDiskTornLineSealed is issue 14's way back, end to end on a real
// full disk: an append torn by ENOSPC is reported as "torn: the disk was
// full at …" once the next writer recovers it; airlock audit seal's Seal
// rotates the broken file out with a seal record, after which the log
// verifies intact with the sealed break as a warning naming the segment;
// new tampering after the seal, or of the sealed line, is still broken.
func TestFullDiskTornLineSealed(t *testing.T) {
	home := filepath.Join(fulldisk.Mount(t, "64k"), "airlock")
	t.Setenv(FsyncEnv, "never")
	appendRecords(t, home, 0, 3)
	filler := filepath.Join(filepath.Dir(home), "filler")
	fulldisk.Fill(t, filler)

	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	big := testRecord(99)
	big.Detail = strings.Repeat("x", 6000) // more than the slack in the log's last page
	if _, err := l.Append(big); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v, want ENOSPC", err)
	}
	l.Close()
	rep := mustVerify(t, home)
	requireProblems(t, rep, Broken, problem{5, KindTorn, []string{"torn last line"}})

	// space comes back; the next writer terminates the torn line and says why
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	appendRecords(t, home, 10, 1)
	rep = mustVerify(t, home)
	requireProblems(t, rep, Broken, problem{5, KindTorn, []string{"line 5: torn: the disk was full at 20", "continues at line 6"}})
	if names, _ := filepath.Glob(filepath.Join(home, faultPrefix+"*")); len(names) != 0 {
		t.Fatalf("fault files left after the recovery: %v", names)
	}

	res, err := Seal(home, "disk full during the nightly build")
	if err != nil {
		t.Fatal(err)
	}
	if res.Segment == "" || len(res.Sealed) != 1 {
		t.Fatalf("seal: %+v, want the live file rotated out with one break", res)
	}
	appendRecords(t, home, 20, 2)
	rep = mustVerify(t, home)
	requireProblems(t, rep, Intact)
	requireWarnings(t, rep, KindSealedBreak)
	w := rep.Warnings[0]
	if w.File != res.Segment || w.Line != 5 || !strings.Contains(w.Message, "the disk was full") || !strings.Contains(w.Message, "nightly build") {
		t.Fatalf("sealed warning %+v, want line 5 of %s", w, res.Segment)
	}

	// new tampering after the seal is caught: the seal record edited (the
	// first reason in the new live file), or a record after it (the last)
	live := filepath.Join(home, LogFile)
	good, _ := os.ReadFile(live)
	reason := []byte(`"reason":"`)
	for _, at := range []int{bytes.Index(good, reason), bytes.LastIndex(good, reason)} {
		edited := append(append(bytes.Clone(good[:at]), `"reason":"EDITED `...), good[at+len(reason):]...)
		writeFile(t, live, edited)
		rep = mustVerify(t, home)
		edit := slices.ContainsFunc(rep.Problems, func(p Problem) bool { return p.File == LogFile && p.Kind == kindEdited })
		if rep.Status != Broken || !edit {
			t.Fatalf("an edit after the seal at byte %d: %s", at, describe(rep))
		}
		writeFile(t, live, good)
	}
	requireProblems(t, mustVerify(t, home), Intact)

	// so is a change to the sealed line
	seg := filepath.Join(home, res.Segment)
	sealed, _ := os.ReadFile(seg)
	lines := bytes.SplitAfter(sealed, []byte{'\n'})
	lines[4] = append([]byte(`{"x`), lines[4]...)
	writeFile(t, seg, bytes.Join(lines, nil))
	rep = mustVerify(t, home)
	if rep.Status != Broken || len(rep.Warnings) != 0 {
		t.Fatalf("the sealed line changed: %s", describe(rep))
	}
}
