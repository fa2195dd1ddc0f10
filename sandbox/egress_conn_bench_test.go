package sandbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// BenchmarkEgressConnection is one plain-HTTP request on a connection of
// its own through the proxy to a loopback server, recorded into a real
// audit log (AIRLOCK_AUDIT_FSYNC as the environment says): what a
// connection's records cost on top of the relay.
func BenchmarkEgressConnection(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	defer srv.Close()
	log, err := audit.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	e, err := StartEgress(egressOptions{Policy: egressPolicy(b), Record: func(r audit.Record) error { _, err := log.Append(r); return err }})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tr := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: e.Addr()}), DisableKeepAlives: true}
	c := &http.Client{Transport: tr}
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Get(srv.URL + "/")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
