//go:build !unix && !windows

package home

import "io/fs"

// checkManaged on a system that is neither unix nor Windows (plan9,
// wasm) checks the kind of file only: there is no owner to read.
func checkManaged(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is the managed policy and is not a regular file", Fix: "replace it with the policy file (as an administrator)"}
	}
	return nil
}
