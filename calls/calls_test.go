package calls

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newStore(t testing.TB) (*Store, *clock) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 12, 2, 12, 3, 0, 0, time.UTC)}
	return Open(dir, c.now), c
}

func count(t testing.TB, s *Store, c *clock, key, tool, digest string, w time.Duration) []Call {
	t.Helper()
	got, err := s.Count(key, Call{At: c.now().UnixMilli(), Tool: tool, Digest: digest}, w)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestCountWithinTheWindow(t *testing.T) {
	s, c := newStore(t)
	for i := range 5 {
		got := count(t, s, c, "session:a", "Bash", "d1", 2*time.Minute)
		if len(got) != i+1 || got[len(got)-1].Digest != "d1" {
			t.Fatalf("call %d: %v", i, got)
		}
		c.add(20 * time.Second)
	}
	// calls at 0, 20, 40, 60, 80 s; at 170 s a two-minute window holds
	// those after 50 s
	c.add(70 * time.Second)
	got := count(t, s, c, "session:a", "Read", "d2", 2*time.Minute)
	if len(got) != 3 || got[0].At != c.now().Add(-110*time.Second).UnixMilli() || got[2].Tool != "Read" {
		t.Errorf("window: %+v", got)
	}
	// keys are apart
	if got := count(t, s, c, "session:b", "Bash", "d1", time.Minute); len(got) != 1 {
		t.Errorf("another session's calls counted: %v", got)
	}
	// a tool name stays one word of its line
	if got := count(t, s, c, "session:c", "mcp__x__a b\nc", "d", time.Minute); got[0].Tool != "mcp__x__a_b_c" {
		t.Errorf("tool %q", got[0].Tool)
	}
	if got := count(t, s, c, "session:c", "", "d", time.Minute); len(got) != 2 || got[1].Tool != "_" {
		t.Errorf("empty tool: %+v", got)
	}
}

// TestConcurrentCountsAreNotLost: hook processes at once, in goroutines
// (each Count opens its own lock, as a process does) and in processes.
func TestConcurrentCountsAreNotLost(t *testing.T) {
	s, c := newStore(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if _, err := s.Count("session:a", Call{At: c.now().UnixMilli(), Tool: "Bash", Digest: fmt.Sprint(g)}, time.Hour); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := count(t, s, c, "session:a", "Bash", "x", time.Hour); len(got) != 401 {
		t.Errorf("%d calls counted, want 401", len(got))
	}
}

func TestConcurrentProcessesLoseNoCount(t *testing.T) {
	if os.Getenv("CALLS_CHILD_HOME") != "" {
		return
	}
	s, _ := newStore(t)
	const procs, each = 4, 100
	var cmds []*exec.Cmd
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCountChild$")
		cmd.Env = append(os.Environ(), "CALLS_CHILD_HOME="+s.home, "CALLS_CHILD_N="+strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Open(s.home, nil).Count("session:p", Call{At: time.Now().UnixMilli(), Tool: "Bash", Digest: "last"}, time.Hour)
	if err != nil || len(got) != procs*each+1 {
		t.Fatalf("%d calls counted (%v), want %d", len(got), err, procs*each+1)
	}
}

// TestCountChild is TestConcurrentProcessesLoseNoCount's child.
func TestCountChild(t *testing.T) {
	home := os.Getenv("CALLS_CHILD_HOME")
	if home == "" {
		t.Skip("the child of TestConcurrentProcessesLoseNoCount")
	}
	n, _ := strconv.Atoi(os.Getenv("CALLS_CHILD_N"))
	s := Open(home, nil)
	for i := range n {
		if _, err := s.Count("session:p", Call{At: time.Now().UnixMilli(), Tool: "Bash", Digest: strconv.Itoa(i)}, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOldLinesAreCompacted(t *testing.T) {
	s, c := newStore(t)
	for range 400 {
		count(t, s, c, "session:a", "mcp__notes__read_note", "d", time.Minute)
		c.add(time.Second)
	}
	fi, err := os.Stat(s.Path("session:a"))
	if err != nil {
		t.Fatal(err)
	}
	// 60 calls within the window, the rest rewritten away
	if fi.Size() > (compactStale+60)*64 {
		t.Errorf("the file holds %d bytes: never compacted", fi.Size())
	}
	if got := count(t, s, c, "session:a", "Bash", "e", time.Minute); len(got) != 60 {
		t.Errorf("%d calls within a minute, want 60", len(got))
	}
}

func TestCountSaturates(t *testing.T) {
	s, c := newStore(t)
	var b strings.Builder
	at := c.now().UnixMilli()
	for i := range MaxKept + 100 {
		fmt.Fprintf(&b, "%d d%d Bash\n", at-int64(i), i)
	}
	if err := os.MkdirAll(s.dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path("session:a"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, c, "session:a", "Bash", "x", time.Hour); len(got) != MaxKept || got[len(got)-1].Digest != "x" {
		t.Errorf("%d kept, want %d with the call last", len(got), MaxKept)
	}
}

// TestBrokenStateStartsOver: a line that does not parse, a link, a FIFO:
// the count says so (ErrReset) with the call alone, the next one counts
// from there, and nothing a link points at is written.
func TestBrokenStateStartsOver(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"a garbled line": func(t *testing.T, path string) { write(t, path, "1 d Bash\nnot a line\n") },
		"a torn line":    func(t *testing.T, path string) { write(t, path, "1 d Bash\n17") },
		"a link": func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			write(t, target, "keep\n")
			if err := os.Symlink(target, path); err != nil {
				t.Skip("no symlinks here:", err)
			}
			t.Cleanup(func() {
				if b, _ := os.ReadFile(target); string(b) != "keep\n" {
					t.Errorf("the link's target was written: %q", b)
				}
			})
		},
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			s, c := newStore(t)
			if err := os.MkdirAll(s.dir(), 0o700); err != nil {
				t.Fatal(err)
			}
			make(t, s.Path("session:a"))
			got, err := s.Count("session:a", Call{At: c.now().UnixMilli(), Tool: "Bash", Digest: "d"}, time.Hour)
			if !errors.Is(err, ErrReset) || len(got) != 1 {
				t.Fatalf("got %v, %v; want the call alone and ErrReset", got, err)
			}
			if got := count(t, s, c, "session:a", "Bash", "d", time.Hour); len(got) != 2 {
				t.Errorf("after the reset: %v", got)
			}
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStaleFilesArePruned(t *testing.T) {
	s, c := newStore(t)
	count(t, s, c, "session:old", "Bash", "d", time.Minute)
	old := c.now().Add(-25 * time.Hour)
	if err := os.Chtimes(s.Path("session:old"), old, old); err != nil {
		t.Fatal(err)
	}
	count(t, s, c, "session:new", "Bash", "d", time.Minute)
	if _, err := os.Stat(s.Path("session:old")); !os.IsNotExist(err) {
		t.Errorf("a day-old session's file stays: %v", err)
	}
}

func all(string) bool { return true }

func TestMemory(t *testing.T) {
	var m Memory
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	minute := []Window{{Span: time.Minute, Tools: true}}
	for i := range 10 {
		got, _ := m.Tally("server:fs", Call{At: at + int64(i)*10_000, Tool: "mcp__fs__read", Digest: "d"}, minute)
		want := min(i+1, 6) // calls 10 s apart: six within a minute
		if n, nt := got.Same("d", time.Minute), got.Tools(time.Minute, all); n != want || nt != want {
			t.Fatalf("call %d: %d counted (%d by tool), want %d", i, n, nt, want)
		}
	}
	// a tally is what its own count saw: later calls leave it as it was
	// (the list counter returned a copy for this)
	got, _ := m.Tally("session:x", Call{At: at, Tool: "t", Digest: "d"}, minute)
	for i := range 5 {
		m.Tally("session:x", Call{At: at + 1 + int64(i), Tool: "t", Digest: "d"}, minute)
	}
	if n, nt := got.Same("d", time.Minute), got.Tools(time.Minute, all); n != 1 || nt != 1 {
		t.Errorf("a later count changed an earlier tally: %d, %d; want 1, 1", n, nt)
	}
}

// TestMemoryCountsAsTheList: Memory's counts are the list counter's (the
// calls within each window, the key saturating at MaxKept), over random
// calls of a few digests and tools, two windows, bursts past MaxKept and
// quiet stretches past every window.
func TestMemoryCountsAsTheList(t *testing.T) {
	var m Memory
	var every List // every call, in order
	windows := []Window{{Span: 2 * time.Minute}, {Span: time.Minute, Tools: true}}
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	seed, saturated := uint64(1), false
	rnd := func(n int) int { seed = seed*6364136223846793005 + 1442695040888963407; return int(seed>>33) % n }
	for i := range 15000 {
		switch r := rnd(1000); {
		case r == 0 && i > 6000:
			at += 3 * 60_000 // quiet: every window empties
		case r < 5 && i > 6000: // the first 6,000 a burst past MaxKept
			at += 20_000
		case r < 600:
			at += int64(rnd(30)) // bursts, equal times included
		}
		c := Call{At: at, Digest: fmt.Sprint("d", rnd(4)), Tool: fmt.Sprint("mcp__s__t", rnd(3))}
		got, _ := m.Tally("session:a", c, windows)
		every = append(every, c)
		// the list counter: the widest window's calls, at most MaxKept
		kept := List{}
		for j := len(every) - 1; j >= 0 && every[j].At > at-windows[0].Span.Milliseconds() && len(kept) < MaxKept; j-- {
			kept = append(kept, every[j])
		}
		slices.Reverse(kept)
		saturated = saturated || len(kept) == MaxKept
		for _, w := range windows {
			if g, want := got.Same(c.Digest, w.Span), kept.Same(c.Digest, w.Span); g != want {
				t.Fatalf("call %d: %d with its digest in %s, the list %d", i, g, w.Span, want)
			}
		}
		one := func(tool string) bool { return tool == "mcp__s__t1" }
		if g, want := got.Tools(time.Minute, one), kept.Tools(time.Minute, one); g != want {
			t.Fatalf("call %d: %d of the tool in 1m, the list %d", i, g, want)
		}
		if g, want := got.Tools(time.Minute, all), kept.Tools(time.Minute, all); g != want {
			t.Fatalf("call %d: %d calls in 1m, the list %d", i, g, want)
		}
	}
	if !saturated {
		t.Error("no burst reached MaxKept: the test misses saturation")
	}
}

// TestMemoryLetsABurstGo: after a burst of distinct calls past MaxKept
// and a quiet stretch past the window, the key keeps a small ring and
// small tables, not the burst's.
func TestMemoryLetsABurstGo(t *testing.T) {
	var m Memory
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	w := []Window{{Span: time.Minute, Tools: true}}
	for i := range MaxKept + 500 {
		got, _ := m.Tally("session:a", Call{At: at, Digest: strconv.Itoa(i), Tool: strconv.Itoa(i % 50)}, w)
		if n := got.Tools(time.Minute, all); n != min(i+1, MaxKept) {
			t.Fatalf("call %d: %d in the window, want %d", i, n, min(i+1, MaxKept))
		}
	}
	for i := range 3 {
		m.Tally("session:a", Call{At: at + 61_000 + int64(i), Digest: "x", Tool: "t"}, w)
	}
	h := m.keys["session:a"]
	if len(h.ring) > 64 || len(h.spans[0].same.m) != 1 || h.spans[0].same.peak > 256 || len(h.spans[0].byTol.m) != 1 {
		t.Errorf("after the burst: a ring of %d, %d digests (peak %d), %d tools", len(h.ring), len(h.spans[0].same.m), h.spans[0].same.peak, len(h.spans[0].byTol.m))
	}
}

// TestMemoryNewWindow: a key counted with a window it was not counted
// with before counts that window from the calls it keeps.
func TestMemoryNewWindow(t *testing.T) {
	var m Memory
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixMilli()
	for i := range 10 {
		m.Tally("session:a", Call{At: at + int64(i)*10_000, Digest: "d", Tool: "t"}, []Window{{Span: 2 * time.Minute}})
	}
	// calls at 0..90 s, the next at 100 s: 6 within a minute by tool, 11 in 2m
	got, _ := m.Tally("session:a", Call{At: at + 100_000, Digest: "d", Tool: "t"}, []Window{{Span: 2 * time.Minute}, {Span: time.Minute, Tools: true}})
	if n, nt := got.Same("d", 2*time.Minute), got.Tools(time.Minute, all); n != 11 || nt != 6 {
		t.Errorf("%d in 2m, %d in 1m by tool; want 11 and 6", n, nt)
	}
	if n := got.Same("d", 90*time.Second); n != 11 {
		t.Errorf("a window not counted: %d, want the wider one's 11", n)
	}
}

// BenchmarkCount: what a PreToolUse pays for the limits with 100 calls in
// the session's window (a busy two minutes): the lock, the read, the
// append.
func BenchmarkCount(b *testing.B) {
	s, c := newStore(b)
	for i := range 100 {
		count(b, s, c, "session:a", "mcp__notes__read_note", strconv.Itoa(i), 2*time.Minute)
	}
	// the file keeps growing under the loop: a fixed clock keeps every
	// call in the window, and compaction keeps the file near the window
	for b.Loop() {
		if _, err := s.Count("session:a", Call{At: c.now().UnixMilli(), Tool: "Bash", Digest: "d"}, 2*time.Minute); err != nil {
			b.Fatal(err)
		}
		c.add(1200 * time.Millisecond) // 100 calls in two minutes
	}
}
