// Package atomicfile replaces files so that a reader never sees half of
// one: a truncated policy or contract could parse as a weaker one.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/home"
)

// Write replaces path with data by temp file, sync and rename, with the
// given mode. A path that is a symlink is written through: the link stays
// a link.
func Write(path string, data []byte, mode os.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return replace(path, data, mode)
}

// replace writes data to a new temp file beside path (O_EXCL: never an
// existing file or link) and renames it over path.
func replace(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	for _, step := range []func() error{
		func() error { _, err := tmp.Write(data); return err },
		func() error { return tmp.Chmod(mode) },
		tmp.Sync,
	} {
		if err := step(); err != nil {
			tmp.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteState replaces one of Airlock's own files (policy, pins, contracts,
// checkpoints) by temp file, sync and rename. Unlike Write it never writes
// through a link: a link, a file that is not regular, or a file another
// user owns or can write is refused (internal/home.File), and the rename
// replaces the name itself, so a link that appears after the check is
// replaced, not followed.
func WriteState(path string, data []byte, mode os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil {
		if err := home.File(path, fi); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return replace(path, data, mode)
}
