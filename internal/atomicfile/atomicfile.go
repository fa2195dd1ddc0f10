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
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Rename(tmp, path); err != nil {
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

// Create writes data to path, which must not exist, so that a reader
// never sees half of it: temp file beside path, sync, then a hard link to
// the name, which fails if the name exists (the check and the write are
// one step, no race with a file appearing meanwhile). Where the file
// system has no hard links it falls back to O_EXCL and a direct write:
// still never a replace. An existing path gives an error that
// errors.Is(err, fs.ErrExist).
func Create(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("write %s: %w", path, fs.ErrExist)
	}
	// no hard links here (FAT, some network file systems): create the
	// name exclusively and write into it
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}

// writeTemp writes data, with mode, to a new temp file beside path
// (O_EXCL: never an existing file or link) and syncs it; the caller
// renames or links it into place and removes the name after.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	for _, step := range []func() error{
		func() error { _, err := tmp.Write(data); return err },
		func() error { return tmp.Chmod(mode) },
		tmp.Sync,
		tmp.Close,
	} {
		if err := step(); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
	return tmp.Name(), nil
}
