package regular

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentairlock/airlock/internal/home"
)

// TestOpenStateRefuses: a link, a FIFO or a second hard link in place of a
// state file is refused; a regular file of the user's opens. (Files of
// another user, as root and as an unprivileged user: internal/home's
// tests.)
func TestOpenStateRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(p string) error{
		"link":          func(p string) error { return os.Symlink(target, p) },
		"dangling link": func(p string) error { return os.Symlink(filepath.Join(dir, "none"), p) },
	}
	if runtime.GOOS != "windows" {
		cases["hard link"] = func(p string) error { return os.Link(target, p) }
		cases["world-writable"] = func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Chmod(p, 0o666)
		}
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := plant(p); err != nil {
				t.Fatal(err)
			}
			f, err := OpenState(p, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
			if err == nil {
				f.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, home.ErrUnsafe) {
				t.Fatalf("not a refusal: %v", err)
			}
		})
	}
	p := filepath.Join(dir, "ok")
	f, err := OpenState(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
