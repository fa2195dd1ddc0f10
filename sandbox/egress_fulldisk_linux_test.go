//go:build linux

package sandbox

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// egressTmpfs mounts a small tmpfs at dir for the test. It needs root (the
// machine and CI run the tests as root) and fails, never skips, without it.
func egressTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test mounts a %s tmpfs as a full disk and needs root (CI runs as root): run it as root", size)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a tmpfs at %s: %v\n%s", dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", dir, err, out)
		}
	})
}

// egressFill writes path until the file system says it is full.
func egressFill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for _, chunk := range []int{4096, 1} {
		for {
			if _, err := f.Write(buf[:chunk]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill %s: %v", path, err)
				}
				break
			}
		}
	}
}

// TestEgressOnAFullDiskRefusesWithTheCause: the audit log on a full disk
// (a small tmpfs home): every connection is refused naming the disk and
// the fix, and the host sees none; AIRLOCK_FAIL_OPEN=1 lets them through.
func TestEgressOnAFullDiskRefusesWithTheCause(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	egressTmpfs(t, home, "256k")
	log, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("hello"))
	}))
	defer srv.Close()
	target := strings.TrimPrefix(srv.URL, "http://")
	var failOpen atomic.Bool
	e, _ := startEgress(t, EgressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t), Home: home,
		Getenv: func(k string) string {
			if k == "AIRLOCK_FAIL_OPEN" && failOpen.Load() {
				return "1"
			}
			return ""
		},
		Record: func(r audit.Record) error { _, err := log.Append(r); return err }})
	get := func() (int, string) {
		resp, body := egressRaw(t, e.Addr(), "GET "+srv.URL+"/x HTTP/1.1\r\nHost: "+target+"\r\nConnection: close\r\n\r\n")
		return resp.StatusCode, body
	}
	if code, body := get(); code != 200 || body != "hello" {
		t.Fatalf("before the disk filled: %d %q", code, body)
	}
	egressFill(t, filepath.Join(home, "filler"))
	// the log's last page may still hold a few records: what is served
	// until it is full has its record
	for i := 0; ; i++ {
		if i == 50 {
			t.Fatalf("50 connections served on a full disk")
		}
		served := hits.Load()
		code, _ := get()
		if code == 403 {
			break
		}
		if hits.Load() == served {
			t.Fatalf("answered %d without reaching the host", code)
		}
		n := 0
		if err := audit.Each(home, func(en audit.Entry) error {
			if r := en.Record; r.Event == "egress" && r.Target == target {
				n++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != i+2 {
			t.Fatalf("connection %d served on a full disk with %d decisions recorded", i+2, n)
		}
	}
	before := hits.Load()
	for i := range 5 {
		code, body := get()
		if code != 403 || !strings.Contains(body, "the disk is full (ENOSPC)") || !strings.Contains(body, "fix: free space on the file system holding "+home) {
			t.Errorf("call %d on a full disk: %d %q, want 403 naming the full disk and the fix", i, code, body)
		}
		resp, body := egressConnectHead(t, e.Addr(), target)
		if resp.StatusCode != 403 || !strings.Contains(body, "ENOSPC") {
			t.Errorf("CONNECT %d on a full disk: %d %q, want 403 naming the full disk", i, resp.StatusCode, body)
		}
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("the host was reached %d times on a full disk with nothing recorded", n)
	}
	failOpen.Store(true)
	if code, body := get(); code != 200 || body != "hello" {
		t.Errorf("AIRLOCK_FAIL_OPEN=1 on a full disk: %d %q, want the host's answer", code, body)
	}
}
