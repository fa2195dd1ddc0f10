package home

import (
	"path/filepath"
	"strings"
	"testing"
)

// No variable moves the managed directory: a user (or an agent running as
// the user) who sets ProgramData for the processes it starts does not
// point Airlock at an empty directory of its own. (On Linux and macOS the
// place is a constant; on Windows it is the system's ProgramData folder,
// asked of the system, not of the environment.)
func TestManagedDirIgnoresTheEnvironment(t *testing.T) {
	before := defaultManagedDir()
	fake := t.TempDir()
	t.Setenv("ProgramData", fake)
	t.Setenv("PROGRAMDATA", fake)
	got := defaultManagedDir()
	if got != before || strings.HasPrefix(filepath.Clean(got), filepath.Clean(fake)) {
		t.Fatalf("the managed directory followed ProgramData: %q (was %q)", got, before)
	}
}
