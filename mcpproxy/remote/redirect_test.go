package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

type staticAuth string

func (a staticAuth) Header(context.Context) (string, error) { return string(a), nil }
func (staticAuth) Unauthorized(*http.Response)              {}

// No redirect is followed, on either transport: the target (a host the
// policy never judged) is never reached, so the token is never sent there.
func TestRedirectsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	for _, code := range []int{301, 302, 303, 307, 308} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/mcp", code)
		}))
		for _, tr := range []string{Streamable, SSE} {
			b := newBridge(t, Options{Name: "redir", URL: srv.URL + "/mcp", Transport: tr, Auth: staticAuth("Bearer sk-live-redir")})
			m := b.call(initMsg)
			if !m.Get("error").Exists() {
				t.Errorf("%d %s: %s", code, tr, m.Raw)
			}
		}
		srv.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the redirect's target was reached %d times", n)
	}
}

// The legacy transport's endpoint event cannot move the session to
// another host, scheme or port, however spelled.
func TestLegacyEndpointOnAnotherHostRefused(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	otherHost := strings.TrimPrefix(other.URL, "http://")
	for _, ep := range []string{other.URL + "/messages", "//" + otherHost + "/messages", "https://" + "HOST" + "/messages", "http://HOST@" + otherHost + "/messages", "http://" + otherHost + "#@HOST/messages", " " + other.URL + "/m "} {
		srv := httptest.NewServer(nil)
		host := strings.TrimPrefix(srv.URL, "http://")
		e := strings.ReplaceAll(ep, "HOST", host)
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", e)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		b := newBridge(t, Options{Name: "legacy", URL: srv.URL + "/sse", Transport: SSE, Auth: staticAuth("Bearer sk-live-ep")})
		if m := b.call(initMsg); !strings.Contains(m.Get("error.message").String(), "named the endpoint") {
			t.Errorf("%q: %s", e, m.Raw)
		}
		b.c.Close()
		srv.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("another host was posted to %d times", n)
	}
}

type failingAuth struct{ err error }

func (a failingAuth) Header(context.Context) (string, error) { return "", a.err }
func (failingAuth) Unauthorized(*http.Response)              {}

// TestRefreshErrorNotInTheToolResult: the authorization server is the
// remote server's to name (its metadata), and mcp-go's refresh error
// quotes the body of whatever answered; the model is told to log in, and
// the detail goes to the record, so a server cannot have the bridge fetch
// an internal address and read the answer back through the model.
func TestRefreshErrorNotInTheToolResult(t *testing.T) {
	srv := httptest.NewServer(&rawServer{})
	defer srv.Close()
	auth := failingAuth{fmt.Errorf("refresh token request failed with status 404: internal-page-body-7731")}
	b := newBridge(t, Options{Name: "lin", URL: srv.URL, Auth: auth})
	m := b.call(initMsg)
	if strings.Contains(m.Raw, "internal-page-body-7731") || !strings.Contains(m.Raw, "airlock mcp login lin") {
		t.Fatalf("the answer: %s", m.Raw)
	}
	m = b.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	if strings.Contains(m.Raw, "internal-page-body-7731") || !m.Get("result.isError").Bool() {
		t.Fatalf("the tool result: %s", m.Raw)
	}
	found := false
	for _, r := range *b.rec {
		found = found || strings.Contains(r, "internal-page-body-7731")
	}
	if !found {
		t.Errorf("the detail is in no record: %q", *b.rec)
	}
}

// TestReinitIDNotTheClients: the bridge's own initialize on a
// re-initialisation never takes an id a client's request in flight has:
// the client's answer would be taken for the new session's, and the
// client's call never answered.
func TestReinitIDNotTheClients(t *testing.T) {
	release := make(chan struct{})
	slowDone := make(chan struct{})
	var inits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var body [4096]byte
		n, _ := r.Body.Read(body[:])
		m := gjson.ParseBytes(body[:n])
		id := m.Get("id").Raw
		switch {
		case m.Get("method").String() == "initialize":
			if inits.Add(1) > 1 {
				close(release) // the slow call answers first
				<-slowDone
				time.Sleep(200 * time.Millisecond) // and is read first
			}
			w.Header().Set("Mcp-Session-Id", "s")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`, id)
		case m.Get("params.name").String() == "slow":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-release
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"slow done\"}]}}\n\n", id)
			w.(http.Flusher).Flush()
			close(slowDone)
		case m.Get("params.name").String() == "cut":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case m.Get("id").Exists():
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, id)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	b := newBridge(t, Options{Name: "x", URL: srv.URL})
	w := b.c.ToServer()
	b.call(initMsg)
	fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":"airlock-reinit-1","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	time.Sleep(100 * time.Millisecond) // the slow call is in flight
	b.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cut","arguments":{}}}`)
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	got := map[string]string{}
	for _, l := range readLines(t, b.out, 2) {
		if m := gjson.Parse(l); m.Get("id").Exists() {
			got[m.Get("id").Raw] = l
		}
	}
	if !strings.Contains(got[`"airlock-reinit-1"`], "slow done") {
		t.Fatalf("the client's call with that id: %q", got)
	}
}
