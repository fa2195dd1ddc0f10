// Package regular opens files that an attacker may have replaced: a FIFO
// would hang the reader, a device such as /dev/zero would never end. Every
// file is opened without blocking, checked to be a regular file, and read
// to a bound.
package regular

import (
	"errors"
	"fmt"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path with flag (O_NONBLOCK added where the platform has it,
// so a FIFO does not block the open) and refuses anything but a regular
// file.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|nonBlock, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, st.Mode().Type())
	}
	return f, nil
}

// Read reads a whole regular file of at most max bytes; a longer one is
// an error.
func Read(path string, max int64) ([]byte, error) {
	return readBounded(path, max, Open)
}

// ReadPrefix reads at most n bytes from the start of a regular file.
func ReadPrefix(path string, n int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, n)
}

// readBounded reads the whole file open opens, refusing one past max.
func readBounded(path string, max int64, open func(string, int, os.FileMode) (*os.File, error)) ([]byte, error) {
	f, err := open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadAll(f, max+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}
