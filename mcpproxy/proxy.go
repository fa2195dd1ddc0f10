// Package mcpproxy is the stdio relay airlock-mcp runs between an agent
// and one MCP server. It forwards newline-delimited JSON-RPC both ways byte
// for byte and parses only what it polices (with gjson): tools/call,
// resources/read and prompts/get requests from the client, tools/list
// results from the server (to admit the toolset against its pin), and
// response ids (so a server cannot answer a request nobody sent).
//
// Unknown methods, fields, _meta, server→client requests and protocol
// versions it has never heard of pass untouched.
package mcpproxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/pins/schema"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/sandbox"
)

// Exit codes of airlock-mcp besides the child's own.
const (
	exitUsage    = 64  // bad arguments
	exitConfig   = 78  // policy, contracts or home could not be loaded; the server was not started
	exitNotFound = 127 // the server command does not exist
)

// Options configure one proxy run.
type Options struct {
	Name string   // the server's name (--name)
	Argv []string // the server command and its arguments
	Dir  string   // the working directory calls are decided in
	// Sandbox starts the server under the kernel sandbox with its
	// per-server profile (--sandbox).
	Sandbox bool

	// Upstream, when set, is the server in place of a child process
	// (airlock-mcp --url; Argv is then empty), URL its address.
	Upstream Upstream
	URL      string

	Stdin  io.Reader // from the client
	Stdout io.Writer // to the client
	Stderr io.Writer // the child's stderr and the proxy's own messages

	Gate     *gate.Gate  // policy, environment, contracts; Log and Toolsets are set by Run
	Log      *audit.Log  // where decisions are recorded
	Pins     *pins.Store // toolset pins
	Schemas  *schema.Schemas
	Inspect  pins.Inspector                     // judges a toolset seen for the first time
	Observe  func(tool string, f *policy.Facts) // records a footprint (observe mode); may be nil
	Grace    time.Duration                      // between SIGTERM and SIGKILL (default 5s)
	ListWait time.Duration                      // how long a call waits for the toolset (default 10s)
	Now      func() time.Time

	// ResultFilters run on every answer a model reads after the proxy's
	// own (ingress.go): the seam for what else reads results (masking).
	ResultFilters []ResultFilter
	// MarkTaint records that the connection's session (the gate's
	// Call.Session) is tainted, with the result that did it; nil records
	// the taint on the connection only.
	MarkTaint func(session, tool, why string)

	// MaxMessage is the longest message either side may send, in bytes
	// (default DefaultMaxMessage); a longer one is refused or dropped.
	MaxMessage int64
}

// Proxy is one running relay.
type Proxy struct {
	opts     Options
	gate     *gate.Gate
	log      *commitLog
	adm      *admission
	session  string
	toClient *lineWriter
	toServer *lineWriter

	mu            sync.Mutex
	pending       map[string]pendingReq // client requests the server has not answered, by id key (ids.go)
	serverPending map[string]uint64     // server requests the client has not answered, by id key
	answered      map[string]uint64     // client requests the proxy answered itself, by id key
	seq           uint64
	ownPrefix     string // ids of the proxy's own requests to the server
	unsolicited   int
	dropped       int // server lines dropped as malformed
	refused       int // client messages refused as malformed

	filters []ResultFilter // what every answer a model reads passes through (ingress.go)
	taint   taint          // set when such an answer carried indicators

	finished       sync.Once // the last records are written
	recordFailures int       // proxy events the log refused
	lastRecordWarn time.Time // when stderr last said so
}

type pendingReq struct {
	raw    string // the id as the client spelled it
	method string
	tool   string // tools/call and prompts/get: the name; resources/read: the uri
	first  bool   // tools/list without a cursor: a listing starts
	seq    uint64
}

// maxPending bounds each id map; past it the oldest entries are dropped,
// so a client that never reads answers cannot grow the proxy without end.
const maxPending = 4096

