package main

import "os"

// isTerminal reports whether f is a terminal a person sits at: a character
// device other than the null device (where a detached process's stdin
// points). A pipe or a file is a script, and a script does not answer for
// a person.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
