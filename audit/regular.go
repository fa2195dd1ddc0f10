package audit

import (
	"fmt"
	"os"

	"github.com/agentairlock/airlock/internal/regular"
)

// The log's files are read from a directory an attacker may have written:
// a FIFO would hang the reader (while it holds the append lock), a device
// such as /dev/zero would never end. internal/regular opens them without
// blocking, refuses anything but a regular file, and reads to a bound.

// ErrNotRegular is wrapped by the error for a log file that is not a
// regular file.
var ErrNotRegular = regular.ErrNotRegular

// Bounds on whole-file reads.
const (
	maxHeadBytes   = 1 << 20
	maxLedgerBytes = 256 << 20
	maxAnchorBytes = 256 << 20
)

func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	return regular.Open(path, flag, perm)
}

// readRegular reads a whole regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	b, err := regular.ReadPrefix(path, max+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file this log writes", path, max)
	}
	return b, nil
}
