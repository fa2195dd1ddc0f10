package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteReplacesAndKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", fi, err)
	}
	b, _ := os.ReadFile(real)
	if string(b) != "new" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(real); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("a temp file was left behind: %v", ents)
	}
	if err := Write(filepath.Join(dir, "new.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestWriteStateRefusesLinks: Airlock's own files are never written
// through a link (before: the fingerprint file, a link, replaced its
// target); the agents' config files still are (Write, above).
func TestWriteStateRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "gate.hook.fingerprint")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := WriteState(link, []byte("new"), 0o600)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("WriteState through a link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	plain := filepath.Join(dir, "pins.json")
	if err := WriteState(plain, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteState(plain, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(plain); string(b) != "b" {
		t.Fatalf("content %q", b)
	}
}

// Create never replaces: an existing file, or a link (even a dangling
// one), is left as it was, and no temp file is left behind.
func TestCreateNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.html")
	if err := os.WriteFile(old, []byte("keep"), 0o640); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, dangling} {
		if err := Create(p, []byte("new"), 0o600); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create(%s) = %v, want fs.ErrExist", p, err)
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "keep" {
		t.Fatalf("replaced: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("written through a dangling link")
	}
	fresh := filepath.Join(dir, "new.html")
	if err := Create(fresh, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("new file: %v %v", fi, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("a temp file was left behind: %v", ents)
	}
}
