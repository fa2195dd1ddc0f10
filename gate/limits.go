package gate

import (
	"errors"
	"time"

	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/policy"
)

// recentCalls counts c for the policy's limits and returns what the
// limits stage reads: the session's calls and the server's. nil when
// nothing is counted (no counter, no limits, or no session and no
// server to count by).
func (g *Gate) recentCalls(c Call, server string, now time.Time) *policy.Recent {
	l := &g.Policy.Limits
	if g.Calls == nil || !l.On() {
		return nil
	}
	sw, vw := l.SessionWindow(), l.ServerWindow()
	if c.Session == "" {
		sw = 0
	}
	if server == "" {
		vw = 0
	}
	if sw == 0 && vw == 0 {
		return nil
	}
	r := &policy.Recent{Digest: policy.CallDigest(c.Tool, c.Input)}
	call := calls.Call{At: now.UnixMilli(), Digest: r.Digest, Tool: c.Tool}
	count := func(key string, w time.Duration) []policy.Seen {
		seen, err := g.Calls.Count(key, call, w)
		if err != nil {
			r.Err = err.Error()
			if !errors.Is(err, calls.ErrReset) {
				return nil
			}
		}
		out := make([]policy.Seen, len(seen))
		for i, s := range seen {
			out[i] = policy.Seen{At: s.At, Tool: s.Tool, Digest: s.Digest}
		}
		return out
	}
	if sw > 0 {
		r.Session = count("session:"+c.Session, sw)
	}
	if vw > 0 {
		r.Server = count("server:"+server, vw)
	}
	return r
}
