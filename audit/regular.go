package audit

import (
	"fmt"
	"os"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// The log's files live in a directory an attacker may have written to. A
// link named audit.jsonl or audit.lock would have the hook append to, and
// chmod, whatever it points at (/etc/passwd when it runs as root); a FIFO
// would hang the reader while it holds the append lock; a device such as
// /dev/zero would never end. internal/regular opens them without following
// a link and without blocking, refuses anything but a regular file of the
// user's that nobody else can write, and reads to a bound; the home itself
// is created and checked by internal/home.

// errNotRegular is wrapped by the error for a log file that is not a
// regular file.
var errNotRegular = regular.ErrNotRegular

// Bounds on whole-file reads.
const (
	maxHeadBytes   = 1 << 20
	maxLedgerBytes = 256 << 20
	maxAnchorBytes = 256 << 20
)

func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	return regular.OpenState(path, flag, perm)
}

// readRegular reads a whole regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := regular.ReadAll(f, max+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file this log writes", path, max)
	}
	return b, nil
}

// makeHome creates the home (0700) when it is missing and checks that it
// is the user's alone.
func makeHome(dir string) error { return home.Make(dir) }
