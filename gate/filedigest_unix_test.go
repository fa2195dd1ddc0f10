//go:build unix

package gate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DEFECT (found in review of issue 14): FileDigest read the home's
// contracts.yaml with os.ReadFile — through a link, blocking on a FIFO,
// without a bound — at every proxy start, after contracts.Load had read
// the same file without following links. A FIFO put in its place between
// the two (or a link to /dev/zero) hung the proxy or filled its memory.
// It reads the file as Load does (internal/regular.ReadState).
func TestFileDigestReadsStateNoFollow(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.yaml")
	if err := os.WriteFile(target, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(p string) error{
		"a FIFO":              func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"a link to a file":    func(p string) error { return os.Symlink(target, p) },
		"a link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "contracts.yaml")
			if err := plant(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan string, 1)
			go func() { done <- FileDigest("contracts", p) }()
			select {
			case got := <-done:
				if strings.Contains(got, "sha256:") {
					t.Fatalf("digested %s in place of contracts.yaml: %s", name, got)
				}
			case <-time.After(10 * time.Second):
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close() // let the stuck open finish
				}
				t.Fatalf("FileDigest hung on %s", name)
			}
		})
	}
	// a regular file of the user's is digested
	p := filepath.Join(t.TempDir(), "contracts.yaml")
	if err := os.WriteFile(p, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := FileDigest("contracts", p); !strings.Contains(got, "sha256:") {
		t.Fatalf("a regular file: %s", got)
	}
}
