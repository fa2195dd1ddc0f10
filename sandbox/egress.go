package sandbox

// The egress proxy. A process Airlock launches gets HTTPS_PROXY and friends
// pointing here, and (where Landlock has network rules) may connect only
// to this port; every connection it makes to the outside is then decided
// by the same policy the gate uses — cloud metadata, exfiltration
// collectors, whatever the user's rules say —, its decision recorded
// before anything is dialled or answered (a connection whose decision
// cannot be recorded is refused) and its end with the bytes it moved. The
// proxy runs in the unconfined parent, on loopback only.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// egressOptions configure StartEgress. Decide or Policy is required: a
// proxy with nothing to decide by refuses to start.
type egressOptions struct {
	// Decide decides one destination. It is called with the canonical host
	// (policy.CanonicalHost) and, when that is a name, again with every IP
	// the name resolves to, so it must allow IPs it has no opinion about.
	// scheme is "http" for plain HTTP and for CONNECT to port 80, "https"
	// for any other CONNECT. nil: decide with Policy.
	Decide func(host string, port int, scheme string) (allow bool, rule, reason string)
	// Policy decides each destination as the gate decides a WebFetch of
	// scheme://host:port/ from a caller no person attends (see
	// egressPolicyVerdict). Used when Decide is nil.
	Policy *policy.Policy
	// Ask settles a destination the policy asks about (a person through
	// the ask channel, or ask_fallback). nil: ask_fallback at once.
	Ask Asker
	// Record receives, for each CONNECT tunnel and each forwarded
	// plain-HTTP request, its decision before anything is dialled or
	// answered, and, for one that went ahead, a second record when it
	// ends. The decision: Event "egress", Source "sandbox", Tool the
	// method (CONNECT, GET …), Target host:port (canonical host),
	// Decision the policy's action, Effective allow or block, Rule,
	// Reason, Mode, and Detail "method=… port=…" plus status= (the
	// proxy's own answer to a refused one), error=, note= and ask= when
	// they apply. The end: Event "egress_end", the same fields, Detail
	// "method=… port=… bytes_in=… bytes_out=… duration_ms=…" plus
	// dialed=IP:port, status= and error= when they apply. bytes_out is
	// what the client sent towards the host, bytes_in what came back.
	// A decision Record reports as not written (audit.Written false)
	// refuses the connection, an allow included, with the cause (403,
	// rule audit-unwritable), unless Getenv("AIRLOCK_FAIL_OPEN") is "1".
	// Calls are serialised. nil: nothing is recorded.
	Record func(rec audit.Record) error
	// MaxBytesOut caps, per host, the bytes clients send to it over the
	// proxy's life. Keys are in any spelling CanonicalHost accepts and
	// match the host as the client named it (a cap on a name does not
	// cover its IP written directly; the policy decides that IP). Bytes
	// are counted as they are relayed, but the cap is checked when a
	// connection opens and an open connection is never cut: a
	// connection's count is known when it closes, so the cap applies from
	// the next connection. nil takes the policy's egress.max_bytes_out.
	MaxBytesOut map[string]int64
	// AllowCleartext lets plain HTTP (a forwarded http:// request, or a
	// CONNECT to port 80) reach internet addresses. By default it is
	// refused (rule egress.cleartext): what crosses the internet in clear
	// can be read and changed on the way. Loopback, private (RFC 1918,
	// fc00::/7) and link-local destinations are not the internet and are
	// left to the policy.
	AllowCleartext bool
	// Listen is a loopback host:port; default "127.0.0.1:0".
	Listen string
	// Session is written into every record.
	Session string
	// Home is the audit log's directory, named in a refusal of a
	// connection whose decision could not be recorded.
	Home string
	// Getenv reads AIRLOCK_FAIL_OPEN; nil reads nothing (fail closed).
	Getenv func(string) string

	// Lookup resolves a host name; nil uses net.DefaultResolver.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// IdleTimeout ends a tunnel or forward on which nothing moved in
	// either direction for this long; default 5 minutes.
	IdleTimeout time.Duration
	// DialTimeout bounds name resolution plus connecting; default 10s.
	DialTimeout time.Duration
	// CloseTimeout bounds how long Close waits for open connections
	// before cutting them; default 5s.
	CloseTimeout time.Duration
}

