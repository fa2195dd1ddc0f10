package remote

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// rawServer is a hand-written streamable HTTP server: the test decides
// each answer.
type rawServer struct {
	mu     sync.Mutex
	inits  int
	bodies []string
	cut    bool // the next tools/call's stream is cut before its answer
	linger bool // streams stay open after their answer
}

func (s *rawServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(r.Body)
	m := gjson.ParseBytes(b)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	cut := s.cut
	s.mu.Unlock()
	id := m.Get("id").Raw
	switch m.Get("method").String() {
	case "initialize":
		s.mu.Lock()
		s.inits++
		n := s.inits
		s.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("session-%d", n))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}`, id)
	case "tools/call":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		// a server request first, with the very id of the call in flight
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"sampling/createMessage\",\"params\":{}}\n\n", id)
		w.(http.Flusher).Flush()
		if cut {
			s.mu.Lock()
			s.cut = false
			s.mu.Unlock()
			// the connection dies before the answer
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n", id)
		s.mu.Lock()
		linger := s.linger
		s.mu.Unlock()
		if linger {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	default:
		if m.Get("id").Exists() {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, id)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

func readLines(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	var out []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(out) < n {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			out = append(out, strings.TrimSpace(l))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("got %d lines of %d: %q", len(out), n, out)
	}
	return out
}

// A server request carrying the id of a call in flight is a request, not
// the call's answer; a stream cut before the answer answers the call with
// an error (the proxy first told the tools may have changed), is not sent
// again, and the next message re-initialises the session first.
func TestBrokenStreamAnsweredNotResent(t *testing.T) {
	s := &rawServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	b := newBridge(t, Options{Name: "raw", URL: srv.URL})
	w := b.c.ToServer()
	io.WriteString(w, initMsg+"\n")
	readLines(t, b.out, 1)
	io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	io.WriteString(w, `{"jsonrpc":"2.0","id":1e0,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	got := readLines(t, b.out, 2)
	if !strings.Contains(got[0], "sampling/createMessage") || !strings.Contains(got[1], `"text":"ok"`) {
		t.Fatalf("a server request with the call's id, then the answer: %q", got)
	}

	s.mu.Lock()
	s.cut = true
	s.mu.Unlock()
	io.WriteString(w, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	got = readLines(t, b.out, 3)
	if !strings.Contains(got[0], "sampling/createMessage") || got[1] != listChanged {
		t.Fatalf("before the error: %q", got)
	}
	ans := gjson.Parse(got[2])
	if ans.Get("id").Raw != "2" || !ans.Get("result.isError").Bool() || !strings.Contains(ans.Get("result.content.0.text").String(), "was not sent again") {
		t.Fatalf("the cut call's answer: %s", got[2])
	}

	io.WriteString(w, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`+"\n")
	if got = readLines(t, b.out, 1); gjson.Get(got[0], "id").Raw != "3" {
		t.Fatalf("after the break: %q", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	calls2 := 0
	for _, body := range s.bodies {
		if gjson.Get(body, "id").Raw == "2" {
			calls2++
		}
	}
	if s.inits != 2 || calls2 != 1 {
		t.Fatalf("initialisations %d (want 2), the cut call sent %d times (want 1)", s.inits, calls2)
	}
	found := false
	for _, r := range *b.rec {
		if strings.HasPrefix(r, "mcp_reconnect: re-initialised") {
			found = true
		}
	}
	if !found {
		t.Errorf("the reconnect is not recorded: %q", *b.rec)
	}
}

// A server that keeps a call's stream open after the answer does not
// hold the bridge: the stream is let go once the call is answered.
func TestStreamLetGoAfterItsAnswer(t *testing.T) {
	s := &rawServer{linger: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	b := newBridge(t, Options{Name: "raw", URL: srv.URL})
	w := b.c.ToServer()
	io.WriteString(w, initMsg+"\n")
	readLines(t, b.out, 1)
	for i := 1; i <= 3; i++ {
		io.WriteString(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n", i))
		got := readLines(t, b.out, 2)
		if !strings.Contains(got[1], `"text":"ok"`) {
			t.Fatalf("call %d: %q", i, got)
		}
	}
	w.Close()
	select {
	case <-b.c.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("the bridge did not end after its input, with lingering streams")
	}
}

// Stateless (no initialize): a cut stream still tells the proxy to list
// the tools again, and answers the call with an error.
func TestBrokenStreamStateless(t *testing.T) {
	s := &rawServer{cut: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	b := newBridge(t, Options{Name: "raw", URL: srv.URL})
	io.WriteString(b.c.ToServer(), `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	got := readLines(t, b.out, 3)
	if got[1] != listChanged || !strings.Contains(got[2], "was not sent again") {
		t.Fatalf("%q", got)
	}
	io.WriteString(b.c.ToServer(), `{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	if got = readLines(t, b.out, 2); !strings.Contains(got[1], `"text":"ok"`) {
		t.Fatalf("after the break: %q", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inits != 0 {
		t.Errorf("a stateless client's session was initialised %d times", s.inits)
	}
}
