package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// The log's files are read from a directory an attacker may have written:
// a FIFO would hang the reader (while it holds the append lock), a device
// such as /dev/zero would never end. Every file is opened without
// blocking, checked to be a regular file, and read to a bound.

// ErrNotRegular is wrapped by the error for a log file that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// Bounds on whole-file reads.
const (
	maxHeadBytes   = 1 << 20
	maxLedgerBytes = 256 << 20
	maxAnchorBytes = 256 << 20
)

// openRegular opens path with flag (O_NONBLOCK added where the platform
// has it, so a FIFO does not block the open) and refuses anything but a
// regular file.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
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

// readRegular reads a whole regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file this log writes", path, max)
	}
	return b, nil
}
