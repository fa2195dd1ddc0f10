//go:build linux

package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/fulldisk"

	"github.com/agentairlock/airlock/audit"
)

// TestAuditCheckFailsOnFullDisk: doctor said "ok" for the audit log on a
// full disk (issue 14), because creating an empty file still works there.
// The check now proves a record can be appended, without adding one.
func TestAuditCheckFailsOnFullDisk(t *testing.T) {
	home := filepath.Join(fulldisk.Mount(t, "64k"), "airlock")
	l, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(audit.Record{Event: "decision", Source: "hook", Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if c := checkAudit(home, audit.VerifyOptions{}); c.Status != OK {
		t.Fatalf("with room: %+v", c)
	}
	before, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(filepath.Dir(home), "filler")
	fulldisk.Fill(t, filler)

	c := checkAudit(home, audit.VerifyOptions{})
	if c.Status != fail || !strings.Contains(strings.Join(c.Items, "\n"), "the disk is full") || !strings.Contains(c.Fix, "free space") {
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
	if c := checkAudit(home, audit.VerifyOptions{}); c.Status != OK {
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
