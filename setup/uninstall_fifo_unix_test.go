//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// DEFECT (found in review of issue 14): uninstall (every run, not only
// --purge) opened the home's audit.jsonl with os.Open to see whether the
// home is Airlock's: a FIFO there (an agent's mkfifo) hung `airlock
// uninstall`, and a link let a file outside the home (one that merely
// looks like an Airlock log) vouch for deleting the home. It is read as
// the log's readers read it (internal/regular.OpenState).
func TestAirlockMadeNeverBlocksNorFollows(t *testing.T) {
	first := `{"ts":"2026-11-29T10:43:49.123Z","event":"audit_start","source":"cli","prev":"genesis","h":"x"}` + "\n"
	cases := map[string]func(t *testing.T, log string){
		"a FIFO": func(t *testing.T, log string) {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a link to a log elsewhere": func(t *testing.T, log string) {
			other := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(other, []byte(first), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, log); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "audit.jsonl")
			plant(t, log)
			done := make(chan bool, 1)
			go func() { done <- airlockMade(dir) }()
			select {
			case ours := <-done:
				if ours {
					t.Fatalf("%s in place of audit.jsonl vouches for the directory", name)
				}
			case <-time.After(10 * time.Second):
				if f, err := os.OpenFile(log, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("airlockMade hung on " + name)
			}
		})
	}
	// the real thing still counts
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "audit.jsonl"), []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	if !airlockMade(dir) {
		t.Fatal("a home with Airlock's log is not recognised")
	}
}
