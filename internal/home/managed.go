package home

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// The managed layer: a policy the organisation sets (MDM, configuration
// management) in a directory only the administrator can write, read before
// the user's and never loosened by it (policy.Load). Its place is fixed
// per OS: no variable moves it, so no process running as the user can
// point Airlock at an empty one.
const (
	managedName   = "managed.yaml"
	managedMarker = "managed.required" // left by a deployment: the managed file must be there
)

// managedDir is the managed directory; tests of this module set it
// (SetManagedDirForTest), nothing else does.
var managedDir = defaultManagedDir()

func defaultManagedDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/Airlock"
	case "windows":
		// not the ProgramData variable: the user sets that for every
		// process it starts (managed_windows.go)
		return filepath.Join(programData(), "Airlock")
	}
	return "/etc/airlock"
}

// SetManagedDirForTest moves the managed directory for the test binaries of
// this module (the production binaries never call it) and returns the
// previous one.
func SetManagedDirForTest(dir string) string {
	old := managedDir
	managedDir = dir
	return old
}

// ManagedDir is the directory of the managed layer.
func ManagedDir() string { return managedDir }

// ManagedFile is the managed policy's path.
func ManagedFile() string { return filepath.Join(managedDir, managedName) }

// ManagedMarker is the file a deployment leaves to say the managed policy
// is required: with it and without the file, every call is refused (a
// deleted file must not look like an unmanaged machine).
func ManagedMarker() string { return filepath.Join(managedDir, managedMarker) }

// ManagedInForce reports whether this machine is managed: the managed file
// or its marker is there (whether or not it is sound: policy.Load judges
// that, and fails closed).
func ManagedInForce() bool {
	for _, p := range []string{ManagedFile(), ManagedMarker()} {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// FailOpen reports whether AIRLOCK_FAIL_OPEN=1 lets calls through while
// Airlock is broken: never on a managed machine, where a variable the agent
// can set must not weaken what the organisation set.
func FailOpen(getenv func(string) string) bool {
	if getenv == nil || getenv("AIRLOCK_FAIL_OPEN") != "1" {
		return false
	}
	return !ManagedInForce()
}

// CheckManaged checks that the managed file at path (fi from Lstat) and
// every directory above it can be changed by the administrator alone:
// owned by root, writable by nobody else, not a link; on Windows owned by
// SYSTEM or Administrators with no ACE giving anyone else a write right
// (judgeACL).
func CheckManaged(path string, fi fs.FileInfo) error { return checkManaged(path, fi) }
