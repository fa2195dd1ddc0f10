package monitor

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineWriter hands each write to the test as it happens.
type lineWriter chan string

func (w lineWriter) Write(b []byte) (int, error) {
	w <- string(b)
	return len(b), nil
}

func TestRunPlainOncePrintsTheTail(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 5)
	var out, status bytes.Buffer
	if err := RunPlain(context.Background(), home, &out, &status, true, Options{Tail: 2, Interval: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "Tool3") || !strings.Contains(lines[1], "Tool4") {
		t.Fatalf("--once -n 2 printed:\n%s", out.String())
	}
	if status.String() != "airlock monitor: chain ok (6 records)\n" {
		t.Fatalf("status %q", status.String())
	}
}

func TestRunPlainFollowsUntilCancelled(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(lineWriter, 100)
	done := make(chan error, 1)
	go func() {
		done <- RunPlain(ctx, home, out, &bytes.Buffer{}, false, Options{Tail: 1, Interval: time.Millisecond})
	}()
	next := func() string {
		select {
		case l := <-out:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10 s")
			return ""
		}
	}
	if l := next(); !strings.Contains(l, "Tool0") {
		t.Fatalf("tail line %q", l)
	}
	appendN(t, home, 1, 2)
	for _, want := range []string{"Tool1", "Tool2"} {
		if l := next(); !strings.Contains(l, want) || strings.Count(l, "\n") != 1 {
			t.Fatalf("followed line %q, want one line with %s", l, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("RunPlain after cancel: %v", err)
	}
}
