package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLookPathAsAShellDoes: a command that is not there is
// exec.ErrNotFound (airlock run's 127); one that is there and cannot be
// run is a permission error (126), not "not found"; an executable later
// on PATH wins over a file without its execute bit earlier on it.
func TestLookPathAsAShellDoes(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for path, files := range map[string]map[string]os.FileMode{
		a: {"plain": 0o644, "both": 0o644},
		b: {"both": 0o755, "tool": 0o755},
	} {
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, mode := range files {
			if err := os.WriteFile(filepath.Join(path, name), []byte("#!/bin/sh\n"), mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(filepath.Join(a, "tool"), 0o755); err != nil { // a directory of that name is skipped
		t.Fatal(err)
	}
	env := []string{"PATH=" + a + ":" + b}
	cases := []struct {
		name     string
		want     string
		notFound bool
		denied   bool
	}{
		{"tool", filepath.Join(b, "tool"), false, false},
		{"both", filepath.Join(b, "both"), false, false},
		{"plain", "", false, true},
		{"nosuchcommand", "", true, false},
		{filepath.Join(dir, "nosuchfile"), "", true, false},
		{filepath.Join(a, "plain"), filepath.Join(a, "plain"), false, false}, // a path is tried as it is: exec says why not
	}
	for _, c := range cases {
		got, err := lookPath(c.name, env)
		if got != c.want || errors.Is(err, exec.ErrNotFound) != c.notFound || errors.Is(err, fs.ErrPermission) != c.denied {
			t.Errorf("lookPath(%q) = %q, %v; want %q (not found %v, denied %v)", c.name, got, err, c.want, c.notFound, c.denied)
		}
	}
}
