// Package home finds the Airlock home and checks that only its owner
// controls it.
//
// Everything that steers the gate lives in the home: the policy, the pins,
// the contracts, the audit chain and its checkpoint. A home another user
// can write is a home another user steers — their policy.yaml with
// "mode: observe" turns the gate off, their link named audit.jsonl makes
// the hook append to (and chmod) whatever it points at. So before any of
// it is read or written:
//
//   - AIRLOCK_HOME must be absolute: a relative one is resolved against the
//     directory the agent works in, which the agent writes.
//   - The home must be a directory owned by the user that nobody else can
//     write (group write only for the user's own private group).
//   - Every directory above it, up to /, must be the user's or root's and
//     not writable by others: whoever can write a parent can rename the home
//     away and put their own in its place. A sticky directory (/tmp) is the
//     exception: there only the owner of an entry can rename it, so it is
//     safe above an entry the user (or root) owns.
//   - A symbolic link on the way (macOS's /var → private/var, a user's
//     ~/.airlock → elsewhere) is followed when the user or root owns it and
//     it sits in a directory that passes the same test.
//   - Each state file is opened without following links (see
//     internal/regular.OpenState) and must be a regular file of the user's
//     that nobody else can write.
//
// On Windows only the first rule and the no-link rule apply: ownership and
// modes are ACLs there, and the home under %USERPROFILE% is private by
// default.
package home

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrUnsafe is wrapped by every refusal of a home, a directory above it or
// a state file.
var ErrUnsafe = errors.New("not controlled by its owner alone")

// UnsafeError names the path refused, why, and the command that fixes it.
type UnsafeError struct {
	Path string
	Why  string // "is owned by bob (uid 1001)", "is writable by others (mode drwxrwxrwx)"
	Fix  string
}

func (e *UnsafeError) Error() string {
	s := e.Path + " " + e.Why
	if e.Fix != "" {
		s += ": " + e.Fix
	}
	return s
}

func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// Locate returns the Airlock home the environment names: AIRLOCK_HOME, or
// userHome/.airlock when it is unset. A relative AIRLOCK_HOME is refused:
// it would be resolved against the directory the agent works in.
func Locate(getenv func(string) string, userHome string) (string, error) {
	h := getenv("AIRLOCK_HOME")
	if h == "" {
		if !filepath.IsAbs(userHome) {
			return "", fmt.Errorf("the home directory %q is not an absolute path: set HOME, or AIRLOCK_HOME to an absolute path", userHome)
		}
		return filepath.Join(userHome, ".airlock"), nil
	}
	if !filepath.IsAbs(h) {
		return "", fmt.Errorf("AIRLOCK_HOME=%q is a relative path, which would put the home in whatever directory the agent works in: set it to an absolute path (export AIRLOCK_HOME=\"$HOME/.airlock\")", h)
	}
	return filepath.Clean(h), nil
}

// Check verifies that the home at path, and every directory above it, is
// controlled by the user alone (see the
// package doc). A home that does not exist yet passes when the directories
// that would hold it do; Make creates it. The error wraps ErrUnsafe for a
// refusal, fs.ErrNotExist never.
func Check(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("the Airlock home %q is not an absolute path: set AIRLOCK_HOME to an absolute path", path)
	}
	return check(filepath.Clean(path), false)
}

// Make creates the home at path (0700, the missing directories above it
// too) when it does not exist, checking each directory it finds or makes,
// so a home another user slipped in first is refused rather than used.
func Make(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("the Airlock home %q is not an absolute path: set AIRLOCK_HOME to an absolute path", path)
	}
	return check(filepath.Clean(path), true)
}

// File checks one state file's owner and mode (fi from Fstat or Lstat of
// the file at path): a file another user owns or can write is refused.
// The caller has already refused links and non-regular files.
func File(path string, fi fs.FileInfo) error {
	return checkFile(path, fi)
}

// MakeDir creates dir — the home or a directory inside it, such as
// setup/ or backups/… — when missing (0700), and checks every directory
// from the home down to it: each must be a real directory (not a link) of
// the user's that nobody else can write. The home itself is checked as
// Make does.
func MakeDir(homeDir, dir string) error { return sub(homeDir, dir, true) }

// CheckDir is MakeDir without creating anything: a directory that does
// not exist yet is an error wrapping fs.ErrNotExist.
func CheckDir(homeDir, dir string) error { return sub(homeDir, dir, false) }

// Trusted checks a file outside the home that steers Airlock — the policy
// AIRLOCK_POLICY names (fi from Stat: the user chose the path, links and
// all): it must be a regular file owned by the user or root that nobody
// else can write.
func Trusted(path string, fi fs.FileInfo) error { return checkTrusted(path, fi) }
