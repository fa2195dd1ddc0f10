//go:build !unix

package home

import (
	"fmt"
	"io/fs"
	"os"
)

// On Windows a home's ownership and modes are ACLs, which Airlock does not
// read: the home is refused only when it is relative (Locate, Check) or not
// a directory, and state files only when they are links or not regular
// files (internal/regular).

func check(path string, create bool) error {
	if create {
		if err := os.MkdirAll(path, 0o700); err != nil {
			return fmt.Errorf("create the Airlock home %s: %w", path, err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) && !create {
			return nil
		}
		return fmt.Errorf("the Airlock home %s: %w", path, err)
	}
	if !fi.IsDir() {
		return &UnsafeError{Path: path, Why: "is not a directory", Fix: "set AIRLOCK_HOME to a directory of your own"}
	}
	return nil
}

func checkFile(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeError{Path: path, Why: "is a symbolic link: Airlock does not follow links among its own files", Fix: "remove the link"}
	}
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is not a regular file (" + fi.Mode().Type().String() + ")", Fix: "remove it"}
	}
	return nil
}

func sub(homeDir, dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return &UnsafeError{Path: dir, Why: "is not a directory", Fix: "remove it"}
	}
	return nil
}

func checkTrusted(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is not a regular file", Fix: "point AIRLOCK_POLICY at a policy file"}
	}
	return nil
}
