//go:build linux

// Package fulldisk gives tests a real full disk: a small tmpfs mounted for
// the test, and a way to fill it. It is imported by tests only (audit,
// doctor, e2e, sandbox), never by a binary.
package fulldisk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes (mode 0700) at a new directory under
// t.TempDir and unmounts it when the test ends. Mounting needs root, which
// this machine and CI have; elsewhere the test fails saying so, it never
// skips.
func Mount(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	MountAt(t, dir, size)
	return dir
}

// MountAt is Mount at dir, which is made if it is missing.
func MountAt(t testing.TB, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test mounts a %s tmpfs as a full disk and needs root (CI runs as root): run go test as root", size)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Fatalf("mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}

// Fill writes path until the file system says it is full, in 4 KiB
// writes and then byte by byte, so not even a partial block is left; it
// returns how much it wrote.
func Fill(t testing.TB, path string) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	total := 0
	for _, chunk := range []int{4096, 1} {
		for {
			n, err := f.Write(buf[:chunk])
			total += n
			if err == nil {
				continue
			}
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", path, err)
			}
			break
		}
	}
	return total
}
