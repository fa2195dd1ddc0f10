//go:build linux

package sandbox

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentairlock/airlock/internal/fulldisk"

	"github.com/agentairlock/airlock/audit"
)

// TestEgressOnAFullDiskRefusesWithTheCause: the audit log on a full disk
// (a small tmpfs home): every connection is refused naming the disk and
// the fix, and the host sees none; AIRLOCK_FAIL_OPEN=1 lets them through.
func TestEgressOnAFullDiskRefusesWithTheCause(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	fulldisk.MountAt(t, home, "256k")
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
	e, _ := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t), Home: home,
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
	fulldisk.Fill(t, filepath.Join(home, "filler"))
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
