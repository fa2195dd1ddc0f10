package remote

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestGuardJudgesTheDialledAddress: the policy judged --url's name before
// the bridge started; a name that resolves (or later rebinds) to a refused
// address must still be refused, so the address actually dialled is judged
// again at connect time, after DNS, on every connection.
func TestGuardJudgesTheDialledAddress(t *testing.T) {
	var hits atomic.Int32
	s := &rawServer{}
	srv := httptest.NewServer(countHits(&hits, s))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var judged []string
	guard := func(host string, _ int) error {
		judged = append(judged, host)
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return errors.New("refused by the policy (test: loopback)")
		}
		return nil
	}
	b := newBridge(t, Options{Name: "rebind", URL: "http://localhost:" + port + "/mcp", HTTP: NewGuardedHTTPClient(guard)})
	m := b.call(initMsg)
	if !strings.Contains(m.Get("error.message").String(), "refused by the policy") {
		t.Fatalf("a name resolving to a refused address: %s", m.Raw)
	}
	if hits.Load() != 0 {
		t.Fatalf("the server was reached %d times", hits.Load())
	}
	if len(judged) == 0 || net.ParseIP(judged[0]) == nil {
		t.Fatalf("the guard judged %q, not the resolved address", judged)
	}
}

// TestGuardJudgesTheProxy: a proxy from the environment (HTTPS_PROXY in
// a poisoned config's env) is a destination too; a refused one is not used.
func TestGuardJudgesTheProxy(t *testing.T) {
	guard := func(host string, _ int) error {
		if host == "collector.invalid" {
			return errors.New("refused by the policy (test: collector)")
		}
		return nil
	}
	// as http.ProxyFromEnvironment would answer for HTTP_PROXY (which it
	// reads once per process, so the test sets the function itself)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: "collector.invalid:8080"})
	guardTransport(tr, guard)
	b := newBridge(t, Options{Name: "proxied", URL: "http://mcp.example.com/mcp", HTTP: &http.Client{Transport: tr}})
	m := b.call(initMsg)
	if !strings.Contains(m.Get("error.message").String(), "refused by the policy") {
		t.Fatalf("a refused proxy: %s", m.Raw)
	}
}

func countHits(n *atomic.Int32, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

// TestGetStreamReopeningBacksOff: a server that accepts the GET stream
// and ends it at once (or names retry: 0) gets it reopened with a growing
// wait, not once a second forever, each reopening an audit record.
func TestGetStreamReopeningBacksOff(t *testing.T) {
	var gets atomic.Int32
	s := &rawServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets.Add(1)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			_, _ = w.Write([]byte("retry: 0\n\n"))
			return // and the stream ends
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c, err := New(Options{Name: "flap", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	c.reopenWait = 10 * time.Millisecond
	var mu sync.Mutex
	recs := 0
	c.SetRecord(func(e, _ string) {
		if e == "mcp_reconnect" {
			mu.Lock()
			recs++
			mu.Unlock()
		}
	})
	c.Start()
	defer c.Close()
	b := &bridge{t: t, c: c, out: bufio.NewReader(c.FromServer())}
	b.call(initMsg)
	time.Sleep(700 * time.Millisecond)
	// with a fixed 10ms wait: ~70 reopenings; doubling: 10+20+…+640ms, 7
	if n := gets.Load(); n > 12 {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the stream was reopened %d times in 0.7s (%d records)", n, recs)
	}
}

// TestQueryKeyNotInErrors: a key in --url's query (?api_key=…) is kept
// out of records (Describe) and must stay out of what a failed request
// says too: Go's errors name the URL whole, and the error reaches the
// model's tool result and the audit record of the break.
func TestQueryKeyNotInErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	b := newBridge(t, Options{Name: "keyed", URL: "http://" + addr + "/mcp?api_key=sk-live-qq42"})
	m := b.call(initMsg)
	if !m.Get("error").Exists() || strings.Contains(m.Raw, "sk-live-qq42") {
		t.Fatalf("the answer: %s", m.Raw)
	}
	m = b.call(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	if !m.Get("result.isError").Bool() || strings.Contains(m.Raw, "sk-live-qq42") {
		t.Fatalf("the tool result: %s", m.Raw)
	}
	time.Sleep(50 * time.Millisecond)
	for _, r := range *b.rec {
		if strings.Contains(r, "sk-live-qq42") {
			t.Errorf("a record: %s", r)
		}
	}
}

// TestIDKeyBoundedWork: an id is spelled in a few bytes but a big.Rat of
// 1e1000000 is a million digits (a third of a second a message, from a
// server that sends such ids in its answers); an exponent past what any
// id needs is keyed by its float64 value instead, as the proxy keys it.
// Ids that are equal stay equal and long ids stay two.
func TestIDKeyBoundedWork(t *testing.T) {
	for _, raw := range []string{"1e1000000", "-1e999999", "1e-1000000", "123e+700000"} {
		if k := idKey(gjson.Parse(raw)); len(k) > 64 || k == "" {
			t.Errorf("%s: a key of %d bytes", raw, len(k))
		}
	}
	same := [][2]string{{"1", "1e0"}, {"1", "1.0"}, {"100", "1e2"}, {"1e1000000", "10e999999"}, {"0", "-0"}}
	for _, p := range same {
		if idKey(gjson.Parse(p[0])) != idKey(gjson.Parse(p[1])) {
			t.Errorf("%s and %s are one id", p[0], p[1])
		}
	}
	two := [][2]string{{"9007199254740993", "9007199254740992"}, {"1", `"1"`}, {"12345678901234567890123", "12345678901234567890124"}}
	for _, p := range two {
		if idKey(gjson.Parse(p[0])) == idKey(gjson.Parse(p[1])) {
			t.Errorf("%s and %s are two ids", p[0], p[1])
		}
	}
}
