package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// output is where a command writes a document that a flag names: "-" is
// standard output, as everywhere in the CLI.
type output struct {
	cmd     string      // "airlock report", for messages
	flag    string      // "--html", for messages
	path    string      // the flag's value
	force   bool        // --force: an existing file may be replaced
	newMode os.FileMode // the mode of a file this creates
}

// write writes data to o.path, or to stdout for "-". A file is written
// whole or not at all (temp file, sync, rename). An existing file is
// refused (exit 64 naming the fix) unless --force, and when replaced it
// keeps its mode: a report written over a file someone made private stays
// private. A path that exists and is not a regular file (/dev/null, a
// FIFO) is written into: nothing is replaced.
func (o output) write(stdout io.Writer, data []byte) error {
	if o.path == "-" {
		if _, err := stdout.Write(data); err != nil {
			return exitWith(1, "%s: write stdout: %v", o.cmd, err)
		}
		return nil
	}
	shown := textsafe.Escape(o.path)
	fi, err := os.Stat(o.path) // through a link: its target is what is written
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = atomicfile.Create(o.path, data, o.newMode)
		if errors.Is(err, fs.ErrExist) { // appeared meanwhile, or a dangling link
			return o.exists(shown)
		}
	case err != nil:
		return exitWith(1, "%s: %s %s: %v", o.cmd, o.flag, shown, err)
	case fi.IsDir():
		return exitWith(64, "%s: %s %s is a directory: name a file in it (or - for stdout)", o.cmd, o.flag, shown)
	case !fi.Mode().IsRegular():
		err = writeInto(o.path, data)
	case !o.force:
		return o.exists(shown)
	default:
		err = atomicfile.Write(o.path, data, fi.Mode().Perm())
	}
	if err != nil {
		return exitWith(1, "%s: %v", o.cmd, err)
	}
	return nil
}

func (o output) exists(shown string) error {
	return exitWith(64, "%s: %s %s already exists: add --force to replace it (its mode is kept), name another file, or write to stdout with %s -", o.cmd, o.flag, shown, o.flag)
}

// writeInto writes data into an existing file that is not regular.
func writeInto(path string, data []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}