func (o *Options) defaults() {
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.ListWait <= 0 {
		o.ListWait = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Schemas == nil {
		o.Schemas = schema.NewSchemas()
	}
}

// Run starts the server and relays until it exits. It returns the exit
// code airlock-mcp should end with: the child's status, or ExitNotFound /
// ExitConfig when the server could not be started.
func Run(ctx context.Context, o Options) int {
	o.defaults()
	if o.Upstream != nil {
		return runUpstream(ctx, o)
	}
	if len(o.Argv) == 0 {
		fmt.Fprintln(o.Stderr, "airlock-mcp: no server command after --")
		return exitUsage
	}
	path, err := exec.LookPath(o.Argv[0])
	if err != nil {
		fmt.Fprintf(o.Stderr, "airlock-mcp: cannot start server %q: %v\n", o.Name, err)
		return exitNotFound
	}
	// Our own pipe, not StdoutPipe: cmd.Wait closes StdoutPipe's read end
	// as soon as the child exits, losing what it wrote last.
	childOut, childOutW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(o.Stderr, "airlock-mcp: %v\n", err)
		return exitConfig
	}
	defer childOut.Close()
	p := newProxy(o)
	var (
		cmd     *exec.Cmd
		childIn io.WriteCloser
		sb      *sandboxed
	)
	if o.Sandbox {
		sb, err = prepareSandbox(o, p, childOutW)
		if err != nil {
			childOutW.Close()
			msg := err.Error()
			if errors.Is(err, sandbox.ErrUnsupported) {
				msg = "--sandbox: " + msg
			}
			fmt.Fprintf(o.Stderr, "airlock-mcp: %s\nThe server %q was not started.\n", msg, o.Name)
			p.log.close()
			return exitConfig
		}
		defer sb.close()
		childIn = sb.stdinW
	} else {
		cmd = exec.Command(path, o.Argv[1:]...)
		cmd.Args[0] = o.Argv[0]
		cmd.Dir = o.Dir
		cmd.Stderr = o.Stderr
		cmd.Stdout = childOutW
		childIn, err = cmd.StdinPipe()
		if err != nil {
			childOutW.Close()
			fmt.Fprintf(o.Stderr, "airlock-mcp: %v\n", err)
			p.log.close()
			return exitConfig
		}
	}
	p.toServer = newLineWriter(childIn)
	p.record(audit.Record{Event: "mcp_start", Detail: fmt.Sprintf("server %q: %s", o.Name, describeArgv(redactArgv(o.Argv)))})
	if o.Log != nil && o.Gate.Policy != nil {
		home := o.Log.Home()
		c := gate.ConfigOf("mcp", o.Gate.Policy, o.Gate.Env, gate.FileDigest("contracts", filepath.Join(home, "contracts.yaml")))
		if err := gate.RecordConfig(o.Log, home, p.session, c); err != nil {
			fmt.Fprintf(o.Stderr, "airlock-mcp: %v\n", err)
		}
	}
	ignoreBrokenPipe()
	if sb != nil {
		fmt.Fprint(o.Stderr, sandboxBanner(o.Name, sb))
		p.record(sandboxStartRecord(o, sb))
		cmd, err = sb.sess.Start()
		sb.stdinR.Close() // the child holds its own copy
	} else {
		err = cmd.Start()
	}
	childOutW.Close() // the child holds its own copy
	if err != nil {
		fmt.Fprintf(o.Stderr, "airlock-mcp: cannot start server %q: %v\n", o.Name, err)
		childIn.Close()
		// mcp_start (and sandbox_start) are written: their ends say the
		// server never ran
		var last []audit.Record
		if sb != nil {
			sb.close()
			end, _ := sb.sess.EndRecord(0, err)
			last = append(last, end)
		}
		p.finish(append(last, audit.Record{Event: "mcp_exit", Detail: textsafe.Escape(fmt.Sprintf("server %q was not started: %v", o.Name, err))})...)
		return exitNotFound
	}

	exited := make(chan struct{})
	// A client that stops the proxy with a signal may kill it a moment
	// later (Codex sends SIGTERM to the process group and SIGKILL about
	// 10 ms after): the proxy's last record, and its checkpoint, are
	// written at the signal, before the server is waited for.
	stopSignals := forwardSignals(cmd.Process, o.Grace, exited, func(sig os.Signal) {
		why := "stopped by " + sandbox.SignalName(sig)
		var last []audit.Record
		if sb != nil {
			last = append(last, sb.sess.StoppedEndRecord(sig))
		}
		p.finish(append(last, audit.Record{Event: "mcp_exit", Detail: fmt.Sprintf("server %q: the proxy was %s and passed it to the server; the server's exit is not waited for%s", o.Name, why, p.dropSummary())})...)
	})
	defer stopSignals()

	// client → server; at the end of the client's input the server's
	// stdin is closed, and a server that does not leave is stopped.
	go func() {
		p.clientLoop(o.Stdin)
		childIn.Close()
		select {
		case <-exited:
		case <-time.After(o.Grace):
			terminate(cmd.Process, o.Grace, exited)
		case <-ctx.Done():
		}
	}()
	serverDone := make(chan struct{})
	go func() {
		p.serverLoop(childOut)
		close(serverDone)
	}()

	waitErr := cmd.Wait()
	close(exited)
	// The server's last words are still in the pipe: read to its end,
	// which comes once the child and any descendant holding it are gone.
	// A descendant that keeps it open gets a moment, not forever.
	select {
	case <-serverDone:
	case <-time.After(o.Grace):
		childOut.Close()
	}
	p.adm.close()
	code := exitCode(cmd.ProcessState, waitErr)
	detail := fmt.Sprintf("server %q exited with status %d", o.Name, code)
	detail += p.dropSummary()
	var last []audit.Record
	if sb != nil {
		sb.close()
		end, _ := sb.sess.EndRecord(code, nil)
		last = append(last, end)
	}
	p.finish(append(last, audit.Record{Event: "mcp_exit", Detail: detail})...)
	return code
}

