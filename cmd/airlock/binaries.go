package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/policy"
)

// recordBinaries writes the gate's binaries into the Airlock home
// (policy.BinariesFile), so the hook protects them wherever they are
// installed without reading the agents' configs on the call path. airlock
// itself is recorded beside the hook and the proxy. A failure is said on
// w and changes nothing else: the name-shaped forbid still protects the
// usual installs.
func recordBinaries(w io.Writer, airlockHome, hook, mcp string) {
	self, _ := os.Executable()
	data := policy.BinariesRecord(hook, mcp, self)
	if data == nil {
		return
	}
	if err := writeRecord(filepath.Join(airlockHome, policy.BinariesFile), data); err != nil {
		fmt.Fprintf(w, "warning: record binaries: %v\n", err)
	}
}

// writeRecord puts one of the small files the hook reads (the recorded
// binaries, the feed's hosts) into the Airlock home: nil data removes it,
// an unchanged one is not rewritten.
func writeRecord(path string, data []byte) error {
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	}
	if old, err := regular.ReadState(path, int64(len(data))+1); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
