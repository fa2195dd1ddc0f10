package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentairlock/airlock/policy"
)

func TestEgressCapRefusesTheNextConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	e, recs := startEgress(t, egressOptions{
		Decide: func(string, int, string) (bool, string, string) { return true, "test", "allowed" },
		// any spelling of the host names it: 0x7f.1 is 127.0.0.1
		MaxBytesOut: map[string]int64{"0x7f.1": 1000},
	})
	c := egressClient(e, nil)
	resp, err := c.Post(srv.URL, "text/plain", strings.NewReader(strings.Repeat("x", 5000)))
	if err != nil {
		t.Fatalf("first POST: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("first POST got %d: an open connection is never cut, the cap applies from the next", resp.StatusCode)
	}
	code, body, h := egressGet(t, c, srv.URL)
	if code != 403 || h.Get("X-Airlock-Rule") != egressRuleMaxBytesOut || !strings.Contains(body, "cap 1000") {
		t.Errorf("after the cap: got %d %q %q, want 403 %s", code, h.Get("X-Airlock-Rule"), body, egressRuleMaxBytesOut)
	}
	c.CloseIdleConnections()
	_ = e.Close()
	var allowed, capped int
	for _, rec := range recs.all() {
		switch {
		case rec.Effective == "allow" && egressDetailInt(t, rec, "bytes_out") >= 5000:
			allowed++
		case rec.Rule == egressRuleMaxBytesOut:
			capped++
		}
	}
	if allowed != 1 || capped != 1 {
		t.Errorf("records %+v: want one allowed POST with its bytes and one capped GET", recs.all())
	}
}

