package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// TestEgressRefusesAConnectionItCannotRecord: the decision's record comes
// before the effect. A decision Record cannot write refuses the
// connection, an allow included, naming the cause and the fix, and the
// host sees nothing; AIRLOCK_FAIL_OPEN=1 lets it through; written but not
// checkpointed is recorded.
func TestEgressRefusesAConnectionItCannotRecord(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("hello"))
	}))
	defer srv.Close()
	target := strings.TrimPrefix(srv.URL, "http://")
	full := fmt.Errorf("append to /h/audit.jsonl: %w", syscall.ENOSPC)
	for _, tc := range []struct {
		name     string
		err      error
		failOpen bool
		want     int
		says     string
	}{
		{"disk full", full, false, 403, "the disk is full (ENOSPC)"},
		{"permission", fmt.Errorf("open /h/audit.jsonl: %w", syscall.EACCES), false, 403, "permission denied (EACCES)"},
		{"read-only", fmt.Errorf("open /h/audit.jsonl: %w", syscall.EROFS), false, 403, "read-only (EROFS)"},
		{"fail open", full, true, 200, "hello"},
		{"written, not checkpointed", fmt.Errorf("%w: %w", audit.ErrCheckpoint, syscall.ENOSPC), false, 200, "hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var recs egressRecords
			getenv := func(k string) string {
				if k == "AIRLOCK_FAIL_OPEN" && tc.failOpen {
					return "1"
				}
				return ""
			}
			e, _ := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t), Home: "/h", Getenv: getenv,
				Record: func(r audit.Record) error {
					_ = recs.add(r)
					if r.Event == "egress" {
						return tc.err
					}
					return nil
				}})
			before := hits.Load()
			for _, method := range []string{"GET", "CONNECT"} {
				var resp *http.Response
				var body string
				if method == "GET" {
					resp, body = egressRaw(t, e.Addr(), "GET "+srv.URL+"/x HTTP/1.1\r\nHost: "+target+"\r\nConnection: close\r\n\r\n")
				} else {
					resp, body = egressConnectHead(t, e.Addr(), target)
				}
				if resp.StatusCode != tc.want || !strings.Contains(body, tc.says) {
					t.Errorf("%s: %d %q, want %d with %q", method, resp.StatusCode, body, tc.want, tc.says)
				}
				if tc.want == 403 && (!strings.Contains(body, "fix: ") || !strings.Contains(body, "AIRLOCK_FAIL_OPEN=1") || resp.Header.Get("X-Airlock-Rule") != "audit-unwritable") {
					t.Errorf("%s: refusal %q (rule %q) names no fix", method, body, resp.Header.Get("X-Airlock-Rule"))
				}
			}
			if tc.want == 403 && hits.Load() != before {
				t.Errorf("the host was reached by a connection whose decision was not recorded")
			}
			if e.RecordErr() == nil {
				t.Errorf("RecordErr is nil after a failed record")
			}
		})
	}
}

// egressConnectHead asks for a tunnel and reads the proxy's answer: the
// refusal's body, or "hello" for a tunnel that opened (what goes through
// it is the client's).
func egressConnectHead(t *testing.T, addr, target string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial proxy: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("read the proxy's answer to CONNECT %s: %v", target, err)
	}
	if resp.StatusCode == 200 {
		return resp, "hello"
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
