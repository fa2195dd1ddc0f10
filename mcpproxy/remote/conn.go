// Package remote is the HTTP side of airlock-mcp --url: it stands where a
// child process's stdin and stdout stand for a local server. The proxy
// writes the lines it decided to forward, one JSON-RPC message or batch a
// line, and reads the server's messages back as lines; in between, this
// package speaks MCP's streamable HTTP transport (a POST per message, the
// answer as JSON or an event stream, the optional GET stream for server
// requests, Mcp-Session-Id, MCP-Protocol-Version and the 2026-07-28
// headers written from the body) or the legacy HTTP+SSE transport.
//
// Messages pass as the bytes the proxy decided on: ids are never decoded
// into numbers and re-encoded, batches are split into single messages
// (remote transports carry one at a time), and the server's messages are
// handed back whole, one a line. A broken stream answers the requests it
// carried with an error and is never silently resent; the next message
// first re-initialises the session (the client's own initialize, replayed)
// and tells the proxy the tools may have changed, so the toolset is
// admitted against its pin again before another call passes.
package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidwall/gjson"
)

// The transports.
const (
	Streamable = "streamable-http"
	SSE        = "sse"
)

// Options configure one connection.
type Options struct {
	Name      string      // the server's name, for messages
	URL       string      // the server's endpoint (streamable HTTP) or its SSE stream (legacy)
	Transport string      // Streamable (default) or SSE
	Headers   http.Header // static headers from the agent's config (API keys)
	Auth      Authorizer  // OAuth tokens; nil when the server has none
	HTTP      *http.Client

	// MaxMessage bounds one message from the server (default 64 MiB).
	MaxMessage int64
	// Record notes a reconnect or a broken stream (event, detail); nil
	// records nothing.
	Record func(event, detail string)
	// Grace is how long the end of the client's input waits for the
	// answers in flight (default 5s).
	Grace time.Duration
	// ReinitWait bounds a re-initialisation (default 30s).
	ReinitWait time.Duration
	// LoginNeeded is told when the server wants a token the bridge does
	// not have (airlock doctor shows it); may be nil.
	LoginNeeded func()
}

// Authorizer supplies the Authorization header of every request.
type Authorizer interface {
	// Header returns the header's value; an error (ErrLoginNeeded among
	// them) means there is no usable token.
	Header(ctx context.Context) (string, error)
	// Unauthorized is told of a 401, so the next Header refreshes.
	Unauthorized(resp *http.Response)
}

// ErrLoginNeeded says the server wants a token the home does not hold.
var ErrLoginNeeded = errors.New("a login is needed")

// Conn is one connection to a remote server.
type Conn struct {
	o      Options
	url    *url.URL
	ctx    context.Context
	cancel context.CancelFunc
	inR    *io.PipeReader
	inW    *io.PipeWriter
	outR   *io.PipeReader
	outW   *io.PipeWriter
	outMu  sync.Mutex
	done   chan struct{}
	heads  toolHeaders

	mu          sync.Mutex
	session     string
	version     string
	initMsg     string // the client's initialize, replayed on a reconnect
	initialized string // the client's notifications/initialized
	broken      string // why the next message re-initialises first
	pending     map[string]pend
	own         map[string]chan gjson.Result // our own requests
	ownN        int
	endpoint    string // legacy: where messages are posted; "" when not connected
	streamGen   int    // the generation of the GET stream (both transports)
	// quiet drops the server's tools/list_changed from a re-initialisation
	// until the first listing on the new session is answered: the proxy
	// was told already (at the break), and its listing is asked after the
	// session began, so the server's own notice of its first tools would
	// only end that listing's wait for nothing.
	quiet    bool
	inflight sync.WaitGroup
	// reopenWait is the first wait before the GET stream is reopened
	// (1s; tests shorten it)
	reopenWait time.Duration
}

type pend struct {
	raw    string // the id as the client spelled it
	method string
}