func TestEgressAnswersMalformedRequestsWith400(t *testing.T) {
	e, _ := startEgress(t, egressOptions{
		Decide: func(h string, _ int, _ string) (bool, string, string) {
			return false, "test.refuse", "all refused: " + h
		},
		Lookup: egressNoLookup(t),
	})
	cases := []struct {
		req  string
		want int
	}{
		{"GET / HTTP/1.1\r\nHost: " + e.Addr() + "\r\n\r\n", 400}, // to the proxy itself
		{"GET /index.html HTTP/1.0\r\n\r\n", 400},
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"CONNECT example.com HTTP/1.1\r\n\r\n", 400}, // no port
		{"CONNECT example.com:0 HTTP/1.1\r\n\r\n", 400},
		{"CONNECT example.com:99999 HTTP/1.1\r\n\r\n", 400},
		{"CONNECT :443 HTTP/1.1\r\n\r\n", 400},
		{"CONNECT /path HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 400},
		{"CONNECT a b c HTTP/1.1\r\n\r\n", 400},
		{"CONNECT exa%00mple.com:443 HTTP/1.1\r\n\r\n", 400},
		{"GET ftp://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 400},
		{"GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 400},
		{"GET http://[::1/ HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET http://%zz/ HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GARBAGE\r\n\r\n", 400},
		{"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400},
		{"GET http://example.com/ HTTP/1.1\r\nX: " + strings.Repeat("a", 2*egressMaxHeaderBytes) + "\r\n\r\n", 431},
		{"CONNECT " + e.Addr() + " HTTP/1.1\r\n\r\n", 403}, // refused by Decide before the loop check
	}
	for _, tc := range cases {
		resp, body := egressRaw(t, e.Addr(), tc.req)
		if resp.StatusCode != tc.want {
			t.Errorf("%q: got %d %q, want %d", egressClip(tc.req, 80), resp.StatusCode, body, tc.want)
		}
	}
	// The proxy still serves after all of that.
	if resp, _ := egressRaw(t, e.Addr(), "CONNECT example.com:443 HTTP/1.1\r\n\r\n"); resp.StatusCode != 403 {
		t.Errorf("after malformed requests: got %d, want the refusal 403", resp.StatusCode)
	}
}

func TestEgressRefusesALoopToItself(t *testing.T) {
	e, _ := startEgress(t, egressOptions{Decide: func(string, int, string) (bool, string, string) { return true, "", "" }})
	for _, req := range []string{
		"CONNECT " + e.Addr() + " HTTP/1.1\r\n\r\n",
		"GET http://" + e.Addr() + "/ HTTP/1.1\r\nHost: " + e.Addr() + "\r\n\r\n",
	} {
		resp, body := egressRaw(t, e.Addr(), req)
		if resp.StatusCode != 400 || !strings.Contains(body, egressRuleProxyLoop) {
			t.Errorf("%q: got %d %q, want 400 %s", req, resp.StatusCode, body, egressRuleProxyLoop)
		}
	}
}

func TestEgressServesConcurrentClientsDespiteAStalledOne(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	defer srv.Close()
	plain := httptest.NewServer(srv.Config.Handler)
	defer plain.Close()
	e, recs := startEgress(t, egressOptions{Decide: func(string, int, string) (bool, string, string) { return true, "test", "" }})
	// A client that sends half a request line and stops.
	stalled, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	_, _ = io.WriteString(stalled, "CONNECT exa")
	// And a tunnel that is open and silent.
	silent, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	_, _ = io.WriteString(silent, "CONNECT "+strings.TrimPrefix(plain.URL, "http://")+" HTTP/1.1\r\n\r\n")

	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			c := egressClient(e, srv.Client().Transport.(*http.Transport).TLSClientConfig)
			defer c.CloseIdleConnections()
			errs <- egressFetch(c, fmt.Sprintf("%s/tls/%d", srv.URL, i))
		}()
		go func() {
			defer wg.Done()
			c := egressClient(e, nil)
			defer c.CloseIdleConnections()
			errs <- egressFetch(c, fmt.Sprintf("%s/plain/%d", plain.URL, i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	_ = silent.Close()
	_ = stalled.Close()
	_ = e.Close()
	if got := len(recs.all()); got != 2*n+1 {
		t.Errorf("%d records, want %d (one per tunnel and per forwarded request, the silent tunnel included)", got, 2*n+1)
	}
}

func egressFetch(c *http.Client, u string) error {
	resp, err := c.Get(u)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	want := u[strings.Index(u[len("https://"):], "/")+len("https://"):]
	if err != nil || resp.StatusCode != 200 || string(b) != want {
		return fmt.Errorf("GET %s: %d %q %v, want 200 %q", u, resp.StatusCode, b, err, want)
	}
	return nil
}

func TestEgressCloseCutsTunnelsThatOutliveTheTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }() // echo, never closes first
		}
	}()
	e, recs := startEgress(t, egressOptions{
		Decide:       func(string, int, string) (bool, string, string) { return true, "test", "" },
		CloseTimeout: 50 * time.Millisecond,
	})
	c, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	_, _ = io.WriteString(c, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT to the echo server: %v %v", resp, err)
	}
	_, _ = io.WriteString(c, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo through the tunnel: %q %v", buf, err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rec := recs.find(t, ln.Addr().String(), "CONNECT")
	if egressDetailInt(t, rec, "bytes_out") != 4 || egressDetailInt(t, rec, "bytes_in") != 4 {
		t.Errorf("cut tunnel's record %q: want 4 bytes each way", rec.Detail)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err == nil {
		t.Error("the tunnel still carries bytes after Close")
	}
}

func TestEgressCloseCutsAForwardStuckOnItsUpstream(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release // never answers while the proxy closes
	}))
	defer srv.Close()
	defer close(release)
	e, recs := startEgress(t, egressOptions{
		Decide:       func(string, int, string) (bool, string, string) { return true, "test", "" },
		CloseTimeout: 50 * time.Millisecond,
	})
	c := egressClient(e, nil)
	done := make(chan error, 1)
	go func() {
		resp, err := c.Get(srv.URL + "/slow")
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- e.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited on an upstream that never answers instead of cutting it")
	}
	if err := <-done; err == nil {
		t.Error("the client got an answer from an upstream that never sent one")
	}
	if rec := recs.find(t, strings.TrimPrefix(srv.URL, "http://"), "GET"); !strings.Contains(rec.Detail, "error=") {
		t.Errorf("record %q: want the cut noted", rec.Detail)
	}
}

func TestEgressObserveModeNotesTheCapInsteadOfRefusing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	p := egressPolicy(t)
	p.Mode = policy.Observe
	e, recs := startEgress(t, egressOptions{Policy: p, MaxBytesOut: map[string]int64{"127.0.0.1": 1}})
	c := egressClient(e, nil)
	for i := 0; i < 2; i++ {
		if code, body, _ := egressGet(t, c, srv.URL); code != 200 {
			t.Fatalf("request %d under observe: got %d %q, want 200", i, code, body)
		}
	}
	c.CloseIdleConnections()
	_ = e.Close()
	list := recs.all()
	if len(list) != 2 || !strings.Contains(list[1].Detail, egressRuleMaxBytesOut+" would refuse") || list[1].Mode != "observe" {
		t.Errorf("records %+v: want the second to note the cap it did not apply", list)
	}
}

