//go:build unix

package doctor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// DEFECT (found in review of issue 14): doctor's append probe opened
// audit.jsonl for writing by path, following a link and blocking on a
// FIFO, while every writer of the log refuses both. An agent that made
// audit.jsonl a FIFO hung `airlock doctor`, the command a user runs to
// find out what is wrong; a link led the open (O_WRONLY, as root) to
// whatever it named, a device included. The probe opens the log as the
// log's writers do (internal/regular.OpenState) and says why it cannot.
func TestAppendProbeNeverFollowsOrBlocks(t *testing.T) {
	cases := map[string]func(t *testing.T, log string){
		"a FIFO": func(t *testing.T, log string) {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a link to a FIFO": func(t *testing.T, log string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(fifo, log); err != nil {
				t.Fatal(err)
			}
		},
		"a link to a file": func(t *testing.T, log string) {
			target := filepath.Join(t.TempDir(), "passwd")
			if err := os.WriteFile(target, []byte("root:x:0:0::/root:/bin/sh\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, log); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			log := filepath.Join(home, audit.LogFile)
			plant(t, log)
			done := make(chan error, 1)
			go func() { done <- appendable(home) }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("the probe says a record can be appended to a log no writer would open")
				}
			case <-time.After(10 * time.Second):
				// unblock the open so the goroutine ends
				if f, err := os.OpenFile(log, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("the append probe hung on " + name + " in place of audit.jsonl")
			}
		})
	}
}
