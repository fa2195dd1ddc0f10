package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/home"
)

// errChanged is the cause when a file changed between the moment Airlock
// read it and the moment it would have replaced it: the other writer's
// change wins, and Airlock's edit is not made.
var errChanged = errors.New("changed while airlock was editing it; run the command again")

// fileState is a config file as read: where it is, where it really is
// (symlinks resolved: the link stays a link, its target is edited), its
// bytes and its mode.
type fileState struct {
	path   string
	real   string
	exists bool
	data   []byte
	mode   fs.FileMode
	info   fs.FileInfo
}

// keptMode is the part of a file's mode a rewrite keeps.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// readState reads path through any symlink. A missing file is not an
// error (exists is false); a dangling link, a directory or a file over
// MaxFileSize is.
func readState(path string) (*fileState, error) {
	f := &fileState{path: path, real: path}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
		f.real = real
	case errors.Is(err, fs.ErrNotExist):
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: a symlink to a file that does not exist", path)
		}
		return f, nil
	default:
		return nil, err
	}
	fi, err := os.Stat(f.real)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	if f.data, err = os.ReadFile(f.real); err != nil {
		return nil, err
	}
	f.exists, f.mode, f.info = true, fi.Mode()&keptMode, fi
	return f, nil
}

// commit replaces the file f was read from with data, mode mode, by a
// temp file in the same directory and a rename: a reader sees the old
// file or the new one, never half. The owner is kept when the process may
// set it. Just before the rename the file is read again: if it is no
// longer what f read (or, for a new file, if one appeared), nothing is
// replaced and the error is ErrChanged. hook, when set, runs at that
// moment (tests use it to play the other writer).
func commit(f *fileState, data []byte, mode fs.FileMode, hook func(string)) error {
	dir := filepath.Dir(f.real)
	if !f.exists {
		// A file others are to read (a managed config, init --system)
		// gets directories they can pass; a user's stay the user's.
		dirMode := fs.FileMode(0o700)
		if mode&0o044 != 0 && mode&0o022 == 0 {
			dirMode = 0o755
		}
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.real)+".airlock-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	steps := []func() error{
		func() error { _, err := tmp.Write(data); return err },
		func() error { return tmp.Chmod(mode) },
		func() error { keepOwner(tmp, f.info); return nil },
		tmp.Sync,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if hook != nil {
		hook(f.real)
	}
	now, err := os.ReadFile(f.real)
	switch {
	case f.exists && (err != nil || !bytes.Equal(now, f.data)):
		return fmt.Errorf("%s: %w", f.path, errChanged)
	case !f.exists && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", f.path, errChanged)
	}
	if err := os.Rename(tmp.Name(), f.real); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// remove deletes the file f was read from, if it is still what f read.
func remove(f *fileState) error {
	now, err := os.ReadFile(f.real)
	if err != nil || !bytes.Equal(now, f.data) {
		return fmt.Errorf("%s: %w", f.path, errChanged)
	}
	return os.Remove(f.real)
}

// writeNew writes a file that must not exist yet (a backup): never
// overwritten, mode 0600.
func writeNew(path string, data []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// writeAtomic replaces an Airlock state file (the manifest, policy.yaml)
// in airlockHome, mode 0600, in a directory created 0700. Unlike the
// agents' config files it is never written through a link: a link there
// is refused (internal/atomicfile.WriteState).
func writeAtomic(airlockHome, path string, data []byte) error {
	if err := home.MakeDir(airlockHome, filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.WriteState(path, data, 0o600)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
}