// New checks the options; nothing is dialled until the first message.
func New(o Options) (*Conn, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, fmt.Errorf("--url %q: %w", o.URL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q: not an http or https URL", o.URL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--url: credentials in the URL are not accepted (they would be on the command line); give them as a header")
	}
	switch o.Transport {
	case "":
		o.Transport = Streamable
	case Streamable, SSE:
	default:
		return nil, fmt.Errorf("--transport %q: must be %s or %s", o.Transport, Streamable, SSE)
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = 64 << 20
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.ReinitWait <= 0 {
		o.ReinitWait = 30 * time.Second
	}
	if o.HTTP == nil {
		o.HTTP = NewHTTPClient()
	}
	c := &Conn{o: o, url: u, done: make(chan struct{}), pending: map[string]pend{}, own: map[string]chan gjson.Result{}, reopenWait: time.Second}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.inR, c.inW = io.Pipe()
	c.outR, c.outW = io.Pipe()
	return c, nil
}

// NewHTTPClient is the client the bridge dials with: no redirects (a
// redirect would take the session to a host the policy never judged) and
// no overall timeout (streams are long). It judges no address; the bridge
// of airlock-mcp uses NewGuardedHTTPClient.
func NewHTTPClient() *http.Client { return NewGuardedHTTPClient(nil) }

// Guard judges a destination the bridge connects to: an address it is
// about to dial (an IP, after DNS) or the host of a proxy from the
// environment. An error refuses the connection.
type Guard func(host string, port int) error

// NewGuardedHTTPClient is NewHTTPClient with every connection judged by
// g at dial time: the policy judged --url's name before the bridge
// started, but a name can resolve, or rebind between two connections, to
// a metadata or loopback address; only the address being dialled says
// where a connection goes. The OAuth client shares the transport, so an
// authorization server's addresses are judged too.
func NewGuardedHTTPClient(g Guard) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	guardTransport(t, g)
	return &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// guardTransport makes t judge, with g, the proxy it would use and every
// address it dials (nil g: nothing).
func guardTransport(t *http.Transport, g Guard) {
	if g == nil {
		return
	}
	if proxy := t.Proxy; proxy != nil {
		t.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := proxy(r)
			if err != nil || u == nil {
				return u, err
			}
			port, _ := strconv.Atoi(u.Port())
			if port == 0 {
				port = 80
				if u.Scheme == "https" {
					port = 443
				}
			}
			if err := g(u.Hostname(), port); err != nil {
				return nil, fmt.Errorf("the proxy %s: %w", u.Host, err)
			}
			return u, nil
		}
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	d.Control = func(_, address string, _ syscall.RawConn) error {
		host, p, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		port, err := strconv.Atoi(p)
		if err != nil {
			return err
		}
		// the dialled address without its zone, as the policy spells it
		if a, err := netip.ParseAddr(host); err == nil {
			host = a.WithZone("").Unmap().String()
		}
		return g(host, port)
	}
	t.DialContext = d.DialContext
}

// ToServer is where the proxy writes the lines it forwards.
func (c *Conn) ToServer() io.WriteCloser { return c.inW }

// FromServer is where the proxy reads the server's messages, one a line.
// It ends once the client's input has ended and the answers in flight are
// in (or the grace is over), or at Close.
func (c *Conn) FromServer() io.Reader { return c.outR }

// SetRecord sets Options.Record; call it before Start.
func (c *Conn) SetRecord(f func(event, detail string)) { c.o.Record = f }

// Start begins relaying.
func (c *Conn) Start() { go c.pump() }

// Done is closed once the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection now.
func (c *Conn) Close() {
	c.cancel()
	c.inR.CloseWithError(io.ErrClosedPipe)
}

// Describe names the server for records: its URL without query or
// credentials (a token in a query string stays out of the log).
func (c *Conn) Describe() string {
	u := *c.url
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	s := u.String()
	if c.url.RawQuery != "" {
		s += "?…"
	}
	return s + " (" + c.o.Transport + ")"
}

func (c *Conn) record(event, detail string) {
	if c.o.Record != nil {
		c.o.Record(event, detail)
	}
}

// queued bounds the lines read from the proxy and not yet sent: the
// proxy's writes (its own listing's next page among them, written from
// the loop that reads the server's answers) never wait on a POST.
const queued = 1024

