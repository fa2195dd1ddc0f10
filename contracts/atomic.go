package contracts

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// lockName is the cross-process lock file in $AIRLOCK_HOME that guards
// footprints.json and the contracts file while Airlock edits them.
const lockName = "footprints.lock"

// withLock runs f holding the exclusive lock in airlockHome, creating the
// directory (0700) and the lock file (0600) when needed.
func withLock(airlockHome string, f func() error) (err error) {
	if err := home.Make(airlockHome); err != nil {
		return fmt.Errorf("create %s: %w", airlockHome, err)
	}
	name := filepath.Join(airlockHome, lockName)
	lf, err := regular.OpenState(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock %s: %w", name, err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return err
	}
	defer func() {
		if uerr := flock.Unlock(lf); uerr != nil && err == nil {
			err = uerr
		}
	}()
	return f()
}

// writeAtomic replaces path so that a reader never sees half a file (a
// truncated contract could parse as a weaker one); a link there is refused,
// never written through.
func writeAtomic(path string, data []byte) error {
	return atomicfile.WriteState(path, data, 0o600)
}

// maxFileBytes bounds the contracts and footprints files.
const maxFileBytes = 64 << 20
