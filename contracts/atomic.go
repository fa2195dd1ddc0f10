package contracts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/flock"
)

// LockName is the cross-process lock file in $AIRLOCK_HOME that guards
// footprints.json and the contracts file while Airlock edits them.
const LockName = "footprints.lock"

// withLock runs f holding the exclusive lock in airlockHome, creating the
// directory (0700) and the lock file (0600) when needed.
func withLock(airlockHome string, f func() error) (err error) {
	if err := os.MkdirAll(airlockHome, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", airlockHome, err)
	}
	name := filepath.Join(airlockHome, LockName)
	lf, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
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

// writeAtomic replaces path by temp file, sync and rename, so a reader
// never sees half a file (a truncated contract could parse as a weaker
// one). A path that is a symlink is written through: the link stays.
func writeAtomic(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
