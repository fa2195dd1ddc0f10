package audit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startAppenders runs procs copies of TestHelperAppender (each doing each
// appends, one Open per append) against home with the given environment.
func startAppenders(t testing.TB, home string, procs, each int, env ...string) ([]*exec.Cmd, []*strings.Builder) {
	t.Helper()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$", "-test.count=1")
		cmd.Env = append(append(os.Environ(),
			helperEnv+"="+home,
			helperEnv+"_ID="+strconv.Itoa(p),
			helperEnv+"_N="+strconv.Itoa(each),
		), env...)
		outs[p] = new(strings.Builder)
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = cmd
	}
	return cmds, outs
}

// TestCrossProcessRotation: 16 processes append 300 records each while the
// live file rotates every ~50 KB; half of them hold one Log (and its files)
// open throughout, the others open one per append. The chain verifies intact across every
// segment and holds each record exactly once, in each process's order.
func TestCrossProcessRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	home := filepath.Join(t.TempDir(), "h")
	const procs, each = 16, 300
	cmds, outs := startAppenders(t, home, procs, each, MaxMBEnv+"=0.05", FsyncEnv+"=", helperEnv+"_HELD=mixed")
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v\n%s", p, err, outs[p])
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	rep := mustVerify(t, home)
	if rep.Status != Intact || rep.Segments < 10 || rep.Records != procs*each+1+rep.Segments {
		t.Fatalf("want intact with %d records + audit_start + one segment_start per segment, got %s", procs*each, describeFiles(rep))
	}
	next := map[string]int{}
	starts := 0
	err := Each(home, func(e Entry) error {
		r := e.Record
		switch r.Event {
		case EventStart, eventSegmentStart:
			starts++
			return nil
		}
		id, _ := strconv.Atoi(strings.TrimPrefix(r.Source, "hook-"))
		if want := fmt.Sprintf("reason number %d", id*1000+next[r.Source]); r.Reason != want {
			return fmt.Errorf("%s line %d: %s wrote %q, want %q", e.File, e.Line, r.Source, r.Reason, want)
		}
		next[r.Source]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range procs {
		if got := next["hook-"+strconv.Itoa(p)]; got != each {
			t.Errorf("child %d: %d records, want %d", p, got, each)
		}
	}
	if starts != 1+rep.Segments {
		t.Errorf("%d start records for %d segments", starts, rep.Segments)
	}
}

// TestKilledAppenders kills appending processes at random moments, 20
// times, with rotations every few records; half of the processes hold one
// Log open, half open one per append. After each kill Verify may only
// report what a crash leaves at the tail; after one more append the chain
// goes on and only the torn lines a crash left stay on record.
func TestKilledAppenders(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if runtime.GOOS == "windows" {
		t.Skip("kills processes with SIGKILL")
	}
	home := filepath.Join(t.TempDir(), "h")
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	tailKinds := map[string]bool{KindTorn: true, KindCheckpointStale: true, kindRotationInterrupted: true}
	seen := map[string]int{}
	for round := range 20 {
		cmds, _ := startAppenders(t, home, 4, 1_000_000, MaxMBEnv+"=0.004", FsyncEnv+"=never", helperEnv+"_HELD=mixed")
		// A random moment: not waiting for an event, choosing a kill point.
		time.Sleep(time.Duration(100+rng.IntN(200)) * time.Millisecond)
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
		for _, c := range cmds {
			_ = c.Wait()
		}
		// A kill never leaves the checkpoint unreadable: it is written
		// into the older of two slots, so the newer one survives.
		if _, err := readHead(home); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		rep := mustVerify(t, home)
		for _, p := range rep.Problems {
			seen[p.Kind]++
			if !tailKinds[p.Kind] {
				t.Fatalf("round %d: a kill left more than a torn tail: %s", round, describeFiles(rep))
			}
		}
	}
	appendRecords(t, home, 0, 1)
	rep := mustVerify(t, home)
	for _, p := range rep.Problems {
		if p.Kind != KindTorn {
			t.Fatalf("after recovery: %s", describeFiles(rep))
		}
	}
	t.Logf("%d records in %d segments, %d torn line(s) on record; crash states seen: %v", rep.Records, rep.Segments, len(rep.Problems), seen)
}
