package mcpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// Upstream is a server reached otherwise than as a child process: the
// remote bridge (mcpproxy/remote) in airlock-mcp --url. It is the one seam
// between the two: the proxy writes the lines it decided to forward to
// ToServer and reads the server's messages, one a line, from FromServer,
// exactly as it does with a child's stdin and stdout.
type Upstream interface {
	ToServer() io.WriteCloser
	FromServer() io.Reader
	Start()
	Done() <-chan struct{} // closed once the connection has ended
	Close()                // end it now
	Describe() string      // the server for records, without credentials
	// SetRecord gives it the proxy's recorder, for its reconnects and
	// broken streams; called before Start.
	SetRecord(func(event, detail string))
}

// runUpstream is Run for a remote server: the same relay, gate and
// records; the destination is judged first, as any URL the agent would
// fetch (the policy's host rules and forbids: a metadata address or a
// collector is refused), and recorded.
func runUpstream(ctx context.Context, o Options) int {
	up := o.Upstream
	p := newProxy(o)
	p.toServer = newLineWriter(up.ToServer())
	up.SetRecord(func(event, detail string) {
		p.record(audit.Record{Event: event, Detail: textsafe.Escape(detail)})
	})
	p.record(audit.Record{Event: "mcp_start", Detail: fmt.Sprintf("server %q: remote %s", o.Name, textsafe.Escape(up.Describe()))})
	if o.Log != nil && o.Gate.Policy != nil {
		home := o.Log.Home()
		c := gate.ConfigOf("mcp", o.Gate.Policy, o.Gate.Env, gate.FileDigest("contracts", filepath.Join(home, "contracts.yaml")))
		if err := gate.RecordConfig(o.Log, home, p.session, c); err != nil {
			fmt.Fprintf(o.Stderr, "airlock-mcp: %v\n", err)
		}
	}
	input, _ := json.Marshal(map[string]string{"url": destination(o.URL), "prompt": "airlock-mcp connects to the remote MCP server " + o.Name})
	res := p.decide(gate.Call{Tool: "WebFetch", Input: input})
	if res.Effective != policy.Allow {
		why := res.Decision.Explain()
		fmt.Fprintf(o.Stderr, "airlock-mcp: the remote server %q at %s is refused by the policy: %s\nThe server %q was not connected.\n", o.Name, up.Describe(), why, o.Name)
		p.finish(audit.Record{Event: "mcp_exit", Decision: "block", Rule: res.Decision.Rule, Reason: why,
			Detail: textsafe.Escape(fmt.Sprintf("server %q: the remote destination %s was refused; not connected", o.Name, up.Describe()))})
		return exitConfig
	}
	ignoreBrokenPipe()
	up.Start()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var code atomic.Int32
	stopped := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			code.Store(int32(128 + signalNumber(sig)))
			p.finish(audit.Record{Event: "mcp_exit", Detail: fmt.Sprintf("server %q: the proxy was stopped by a signal and closed the connection", o.Name)})
			up.Close()
		case <-ctx.Done():
			up.Close()
		case <-stopped:
		}
	}()
	go func() {
		p.clientLoop(o.Stdin)
		up.ToServer().Close()
	}()
	p.serverLoop(up.FromServer())
	<-up.Done()
	close(stopped)
	p.adm.close()
	p.finish(audit.Record{Event: "mcp_exit", Detail: fmt.Sprintf("server %q: the connection to %s ended", o.Name, textsafe.Escape(up.Describe())) + p.dropSummary()})
	return int(code.Load())
}

// destination is the URL as the gate judges and records it: scheme, host
// and path; a query (where some servers take a key) stays out of the log.
func destination(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 2
}