func TestEgressBoundsAnUpstreamsResponseHead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = bufio.NewReader(c).ReadString('\n')
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for i := 0; i < 4096; i++ { // 4 MB of header, never ending it
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	}()
	e, recs := startEgress(t, egressOptions{Decide: func(string, int, string) (bool, string, string) { return true, "test", "" }})
	resp, body := egressRaw(t, e.Addr(), "GET http://"+ln.Addr().String()+"/ HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 502 || !strings.Contains(body, "larger than 1 MiB") {
		t.Errorf("endless upstream header: got %d %q, want 502 naming the bound", resp.StatusCode, body)
	}
	_ = e.Close()
	if rec := recs.find(t, ln.Addr().String(), "GET"); egressDetailInt(t, rec, "bytes_in") > egressMaxResponseHead {
		t.Errorf("record %q: read more than the bound", rec.Detail)
	}
}

// TestEgressIdleTimeoutSparesASlowOneWayStreamButEndsASilentTunnel: a
// tunnel on which only the server speaks lives past the idle timeout; one
// on which nothing moves is ended by it. The test keeps no clock of its
// own: the server sends its next byte when the client has read the last
// (so the gaps are as short as scheduling allows, far under the timeout),
// and the stream runs until the proxy has ended the silent tunnel, opened
// after it — proof, on the proxy's own clock, that the stream outlived an
// idle period.
func TestEgressIdleTimeoutSparesASlowOneWayStreamButEndsASilentTunnel(t *testing.T) {
	const idle = time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	next := make(chan struct{})        // the client read the last byte: send one more
	trickleDone := make(chan struct{}) // the trickling server ended
	stop := make(chan struct{})
	stopTrickle := sync.OnceFunc(func() { close(stop) })
	defer stopTrickle()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var cmd [1]byte
				if _, err := io.ReadFull(c, cmd[:]); err != nil || cmd[0] != 't' {
					_, _ = io.Copy(io.Discard, c) // "s": stay silent
					return
				}
				// "t": one byte whenever asked, while the client sends
				// nothing back
				defer close(trickleDone)
				for {
					select {
					case <-next:
					case <-stop:
						return
					}
					if _, err := c.Write([]byte{'.'}); err != nil {
						return
					}
				}
			}()
		}
	}()
	e, recs := startEgress(t, egressOptions{
		Decide:      func(string, int, string) (bool, string, string) { return true, "test", "" },
		IdleTimeout: idle,
	})
	tunnel := func(cmd string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", e.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(60 * time.Second))
		br := bufio.NewReader(c)
		_, _ = io.WriteString(c, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\n\r\n"+cmd)
		if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		return c, br
	}
	c, br := tunnel("t")
	defer c.Close()
	read := 0
	one := func() {
		t.Helper()
		select {
		case next <- struct{}{}:
		case <-trickleDone:
			t.Fatalf("the slow stream's server was cut off after %d bytes", read)
		}
		if _, err := br.ReadByte(); err != nil {
			t.Fatalf("slow stream through a %s idle timeout ended after %d bytes: %v", idle, read, err)
		}
		read++
	}
	one() // the stream is flowing before the silent tunnel opens
	s, sbr := tunnel("s")
	defer s.Close()
	silent := make(chan error, 1)
	go func() {
		_, err := sbr.ReadByte()
		silent <- err
	}()
	for ended := false; !ended; {
		one()
		select {
		case err := <-silent:
			if !errors.Is(err, io.EOF) {
				t.Errorf("silent tunnel: read %v, want the proxy to end it (EOF)", err)
			}
			ended = true
		default:
		}
	}
	one() // and the stream still flows after
	// the server ends the stream: the tunnel closes cleanly, not idle
	stopTrickle()
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("the end of the slow stream: %d more bytes, %v; want a clean end", len(rest), err)
	}
	_ = c.Close()
	_ = s.Close()
	_ = e.Close()
	var idled int
	for _, rec := range recs.all() {
		if strings.Contains(rec.Detail, `error="idle timeout"`) {
			idled++
		}
	}
	if idled != 1 {
		t.Errorf("records %+v: want exactly the silent tunnel ended by the idle timeout", recs.all())
	}
}