func (c *Conn) pump() {
	defer c.shutdown()
	lines := make(chan string, queued)
	// and by bytes: one message past the budget waits for an empty queue
	var qmu sync.Mutex
	qcond := sync.NewCond(&qmu)
	inQueue := int64(0)
	budget := max(c.o.MaxMessage, 16<<20)
	go func() {
		<-c.ctx.Done()
		qmu.Lock()
		qcond.Broadcast()
		qmu.Unlock()
	}()
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(c.inR, 64<<10)
		for {
			line, err := readLine(br, c.o.MaxMessage)
			if msg := strings.TrimSpace(line); msg != "" {
				n := int64(len(msg))
				qmu.Lock()
				for inQueue > 0 && inQueue+n > budget && c.ctx.Err() == nil {
					qcond.Wait()
				}
				inQueue += n
				qmu.Unlock()
				select {
				case lines <- msg:
				case <-c.ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	for msg := range lines {
		qmu.Lock()
		inQueue -= int64(len(msg))
		qcond.Broadcast()
		qmu.Unlock()
		if msg[0] == '[' {
			// remote transports carry one message at a time
			gjson.Parse(msg).ForEach(func(_, el gjson.Result) bool {
				c.message(el.Raw)
				return true
			})
		} else {
			c.message(msg)
		}
	}
}

// readLine reads one line; a line past max is read to its end and
// returned empty (the proxy caps what it forwards, so this is a bound,
// not a path).
func readLine(br *bufio.Reader, max int64) (string, error) {
	var b []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if int64(len(b)+len(chunk)) > max+1 {
				over, b = true, nil
			} else {
				b = append(b, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return string(b), err
	}
}

// shutdown waits for the answers in flight, ends the session and closes
// the server's side.
func (c *Conn) shutdown() {
	idle := make(chan struct{})
	go func() {
		c.inflight.Wait()
		for c.ctx.Err() == nil {
			c.mu.Lock()
			n := len(c.pending)
			c.mu.Unlock()
			if n == 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		close(idle)
	}()
	t := time.NewTimer(c.o.Grace)
	select {
	case <-idle:
	case <-t.C:
	case <-c.ctx.Done():
	}
	t.Stop()
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	if session != "" && c.o.Transport == Streamable && c.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(c.ctx, 2*time.Second)
		if req, err := c.request(ctx, http.MethodDelete, c.url.String(), nil, gjson.Result{}); err == nil {
			if resp, err := c.do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
	c.outMu.Lock()
	c.outW.Close()
	c.outMu.Unlock()
	close(c.done)
}

// message sends one message from the client.
func (c *Conn) message(raw string) {
	m := gjson.Parse(raw)
	method, id := m.Get("method"), m.Get("id")
	isReq := method.Exists() && id.Exists()
	mname := method.String()
	c.mu.Lock()
	switch {
	case mname == "initialize" && isReq:
		c.initMsg, c.broken = raw, ""
	case mname == "notifications/initialized" && !id.Exists():
		c.initialized = raw
	}
	needReinit := c.broken != "" || (c.o.Transport == SSE && c.endpoint == "")
	c.mu.Unlock()
	if needReinit {
		var err error
		if mname == "initialize" {
			err = c.connect() // legacy: the first stream; streamable: nothing to do
		} else {
			err = c.reinit()
		}
		if err != nil {
			if isReq {
				c.answerError(id.Raw, mname, err)
			}
			return
		}
	}
	if isReq {
		k := idKey(id)
		if k == "" {
			return // the proxy refuses such ids; nothing to match
		}
		c.mu.Lock()
		c.pending[k] = pend{raw: id.Raw, method: mname}
		c.mu.Unlock()
	}
	if c.o.Transport == SSE {
		c.postLegacy(raw, m, isReq)
		return
	}
	if isReq && mname != "initialize" {
		c.inflight.Add(1)
		go func() {
			defer c.inflight.Done()
			c.post(raw, m, isReq)
		}()
		return
	}
	c.post(raw, m, isReq)
	if mname == "initialize" {
		// open the GET stream before notifications/initialized: a server
		// announces what it registers at initialisation on it, and drops
		// the notice when no stream is open yet
		c.openGetStream(true)
	}
}

// connect opens the legacy transport's stream; for streamable HTTP
// there is nothing to open before the first POST.
func (c *Conn) connect() error {
	if c.o.Transport != SSE {
		return nil
	}
	return c.connectLegacy()
}

// idKey is an id's identity as JSON values compare: a string by its text,
// a number by its value exactly (big.Rat, not float64: 1e0 is 1, and two
// long ids stay two).
func idKey(id gjson.Result) string {
	switch id.Type {
	case gjson.String:
		return "s:" + id.Str
	case gjson.Number:
		if len(id.Raw) > 1024 {
			return ""
		}
		if i := strings.IndexAny(id.Raw, "eE"); i >= 0 {
			// an exponent past any id's is keyed by its float64 value (as
			// the proxy keys it): exactly, 1e1000000 is a million digits
			if e, err := strconv.Atoi(id.Raw[i+1:]); err != nil || e > 2048 || e < -2048 {
				f, err := strconv.ParseFloat(id.Raw, 64)
				if err != nil && !errors.Is(err, strconv.ErrRange) {
					return ""
				}
				if f == 0 {
					f = 0 // -0 is 0
				}
				return "f:" + strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		r, ok := new(big.Rat).SetString(id.Raw)
		if !ok {
			return ""
		}
		return "n:" + r.RatString()
	}
	return ""
}

// request builds a request with every header the bridge owns.
func (c *Conn) request(ctx context.Context, method, target string, body []byte, msg gjson.Result) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.o.Headers {
		if ownHeader(k) {
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	c.mu.Lock()
	session, version := c.session, c.version
	c.mu.Unlock()
	isInit := msg.Get("method").String() == "initialize"
	if v := metaVersion(msg); v != "" {
		version = v // a stateless request names its version itself
	}
	if c.o.Transport == Streamable {
		switch method {
		case http.MethodPost:
			req.Header.Set("Accept", "application/json, text/event-stream")
		case http.MethodGet:
			req.Header.Set("Accept", "text/event-stream")
		}
		if session != "" && !isInit {
			req.Header.Set("Mcp-Session-Id", session)
		}
	} else if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	if version != "" && !isInit {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	if msg.Exists() {
		c.heads.set(req.Header, version, msg)
	}
	return req, nil
}

// ownHeader reports whether the bridge alone writes header k: the
// protocol's own (Mcp-*, the version, the session, Last-Event-ID) and the
// framing. A static header of that name from a config is dropped, so a
// header a server routes on always says what the body says.
func ownHeader(k string) bool {
	k = http.CanonicalHeaderKey(k)
	switch k {
	case "Content-Type", "Content-Length", "Accept", "Last-Event-Id", "Host", "Transfer-Encoding":
		return true
	}
	return strings.HasPrefix(k, "Mcp-")
}

// metaVersion is the protocol version a request's _meta names (the
// stateless protocol, 2026-07-28), or "".
func metaVersion(msg gjson.Result) string {
	v := ""
	msg.Get("params._meta").ForEach(func(k, val gjson.Result) bool {
		if k.String() == "io.modelcontextprotocol/protocolVersion" && val.Type == gjson.String {
			v = val.Str
			return false
		}
		return true
	})
	return v
}

// loginError is a request that could not be authorised.
type loginError struct{ err error }

func (e *loginError) Error() string { return e.err.Error() }
func (e *loginError) Unwrap() error { return e.err }

// loginErr is a loginError, noted.
func (c *Conn) loginErr(err error) error {
	if c.o.LoginNeeded != nil {
		c.o.LoginNeeded()
	}
	return &loginError{err}
}

// authErr is the loginError for an Authorizer's failure. Its own words
// (ErrLoginNeeded) reach the model; anything else is recorded and the
// model told only that the token could not be had: the authorization
// server is the remote server's to name, and mcp-go's errors quote the
// body of whatever answered, which would let a server have the bridge
// fetch an address and read the answer back through the model.
func (c *Conn) authErr(err error) error {
	if errors.Is(err, ErrLoginNeeded) {
		return c.loginErr(err)
	}
	c.record("mcp_remote", fmt.Sprintf("no token for %s: %v", c.Describe(), quietURL(err)))
	return c.loginErr(fmt.Errorf("%w: the token could not be refreshed (the reason is in the audit log)", ErrLoginNeeded))
}

// do sends req with the Authorization header, once more after a 401 when
// the token could be refreshed (the server refused the request unread,
// so sending it again runs nothing twice).
func (c *Conn) do(req *http.Request) (*http.Response, error) {
	var before string
	if c.o.Auth != nil {
		h, err := c.o.Auth.Header(req.Context())
		if err != nil {
			return nil, c.authErr(err)
		}
		before = h
		req.Header.Set("Authorization", h)
	}
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		return nil, quietURL(err)
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return resp, nil
	}
	if c.o.Auth == nil {
		resp.Body.Close()
		return nil, c.loginErr(ErrLoginNeeded)
	}
	c.o.Auth.Unauthorized(resp)
	resp.Body.Close()
	h, err := c.o.Auth.Header(req.Context())
	if err != nil {
		return nil, c.authErr(err)
	}
	if h == before {
		return nil, c.loginErr(fmt.Errorf("%w: the server refused the token", ErrLoginNeeded))
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	again.Header.Set("Authorization", h)
	resp, err = c.o.HTTP.Do(again)
	if err != nil {
		return nil, quietURL(err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		resp.Body.Close()
		return nil, c.loginErr(fmt.Errorf("%w: the server refused the refreshed token", ErrLoginNeeded))
	}
	return resp, nil
}

// quietURL is err with the URL it names cut to scheme, host and path:
// Go's errors name a request's URL whole, a query (where a server may
// take a key) included, and the error reaches the model and the records.
func quietURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if u, perr := url.Parse(ue.URL); perr == nil {
		q := u.RawQuery != ""
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		ue.URL = u.String()
		if q {
			ue.URL += "?…"
		}
	} else {
		ue.URL = "(the server's URL)"
	}
	return err
}

// post sends one message over streamable HTTP and relays its answer.
func (c *Conn) post(raw string, m gjson.Result, isReq bool) {
	id := m.Get("id")
	method := m.Get("method").String()
	req, err := c.request(c.ctx, http.MethodPost, c.url.String(), []byte(raw), m)
	if err != nil {
		c.failReq(isReq, id, method, err)
		return
	}
	c.mu.Lock()
	hadSession := c.session != ""
	c.mu.Unlock()
	resp, err := c.do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return
		}
		var le *loginError
		if !errors.As(err, &le) {
			// the server may be restarting: a new session next time
			c.breakSession(fmt.Sprintf("a request failed: %v", err))
		}
		c.failReq(isReq, id, method, err)
		return
	}
	defer resp.Body.Close()
	if method == "initialize" {
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			c.mu.Lock()
			c.session = s
			c.mu.Unlock()
		}
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && hadSession:
		c.breakSession("the server ended the session (404)")
		c.failReq(isReq, id, method, errors.New("the remote server ended the session"))
		return
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		err := fmt.Errorf("the server redirected to %q; airlock-mcp does not follow redirects (give --url the final address)", resp.Header.Get("Location"))
		c.record("mcp_remote", err.Error())
		c.failReq(isReq, id, method, err)
		return
	case resp.StatusCode >= 400:
		c.failReq(isReq, id, method, fmt.Errorf("the server answered HTTP %d%s", resp.StatusCode, bodyHint(resp.Body)))
		return
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return // a notification or a response; a request's answer may come on the GET stream
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		k := ""
		if isReq {
			k = idKey(id)
		}
		err := c.readStream(resp.Body, k)
		if !isReq || c.ctx.Err() != nil {
			return
		}
		c.mu.Lock()
		_, still := c.pending[k]
		_, ownStill := c.own[k]
		c.mu.Unlock()
		if still || ownStill {
			why := "the stream ended before the answer"
			if !errors.Is(err, io.EOF) {
				why = err.Error()
			}
			c.streamBroke(why, k)
		}
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxMessage+1))
		if err == nil && int64(len(body)) > c.o.MaxMessage {
			err = fmt.Errorf("an answer past the %d-byte limit", c.o.MaxMessage)
		}
		if err != nil {
			c.streamBroke(err.Error(), idKey(id))
			return
		}
		c.deliver(string(body))
	default:
		if isReq {
			c.failReq(true, id, method, fmt.Errorf("the server answered with content type %q", ct))
		}
	}
}

// bodyHint is the start of an error body, for the message: one line,
// short.
func bodyHint(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 200))
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return ""
	}
	return ": " + s
}

// readStream relays an event stream's messages until it ends, or, when
// want is a request's key, until that request is answered (a server that
// keeps the stream open after the answer holds nothing of ours).
func (c *Conn) readStream(body io.Reader, want string) error {
	sr := newSSEReader(body, int(min(c.o.MaxMessage, int64(^uint(0)>>2))))
	for {
		ev, err := sr.next()
		if err != nil {
			return err
		}
		if ev.Type == "message" {
			c.deliver(ev.Data)
		}
		if want != "" && !c.awaiting(want) {
			return nil
		}
	}
}

// awaiting reports whether the request with key k is still unanswered.
func (c *Conn) awaiting(k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, p := c.pending[k]
	_, o := c.own[k]
	return p || o
}

// openGetStream opens streamable HTTP's GET stream, on which a server
// sends requests and notifications outside any call. A server that offers
// none (405) is fine; one that ends it is asked again, and each reopening
// is recorded.
//
// wait blocks until the stream is open or refused (at most 2s).
func (c *Conn) openGetStream(wait bool) {
	c.mu.Lock()
	c.streamGen++
	gen := c.streamGen
	noSession := c.session == ""
	c.mu.Unlock()
	if noSession {
		return // a stateless server: no stream to open
	}
	ready := make(chan struct{})
	var once sync.Once
	opened := func() { once.Do(func() { close(ready) }) }
	go func() {
		defer opened()
		backoff := c.reopenWait
		for n := 0; ; {
			req, err := c.request(c.ctx, http.MethodGet, c.url.String(), nil, gjson.Result{})
			if err != nil {
				return
			}
			resp, err := c.do(req)
			if err != nil {
				if n == 0 || c.ctx.Err() != nil {
					return
				}
			} else {
				ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
				if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
					resp.Body.Close()
					return // no stream offered
				}
				opened()
				n++
				began := time.Now()
				err = c.readStream(resp.Body, "")
				resp.Body.Close()
				// only a stream that stayed open a while starts the waits
				// over: one the server ends at once (its retry: is not
				// obeyed) is reopened ever more slowly, not once a second
				// with a record each time
				if time.Since(began) >= 30*time.Second {
					backoff = c.reopenWait
				}
			}
			c.mu.Lock()
			stale := gen != c.streamGen
			c.mu.Unlock()
			if stale || c.ctx.Err() != nil {
				return
			}
			why := "it ended"
			if err != nil && !errors.Is(err, io.EOF) {
				why = err.Error()
			}
			c.record("mcp_reconnect", fmt.Sprintf("the server-request stream of %s broke (%s); reopening it", c.Describe(), why))
			select {
			case <-time.After(backoff):
			case <-c.ctx.Done():
				return
			}
			backoff = min(backoff*2, 30*time.Second)
		}
	}()
	if wait {
		t := time.NewTimer(2 * time.Second)
		select {
		case <-ready:
		case <-t.C:
		}
		t.Stop()
	}
}

// deliver hands the server's messages (an event's data or a JSON body)
// to the proxy, one a line.
func (c *Conn) deliver(data string) {
	data = strings.TrimSpace(data)
	if data == "" {
		return
	}
	if strings.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		if json.Compact(&b, []byte(data)) == nil {
			data = b.String()
		} else {
			// not JSON: the proxy drops it, as one line
			data = strings.NewReplacer("\r", " ", "\n", " ").Replace(data)
		}
	}
	if data[0] == '[' && gjson.Valid(data) {
		gjson.Parse(data).ForEach(func(_, el gjson.Result) bool {
			c.deliverOne(el.Raw)
			return true
		})
		return
	}
	c.deliverOne(data)
}

