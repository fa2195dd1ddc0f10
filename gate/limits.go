package gate

import (
	"errors"
	"time"

	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/policy"
)

// recentCalls counts c for the policy's limits and returns what the
// limits stage reads: what the counter saw of the session's calls and of
// the server's. nil when nothing is counted (no counter, no limits, or no
// session and no server to count by).
func (g *Gate) recentCalls(c Call, server string, now time.Time) *policy.Recent {
	l := &g.Policy.Limits
	if g.Calls == nil || !l.On() {
		return nil
	}
	var sess, srv []calls.Window
	if c.Session != "" {
		sess = windows(l.SessionSpans())
	}
	if server != "" {
		srv = windows(0, l.ServerSpans())
	}
	if len(sess) == 0 && len(srv) == 0 {
		return nil
	}
	r := &policy.Recent{Digest: policy.CallDigest(c.Tool, c.Input)}
	call := calls.Call{At: now.UnixMilli(), Digest: r.Digest, Tool: c.Tool}
	count := func(key string, ws []calls.Window) policy.Tally {
		t, err := g.Calls.Tally(key, call, ws)
		if err != nil {
			r.Err = err.Error()
			if !errors.Is(err, calls.ErrReset) {
				return nil
			}
		}
		if t == nil {
			return nil // never a typed nil in the interface
		}
		return t
	}
	if len(sess) > 0 {
		r.Session = count("session:"+c.Session, sess)
	}
	if len(srv) > 0 {
		r.Server = count("server:"+server, srv)
	}
	return r
}

// windows are what a key is counted for: the loop's window (same) and the
// caps' (tools), one window when they are the same span.
func windows(same, tools time.Duration) []calls.Window {
	switch {
	case same > 0 && tools > 0 && same != tools:
		return []calls.Window{{Span: same}, {Span: tools, Tools: true}}
	case tools > 0:
		return []calls.Window{{Span: tools, Tools: true}}
	case same > 0:
		return []calls.Window{{Span: same}}
	}
	return nil
}