// Limits on what one client can make the proxy hold.
const (
	egressMaxHeaderBytes    = 64 << 10
	egressReadHeaderTimeout = 10 * time.Second
	egressClientIdle        = 2 * time.Minute // keep-alive between plain-HTTP requests
	egressBufSize           = 32 << 10
)

// Asker puts a destination to a person; *ask.Channel is one.
type Asker interface {
	Ask(ctx context.Context, r ask.Request) ask.Outcome
}

// egress is a running proxy.
type egress struct {
	opt      egressOptions
	decide   func(host string, port int, scheme string, ofName bool) egressVerdict
	ln       net.Listener
	srv      *http.Server
	addr     netip.AddrPort
	caps     map[string]int64
	lookup   func(ctx context.Context, host string) ([]netip.Addr, error)
	served   chan struct{}
	closeErr error
	once     sync.Once

	sentMu sync.Mutex
	sent   map[string]*atomic.Int64 // canonical host → bytes sent to it, live

	connMu  sync.Mutex
	open    map[egressCutter]struct{} // upstream connections in use, for Close to cut
	active  int                       // requests and tunnels being served
	closing bool                      // Close has begun: new requests get 503
	cutting bool                      // Close's wait is over: cut on sight
	drained chan struct{}             // closed when closing and active reaches 0

	recMu     sync.Mutex
	recordErr error
}

// StartEgress listens and serves until Close.
func StartEgress(opt egressOptions) (*egress, error) {
	e := &egress{opt: opt, sent: map[string]*atomic.Int64{}, open: map[egressCutter]struct{}{},
		served: make(chan struct{}), drained: make(chan struct{})}
	switch {
	case opt.Decide != nil:
		e.decide = egressFuncVerdict(opt.Decide)
	case opt.Policy != nil:
		e.decide = egressPolicyVerdict(opt.Policy, opt.Ask)
	default:
		return nil, errors.New("egress proxy: no policy and no Decide function: refusing to start a proxy that decides nothing")
	}
	if e.opt.IdleTimeout <= 0 {
		e.opt.IdleTimeout = 5 * time.Minute
	}
	if e.opt.DialTimeout <= 0 {
		e.opt.DialTimeout = 10 * time.Second
	}
	if e.opt.CloseTimeout <= 0 {
		e.opt.CloseTimeout = 5 * time.Second
	}
	e.lookup = opt.Lookup
	if e.lookup == nil {
		e.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	caps := opt.MaxBytesOut
	if caps == nil && opt.Policy != nil {
		caps = opt.Policy.MaxBytesOut
	}
	e.caps = make(map[string]int64, len(caps))
	for h, n := range caps {
		c := policy.CanonicalHost(h)
		if c == "" || n < 0 {
			return nil, fmt.Errorf("egress proxy: max_bytes_out %q: %d: not a host and a byte count >= 0", h, n)
		}
		if old, ok := e.caps[c]; !ok || n < old {
			e.caps[c] = n
		}
	}
	listen := opt.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	lh, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen address %q: %w", listen, err)
	}
	// An open proxy on a reachable interface would lend this machine's
	// network, and the policy's allowances, to anyone who can reach it.
	if a, err := netip.ParseAddr(lh); err != nil || !a.IsLoopback() {
		return nil, fmt.Errorf("egress proxy: listen address %q is not a loopback IP", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on %s: %w", listen, err)
	}
	e.ln = ln
	e.addr = ln.Addr().(*net.TCPAddr).AddrPort()
	e.srv = &http.Server{
		Handler:           e,
		MaxHeaderBytes:    egressMaxHeaderBytes,
		ReadHeaderTimeout: egressReadHeaderTimeout,
		IdleTimeout:       egressClientIdle,
		// "OPTIONS *" is a question to the proxy itself: answered 400 below,
		// not with the server's generic 200.
		DisableGeneralOptionsHandler: true,
		// Malformed requests are answered 400 by the server; its log
		// lines would land on the user's terminal, in the agent's output.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(e.served)
		_ = e.srv.Serve(ln) // returns ErrServerClosed on Close
	}()
	return e, nil
}

// Addr is the proxy's host:port.
func (e *egress) Addr() string { return e.addr.String() }

// Env is what the child's environment needs so that proxy-aware programs
// (curl, git, npm, pip, Go, Node with a proxy agent …) use the proxy for
// everything: NO_PROXY is set empty so that an inherited one cannot route
// a host around it. Programs that ignore these variables are stopped by
// the launcher's network rules, not by this list.
func (e *egress) Env() []string {
	u := "http://" + e.Addr()
	var env []string
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u, strings.ToLower(k)+"="+u)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

// RecordErr is the first error Record returned, if any. A connection whose
// decision could not be recorded was refused (or, with AIRLOCK_FAIL_OPEN=1,
// let through unrecorded); an end record that failed leaves the decision
// in the log. The launcher reports this at the end of the session.
func (e *egress) RecordErr() error {
	e.recMu.Lock()
	defer e.recMu.Unlock()
	return e.recordErr
}

// Close stops accepting, waits up to CloseTimeout for open requests and
// tunnels to finish, then cuts what is left. Every connection's end is
// recorded before Close returns.
func (e *egress) Close() error {
	e.once.Do(func() {
		e.connMu.Lock()
		e.closing = true
		if e.active == 0 {
			close(e.drained)
		}
		e.connMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), e.opt.CloseTimeout)
		defer cancel()
		// Shutdown closes the listener and idle keep-alive connections and
		// waits for requests in flight; it does not see hijacked tunnels,
		// which drained covers.
		err := e.srv.Shutdown(ctx)
		select {
		case <-e.drained:
		case <-ctx.Done():
			e.connMu.Lock()
			e.cutting = true
			for c := range e.open {
				c.cut()
			}
			e.connMu.Unlock()
			_ = e.srv.Close()
			<-e.drained
		}
		<-e.served
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			e.closeErr = fmt.Errorf("egress proxy: close: %w", err)
		}
	})
	return e.closeErr
}

