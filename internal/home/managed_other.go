//go:build !unix

package home

import "io/fs"

// checkManaged on Windows reads no ACL yet: the file is used as it is
// (docs/fleet.md lists the gap).
func checkManaged(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is the managed policy and is not a regular file", Fix: "replace it with the policy file (as an administrator)"}
	}
	return nil
}
