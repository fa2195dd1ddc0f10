package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Limits are the policy's budgets of calls: caps of calls a minute per
// tool pattern, counted per agent session or per MCP server (limits:), and
// the loop detector (loop:), which catches the same call (the same tool
// with the same arguments) made again and again. Decide's limits stage
// reads what a counter saw (Recent) and asks or blocks; the counting is
// its callers' (package calls for the hook, memory for the proxy).
type Limits struct {
	Loop  *Loop   // nil: no loop detector
	Rates []*Rate // every cap; a call may meet several
}

// Loop is the loop detector: a call made more than Repeat times within
// Window gets Action.
type Loop struct {
	Repeat int
	Window time.Duration
	Action Action
	// Except names tools whose repeats are how waiting is written
	// (Claude Code's BashOutput polls a background shell), never counted.
	Except string
	except *Rule
}

// Rate caps the calls of the tools Tool names: more than PerMinute of them
// within a minute, in one session (Per "session") or to one MCP server
// (Per "server", from any session), get Action.
type Rate struct {
	Tool      string
	PerMinute int
	Per       string
	Action    Action
	Line      int
	tools     *Rule
}

// The limits stage's rules, as the records name them.
const (
	LoopRule        = "limits.loop"
	SessionRateRule = "limits.session"
	ServerRateRule  = "limits.server"
	StateRule       = "limits.state"
)

// maxCount bounds what a limit may say: a counter keeps at most this many
// calls of one session or server within a window.
const maxCount = 4000

// rateWindow is a Rate's window.
const rateWindow = time.Minute

// Tally is what a counter saw of one session's or one server's calls
// when it counted this one (the newest, included). Windows are spans back
// from this call, ones the counter was asked about (SessionSpans,
// ServerSpans); a counter keeps counts, not the calls, so a stage asks
// only what those spans were counted for.
type Tally interface {
	// Same is how many calls within window had digest (CallDigest).
	Same(digest string, window time.Duration) int
	// Tools is how many calls within window were of tools match
	// accepts; match is asked once per distinct tool name.
	Tools(window time.Duration, match func(tool string) bool) int
}

// Recent is the limits stage's input: what a counter saw (nil: the
// caller counts nothing).
type Recent struct {
	Digest  string // this call's CallDigest
	Session Tally  // the session's calls; nil when not counted
	Server  Tally  // the call's MCP server's calls; nil when not counted
	// Err says the counts could not be read or kept ("" when they were):
	// the stage then gives this call the strictest limit's action, once,
	// and the counter starts over (never silently, never a bypass).
	Err string
}

// On reports whether the policy has any limit to count for.
func (l *Limits) On() bool { return l.Loop != nil || len(l.Rates) > 0 }

// SessionSpans are what a session's calls are counted for: same, the
// loop's window (the calls with this one's digest), and tools, the caps'
// minute (the calls of each tool); 0 when not asked.
func (l *Limits) SessionSpans() (same, tools time.Duration) {
	if l.Loop != nil {
		same = l.Loop.Window
	}
	for _, r := range l.Rates {
		if r.Per == "session" {
			tools = rateWindow
		}
	}
	return same, tools
}

// ServerSpans is what an MCP server's calls are counted for: the caps'
// minute, by tool (0: never counted).
func (l *Limits) ServerSpans() (tools time.Duration) {
	for _, r := range l.Rates {
		if r.Per == "server" {
			return rateWindow
		}
	}
	return 0
}

// SessionWindow is how far back a session's calls are counted (0: never).
func (l *Limits) SessionWindow() time.Duration {
	same, tools := l.SessionSpans()
	return max(same, tools)
}

// ServerWindow is how far back an MCP server's calls are counted (0:
// never).
func (l *Limits) ServerWindow() time.Duration { return l.ServerSpans() }

// CallDigest names a call for the loop detector: its tool and its
// arguments, byte for byte.
func CallDigest(tool string, input []byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(input)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// limitsDecision raises d when the call's counts pass a limit; the
// strictest limit passed decides. It runs after the grants (a grant does
// not lift a loop: the window passing does) and never lowers a decision.
func (p *Policy) limitsDecision(f *Facts, d Decision, r *Recent) Decision {
	l := &p.Limits
	if r == nil || !l.On() || d.Action == Block {
		return d
	}
	out := d
	raise := func(a Action, rule, reason string) {
		if a > out.Action {
			out = Decision{Action: a, Source: FromLimit, Rule: rule, Reason: reason, Target: f.Primary, Arg: f.PrimaryArg}
		}
	}
	if r.Err != "" {
		raise(l.strictest(), StateRule, "the call counts could not be read ("+clip(r.Err, 200)+"); they start over")
	}
	if lp := l.Loop; lp != nil && r.Session != nil && lp.Action > out.Action && (lp.except == nil || !lp.except.matchToolOf(f)) {
		if n := r.Session.Same(r.Digest, lp.Window); n > lp.Repeat {
			raise(lp.Action, LoopRule, fmt.Sprintf("the same call %d times in %s (loop: %s after %d)", n, shortDuration(lp.Window), lp.Action, lp.Repeat))
		}
	}
	for _, rt := range l.Rates {
		if rt.Action <= out.Action || !rt.tools.matchToolOf(f) {
			continue
		}
		seen, rule, where := r.Session, SessionRateRule, "in this session"
		if rt.Per == "server" {
			seen, rule, where = r.Server, ServerRateRule, "to this server"
		}
		if seen == nil {
			continue
		}
		if n := seen.Tools(rateWindow, rt.tools.matchTool); n > rt.PerMinute {
			raise(rt.Action, rule, fmt.Sprintf("%d calls of %s in 1m %s (limits: %s above %d a minute)", n, rt.Tool, where, rt.Action, rt.PerMinute))
		}
	}
	return out
}

// strictest is the strictest action of any limit.
func (l *Limits) strictest() Action {
	a := Allow
	if l.Loop != nil {
		a = l.Loop.Action
	}
	for _, r := range l.Rates {
		a = stricter(a, r.Action)
	}
	return a
}

// tighten merges a tighten-only layer's limits (the overlay's, the
// managed policy's) into l: a loop detector repeats fewer times, over a
// longer window, with a stricter action; every cap of o is added (one more
// cap only ever refuses more).
func (l *Limits) tighten(o Limits) {
	if ol := o.Loop; ol != nil && ol.Action != Allow {
		if l.Loop == nil || l.Loop.Action == Allow {
			cp := *ol
			l.Loop = &cp
		} else {
			cp := *l.Loop
			cp.Repeat = min(cp.Repeat, ol.Repeat)
			cp.Window = max(cp.Window, ol.Window)
			cp.Action = stricter(cp.Action, ol.Action)
			if ol.Except != "" && cp.Except != ol.Except {
				// a layer's except only narrows: where the two layers
				// write different ones, no tool is excepted
				cp.Except, cp.except = "", nil
			}
			l.Loop = &cp
		}
	}
	l.Rates = append(l.Rates, o.Rates...)
}

// shortDuration writes 2m rather than 2m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
