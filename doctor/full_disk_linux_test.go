//go:build linux

package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// smallTmpfs mounts a 64 KiB tmpfs for the test and unmounts it after.
// Mounting needs root, which this machine and CI have; elsewhere the test
// fails saying so rather than skip.
func smallTmpfs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test mounts a 64 KiB tmpfs to fill a disk and needs root (CI runs as root): run go test as root")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Fatalf("mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes to path until the file system is full and returns how much
// it wrote.
func fill(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1024)
	total := 0
	for {
		n, err := f.Write(buf)
		total += n
		if errors.Is(err, syscall.ENOSPC) {
			return total
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAuditCheckFailsOnFullDisk: doctor said "ok" for the audit log on a
// full disk (issue 14), because creating an empty file still works there.
// The check now proves a record can be appended, without adding one.
func TestAuditCheckFailsOnFullDisk(t *testing.T) {
	home := filepath.Join(smallTmpfs(t), "airlock")
	l, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(audit.Record{Event: "decision", Source: "hook", Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if c := checkAudit(home); c.Status != OK {
		t.Fatalf("with room: %+v", c)
	}
	before, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(filepath.Dir(home), "filler")
	fill(t, filler)

	c := checkAudit(home)
	if c.Status != Fail || !strings.Contains(strings.Join(c.Items, "\n"), "the disk is full") || !strings.Contains(c.Fix, "free space") {
		t.Fatalf("on a full disk: %+v", c)
	}
	after, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("the check changed the log")
	}
	if des, _ := os.ReadDir(home); len(des) == 0 || hasProbe(des) {
		t.Fatalf("probe left behind: %v", des)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if c := checkAudit(home); c.Status != OK {
		t.Fatalf("after freeing space: %+v", c)
	}
}

func hasProbe(des []os.DirEntry) bool {
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".doctor-probe-") {
			return true
		}
	}
	return false
}
