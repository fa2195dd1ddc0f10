//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSignKeysAreReadBounded: every hook reads the signing keys the
// environment names; a FIFO there would hang it and /dev/zero would read
// until memory runs out. Both are refused as not regular files.
func TestSignKeysAreReadBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "key.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(dir, "seed.hex")
	if err := os.WriteFile(seed, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  map[string]string
	}{
		{"private key a FIFO", map[string]string{SignEnv: signModeEd25519, signKeyEnv: fifo}},
		{"verify key a FIFO", map[string]string{SignEnv: signModeEd25519, signKeyEnv: seed, verifyKeyEnv: fifo}},
		{"verify key /dev/zero", map[string]string{SignEnv: signModeEd25519, signKeyEnv: seed, verifyKeyEnv: "/dev/zero"}},
		{"private key /dev/zero", map[string]string{SignEnv: signModeEd25519, signKeyEnv: "/dev/zero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSignConfig(dir, func(k string) string { return c.env[k] })
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("err = %v, want a refusal of a file that is not regular", err)
			}
		})
	}
}