func (c *Conn) deliverOne(msg string) {
	m := gjson.Parse(msg)
	if m.Get("method").String() == "notifications/tools/list_changed" && !m.Get("id").Exists() {
		c.mu.Lock()
		quiet := c.quiet
		c.mu.Unlock()
		if quiet {
			return
		}
	}
	if m.IsObject() && !m.Get("method").Exists() {
		k := idKey(m.Get("id"))
		c.mu.Lock()
		if ch, ok := c.own[k]; ok && k != "" {
			delete(c.own, k)
			c.mu.Unlock()
			ch <- m
			return
		}
		p, ok := c.pending[k]
		delete(c.pending, k)
		if ok {
			switch p.method {
			case "initialize":
				if v := m.Get("result.protocolVersion"); v.Type == gjson.String {
					c.version = v.Str
				}
			case "tools/list":
				c.quiet = false
			}
		}
		c.mu.Unlock()
		if ok && p.method == "tools/list" {
			c.heads.learn(m.Get("result"))
		}
	}
	c.writeOut(msg)
}

func (c *Conn) writeOut(msg string) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_, _ = io.WriteString(c.outW, msg+"\n")
}

const listChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`

// breakSession marks the session for re-initialisation before the next
// message and tells the proxy the tools may change: the toolset is
// admitted again before another call passes.
func (c *Conn) breakSession(why string) {
	c.mu.Lock()
	first := c.broken == ""
	if first {
		c.broken = why
	}
	c.streamGen++ // the GET stream belongs to the old session
	init := c.initMsg != ""
	c.mu.Unlock()
	if first {
		next := "the next message re-initialises the session"
		if !init {
			next = "the toolset is listed again before the next call" // stateless: no session to renew
		}
		c.record("mcp_remote", fmt.Sprintf("the connection to %s broke (%s); %s", c.Describe(), why, next))
		c.writeOut(listChanged)
	}
}

// streamBroke answers the request with key k, whose stream ended before
// its answer: with an error, never by sending it again (a tool need not
// be idempotent).
func (c *Conn) streamBroke(why, k string) {
	c.breakSession(why)
	c.mu.Lock()
	p, ok := c.pending[k]
	delete(c.pending, k)
	if ch, own := c.own[k]; own {
		delete(c.own, k)
		close(ch)
	}
	c.mu.Unlock()
	if ok {
		c.writeOut(brokenAnswer(c.o.Name, p, why))
	}
}

// failReq answers a request that could not be sent, or was refused.
func (c *Conn) failReq(isReq bool, id gjson.Result, method string, err error) {
	if !isReq {
		c.record("mcp_remote", fmt.Sprintf("a %s message to %s was not delivered: %v", method, c.Describe(), err))
		return
	}
	k := idKey(id)
	c.mu.Lock()
	p, ok := c.pending[k]
	delete(c.pending, k)
	if ch, own := c.own[k]; own {
		delete(c.own, k)
		close(ch)
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	c.writeOut(errorAnswer(c.o.Name, p, err))
}

// answerError answers a request that was never sent.
func (c *Conn) answerError(raw, method string, err error) {
	c.writeOut(errorAnswer(c.o.Name, pend{raw: raw, method: method}, err))
}

// brokenAnswer is the answer to a request whose stream broke.
func brokenAnswer(name string, p pend, why string) string {
	text := fmt.Sprintf("Airlock: the connection to the remote MCP server %q broke before it answered (%s). The request was not sent again: the tool may or may not have run. Airlock reconnects before the next call.", name, why)
	return answer(p, text, -32001)
}

// errorAnswer is the answer to a request that failed before an answer.
func errorAnswer(name string, p pend, err error) string {
	var le *loginError
	if errors.As(err, &le) || errors.Is(err, ErrLoginNeeded) {
		return answer(p, LoginMessage(name, err), -32001)
	}
	return answer(p, fmt.Sprintf("Airlock: the remote MCP server %q could not be reached: %v", name, err), -32001)
}

// LoginMessage is what a model is told when a server needs a login.
func LoginMessage(name string, err error) string {
	why := ""
	if err != nil && !errors.Is(err, ErrLoginNeeded) {
		why = " (" + err.Error() + ")"
	} else if err != nil && err.Error() != ErrLoginNeeded.Error() {
		why = " (" + strings.TrimPrefix(err.Error(), ErrLoginNeeded.Error()+": ") + ")"
	}
	return fmt.Sprintf("Airlock: the remote MCP server %q needs a login%s: ask the user to run `airlock mcp login %s` in a terminal, then try again.", name, why, name)
}

// answer is a tool result with isError for a tools/call (the model reads
// it), a JSON-RPC error for anything else.
func answer(p pend, text string, code int) string {
	t, _ := json.Marshal(text)
	if p.method == "tools/call" {
		return `{"jsonrpc":"2.0","id":` + p.raw + `,"result":{"content":[{"type":"text","text":` + string(t) + `}],"isError":true}}`
	}
	return `{"jsonrpc":"2.0","id":` + p.raw + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + string(t) + `}}`
}

// reinit opens a new session by replaying the client's initialize (with
// an id of our own, its answer kept from the client) and its
// notifications/initialized.
func (c *Conn) reinit() error {
	c.mu.Lock()
	why, init, initd := c.broken, c.initMsg, c.initialized
	c.session = ""
	c.mu.Unlock()
	if err := c.connect(); err != nil {
		c.record("mcp_reconnect", fmt.Sprintf("reconnecting to %s failed: %v", c.Describe(), err))
		return err
	}
	if init == "" {
		c.mu.Lock()
		c.broken = ""
		c.mu.Unlock()
		return nil
	}
	c.mu.Lock()
	c.quiet = true
	// an id no request of the client's in flight has: its answer would be
	// taken for the new session's, and its call never answered
	var id string
	for {
		c.ownN++
		id = `"airlock-reinit-` + strconv.Itoa(c.ownN) + `"`
		if _, taken := c.pending[idKey(gjson.Parse(id))]; !taken {
			break
		}
	}
	ch := make(chan gjson.Result, 1)
	c.own[idKey(gjson.Parse(id))] = ch
	c.mu.Unlock()
	idv := gjson.Get(init, "id")
	msg := init[:idv.Index] + id + init[idv.Index+len(idv.Raw):]
	m := gjson.Parse(msg)
	if c.o.Transport == SSE {
		c.postLegacy(msg, m, true)
	} else {
		go c.post(msg, m, true)
	}
	t := time.NewTimer(c.o.ReinitWait)
	defer t.Stop()
	var res gjson.Result
	var ok bool
	select {
	case res, ok = <-ch:
	case <-t.C:
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
	c.mu.Lock()
	delete(c.own, idKey(gjson.Parse(id)))
	c.mu.Unlock()
	if !ok || !res.Get("result").IsObject() {
		err := errors.New("the server did not accept a new session")
		if e := res.Get("error.message"); e.Exists() {
			err = fmt.Errorf("the server refused a new session: %s", clipText(e.String(), 200))
		}
		c.mu.Lock()
		c.quiet = false
		c.mu.Unlock()
		c.record("mcp_reconnect", fmt.Sprintf("re-initialising the session with %s failed (%v); the next message tries again", c.Describe(), err))
		return err
	}
	c.mu.Lock()
	if v := res.Get("result.protocolVersion"); v.Type == gjson.String {
		c.version = v.Str
	}
	c.broken = ""
	c.mu.Unlock()
	if initd == "" {
		initd = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	}
	if c.o.Transport == SSE {
		c.postLegacy(initd, gjson.Parse(initd), false)
	} else {
		c.openGetStream(true)
		c.post(initd, gjson.Parse(initd), false)
	}
	c.record("mcp_reconnect", fmt.Sprintf("re-initialised the session with %s after: %s; the toolset is admitted again before the next call", c.Describe(), why))
	return nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
