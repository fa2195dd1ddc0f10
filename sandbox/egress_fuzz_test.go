package sandbox

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzEgressRequest throws arbitrary bytes at the proxy, whose decider
// refuses every host. Whatever arrives, the proxy must not panic, must not
// resolve or dial anything, must never answer 2xx, and must go on serving.
func FuzzEgressRequest(f *testing.F) {
	for _, s := range []string{
		"CONNECT example.com:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT 0x7f.1:80 HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT /x HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
		"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET http://user:pw@ok.com@169.254.169.254/ HTTP/1.1\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nConnection: Host\r\n\r\nGET http://b/ HTTP/1.1\r\n\r\n",
		"\x00\xff\r\n\r\n",
		"CONNECT a:1 HTTP/9.9\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		f.Add(s)
	}
	var lookups atomic.Int64
	e, err := StartEgress(egressOptions{
		Decide: func(string, int, string) (bool, string, string) { return false, "fuzz.refuse", "refused" },
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			lookups.Add(1)
			return nil, errors.New("no lookups")
		},
	})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	f.Fuzz(func(t *testing.T, req string) {
		c, err := net.Dial("tcp", e.Addr())
		if err != nil {
			t.Fatalf("dial proxy: %v", err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.WriteString(c, req)
		_ = c.(*net.TCPConn).CloseWrite()
		br := bufio.NewReader(c)
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				break
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 300 {
				t.Fatalf("%q: the proxy answered %d with every host refused", req, resp.StatusCode)
			}
		}
		if n := lookups.Load(); n != 0 {
			t.Fatalf("%q: the proxy resolved a refused host", req)
		}
		resp, body := egressRaw(t, e.Addr(), "GET / HTTP/1.1\r\nHost: airlock\r\n\r\n")
		if resp.StatusCode != 400 || !strings.Contains(body, "request to the proxy itself") {
			t.Fatalf("after %q the proxy answers %d %q", req, resp.StatusCode, body)
		}
	})
}
