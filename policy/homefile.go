package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// loadExplicit loads the policy AIRLOCK_POLICY names. The user chose the
// path (links are followed), but a file another user owns or can write
// would let them steer the gate: it is refused. The check is made on the
// file opened, by its descriptor, not on an earlier look at the path: a
// file swapped in between (by whoever can write a directory on the way,
// or retarget a link there) would be read unchecked.
func loadExplicit(path string, vars Vars) (*Policy, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	open := func(p string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := regular.Open(p, flag, perm)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil {
			err = home.Trusted(p, fi)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	data, err := readPolicyFile(abs, open)
	if err != nil {
		var unsafe *home.UnsafeError
		if errors.As(err, &unsafe) {
			return nil, fmt.Errorf("AIRLOCK_POLICY: %w", unsafe)
		}
		return nil, err
	}
	return parse(data, abs, "policy", vars)
}