// finish writes the proxy's last records (the sandbox's end, when there is
// one, then the proxy's) in one append with one checkpoint, and closes the
// log: nothing is recorded after them. Only the first call writes; a
// second one (Run ending while the signal's record is being written)
// returns only once the first is done, so the process never exits in the
// middle of its last append.
func (p *Proxy) finish(rs ...audit.Record) {
	p.finished.Do(func() {
		for i := range rs {
			rs[i] = p.stamp(rs[i])
		}
		if err := p.log.closeWith(rs...); err != nil && !errors.Is(err, errLogClosed) {
			fmt.Fprintf(p.opts.Stderr, "airlock-mcp: the proxy's last record was not written: %s\n", gate.Unrecorded(err, p.home()))
		}
	})
}

// home is the audit log's directory, for messages.
func (p *Proxy) home() string {
	if p.opts.Log != nil {
		return p.opts.Log.Home()
	}
	return "$AIRLOCK_HOME"
}

func newProxy(o Options) *Proxy {
	p := &Proxy{
		opts:          o,
		session:       "mcp-" + o.Name + "-" + randomHex(4),
		toClient:      newLineWriter(o.Stdout),
		pending:       map[string]pendingReq{},
		serverPending: map[string]uint64{},
		answered:      map[string]uint64{},
		ownPrefix:     `"airlock-` + randomHex(6) + `-`,
		filters:       append([]ResultFilter{readResults, maskSecrets}, o.ResultFilters...),
	}
	p.log = newCommitLog(o.Log)
	p.adm = newAdmission(p)
	g := *o.Gate
	g.Log = p.log
	g.Toolsets = p.adm
	p.gate = &g
	return p
}

// record writes a proxy event to the audit log and returns once it is
// written. A caller whose event gates what reaches the model refuses on an
// error; for the others the failure is reported on stderr (once a minute).
func (p *Proxy) record(r audit.Record) error {
	_, err := p.log.Append(p.stamp(r))
	if err != nil && !errors.Is(err, errLogClosed) && !errors.Is(err, audit.ErrCheckpoint) && !errors.Is(err, audit.ErrAnchor) {
		p.mu.Lock()
		p.recordFailures++
		n, warn := p.recordFailures, time.Since(p.lastRecordWarn) > time.Minute
		if warn {
			p.lastRecordWarn = time.Now()
		}
		p.mu.Unlock()
		if warn {
			fmt.Fprintf(p.opts.Stderr, "airlock-mcp: could not write the audit log (%d records so far): %s\n", n, gate.Unrecorded(err, p.home()))
		}
	}
	return err
}

// sayUnrecorded tells the person on stderr that a decision was let
// through unrecorded (AIRLOCK_FAIL_OPEN=1). A call refused because its
// record failed says why in its answer.
func (p *Proxy) sayUnrecorded(res gate.Result) {
	if res.FailedOpen() {
		fmt.Fprintf(p.opts.Stderr, "airlock-mcp: warning: let through unrecorded because %s=1: %s\n", gate.FailOpenEnv, gate.Unrecorded(res.AuditErr, p.home()))
	}
}

// recorded reports whether an event whose record gates what reaches the
// model may take effect after record returned err: it was written (a
// missed checkpoint is still written), or AIRLOCK_FAIL_OPEN=1 lets it pass.
func (p *Proxy) recorded(err error) bool {
	if err == nil || errors.Is(err, audit.ErrCheckpoint) || errors.Is(err, audit.ErrAnchor) {
		return true
	}
	g := p.opts.Gate
	return g != nil && home.FailOpen(g.Env.Getenv) // never on a managed machine
}

// stamp fills in what every record of this proxy says.
func (p *Proxy) stamp(r audit.Record) audit.Record {
	r.Source = "mcp"
	r.Session = p.session
	if r.Tool == "" {
		r.Tool = "mcp__" + p.opts.Name
	}
	return r
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprintf("%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b)
}

func describeArgv(argv []string) string {
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%q", a)
	}
	return textsafe.Escape(s)
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if c := signalExit(ps); c > 0 {
		return c
	}
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return 1
	}
	return 0
}