// egressCutter is a connection Close can end: a tunnel, or a forward's
// upstream.
type egressCutter interface{ cut() }

func (e *egress) track(c egressCutter) {
	e.connMu.Lock()
	defer e.connMu.Unlock()
	if e.cutting {
		c.cut() // opened while Close was cutting: would otherwise live on
		return
	}
	e.open[c] = struct{}{}
}

func (e *egress) untrack(c egressCutter) {
	e.connMu.Lock()
	delete(e.open, c)
	e.connMu.Unlock()
}

// ServeHTTP sorts a request into CONNECT, an absolute-form forward, or a
// request that is not for a proxy at all.
func (e *egress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.connMu.Lock()
	if e.closing {
		e.connMu.Unlock()
		w.Header().Set("Connection", "close")
		egressError(w, http.StatusServiceUnavailable, "Airlock's egress proxy is shutting down")
		return
	}
	e.active++
	e.connMu.Unlock()
	defer func() {
		e.connMu.Lock()
		e.active--
		if e.active == 0 && e.closing {
			close(e.drained)
		}
		e.connMu.Unlock()
	}()
	switch {
	case r.Method == http.MethodConnect:
		e.serveConnect(w, r)
	case r.URL.IsAbs():
		e.serveForward(w, r)
	default:
		egressError(w, http.StatusBadRequest, "Airlock's egress proxy takes only proxy requests (CONNECT host:port, or a method with an absolute http:// URL); this was a request to the proxy itself: "+egressClip(r.RequestURI, 200))
	}
}

func egressError(w http.ResponseWriter, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = fmt.Fprintln(w, msg)
}

// egressRefuse answers 403 with the rule and its reason, so that the agent (and
// the person reading its transcript) sees why, not a bare connection error.
func egressRefuse(w http.ResponseWriter, host string, v egressVerdict) {
	w.Header().Set("X-Airlock-Rule", v.rule)
	egressError(w, http.StatusForbidden, "Airlock blocked this connection: "+host+": "+v.rule+": "+v.reason)
}

func egressClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// egressExchange is one tunnel or one forwarded request: what was asked, what
// was decided, what moved.
type egressExchange struct {
	method string
	host   string // canonical
	port   int
	dialed string // the IP:port connected to
	v      egressVerdict
	status int    // the proxy's answer to the client, for refusals and errors
	err    string // what went wrong after the decision
	note   string // what observe mode let through
	start  time.Time
	in     atomic.Int64 // upstream → client
	out    atomic.Int64 // client → upstream
	total  *atomic.Int64
}

// addOut counts bytes that left for ex.host, on the exchange and on the
// host's running total the cap is checked against.
func (ex *egressExchange) addOut(n int) {
	ex.out.Add(int64(n))
	if ex.total != nil {
		ex.total.Add(int64(n))
	}
}

// Record events.
const (
	egressEventDecision  = "egress"
	egressEventEnd       = "egress_end"
	egressRuleUnrecorded = "audit-unwritable"
	egressFailOpenEnv    = "AIRLOCK_FAIL_OPEN"
)

// decided writes ex's decision record, before anything is dialled or
// answered. It reports whether the connection may go ahead: an allowed
// one whose record could not be written is refused (ex.v becomes the
// refusal, ex.status 403) unless AIRLOCK_FAIL_OPEN=1.
func (e *egress) decided(ex *egressExchange) bool {
	err := e.record(ex, egressEventDecision)
	if ex.status != 0 || audit.Written(err) {
		return ex.status == 0
	}
	why := audit.Unwritable(err, e.home())
	if home.FailOpen(e.opt.Getenv) { // never on a managed machine
		ex.note = joinEgressNote(ex.note, "not recorded, let through because "+egressFailOpenEnv+"=1: "+why)
		return true
	}
	ex.v = egressVerdict{decision: "block", rule: egressRuleUnrecorded, mode: ex.v.mode,
		reason: "Airlock refuses a connection it cannot record: " + why + " (or set " + egressFailOpenEnv + "=1 to let connections through unrecorded)"}
	ex.status = 403
	return false
}

func joinEgressNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func (e *egress) home() string {
	if e.opt.Home != "" {
		return e.opt.Home
	}
	return "$AIRLOCK_HOME"
}

// recordEnd writes the end of a connection that went ahead, with what it
// moved.
func (e *egress) recordEnd(ex *egressExchange) { _ = e.record(ex, egressEventEnd) }

func (e *egress) record(ex *egressExchange, event string) error {
	if e.opt.Record == nil {
		return nil
	}
	eff := "allow"
	if !ex.v.allow {
		eff = "block"
	}
	var d strings.Builder
	fmt.Fprintf(&d, "method=%s port=%d", ex.method, ex.port)
	if event == egressEventEnd {
		fmt.Fprintf(&d, " bytes_in=%d bytes_out=%d duration_ms=%d", ex.in.Load(), ex.out.Load(), time.Since(ex.start).Milliseconds())
	}
	if ex.dialed != "" {
		fmt.Fprintf(&d, " dialed=%s", ex.dialed)
	}
	if ex.status != 0 {
		fmt.Fprintf(&d, " status=%d", ex.status)
	}
	if ex.err != "" {
		fmt.Fprintf(&d, " error=%q", ex.err)
	}
	if ex.note != "" {
		fmt.Fprintf(&d, " note=%q", ex.note)
	}
	if ex.v.note != "" {
		fmt.Fprintf(&d, " ask=%q", ex.v.note)
	}
	rec := audit.Record{
		Event:     event,
		Source:    "sandbox",
		Session:   e.opt.Session,
		Tool:      ex.method,
		Decision:  ex.v.decision,
		Effective: eff,
		Rule:      ex.v.rule,
		Reason:    ex.v.reason,
		Target:    net.JoinHostPort(ex.host, fmt.Sprint(ex.port)),
		Detail:    d.String(),
		Mode:      ex.v.mode,
		Asked:     ex.v.asked,
	}
	e.recMu.Lock()
	defer e.recMu.Unlock()
	err := e.opt.Record(rec)
	if err != nil && e.recordErr == nil {
		e.recordErr = fmt.Errorf("egress proxy: audit record for %s: %w", rec.Target, err)
	}
	return err
}
