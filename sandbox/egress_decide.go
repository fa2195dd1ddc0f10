package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan/secret"
)

// egressVerdict is the proxy's decision on one destination.
type egressVerdict struct {
	allow    bool
	decision string // the policy's action before the mode: allow | ask | block
	rule     string
	reason   string
	mode     string
	asked    string // how an ask was answered (audit.Asked*)
	note     string // what the ask channel said
}

// Rule ids of the proxy's own refusals.
const (
	egressRuleMaxBytesOut = "egress.max-bytes-out"
	egressRuleProxyLoop   = "egress.proxy-loop"
	egressRuleCleartext   = "egress.cleartext"
	egressRuleRefused     = "egress.refused"
	egressRuleInternal    = "internal-error"
)

func egressFuncVerdict(decide func(host string, port int, scheme string) (bool, string, string)) func(string, int, string, bool) egressVerdict {
	return func(host string, port int, scheme string, _ bool) egressVerdict {
		allow, rule, reason := decide(host, port, scheme)
		if allow {
			return egressVerdict{allow: true, decision: "allow", rule: rule, reason: reason}
		}
		if rule == "" {
			rule = egressRuleRefused
		}
		if reason == "" {
			reason = "refused by the egress decision"
		}
		return egressVerdict{decision: "block", rule: rule, reason: reason}
	}
}

// egressPolicyVerdict decides a destination the way the gate decides a WebFetch
// of scheme://host:port/ (policy.Decide; the gate's MCP-only stages do not
// apply), with the ask channel (asker) to settle an ask; nil: ask_fallback
// does at once. The built-in forbids for cloud metadata and exfiltration
// collectors, and a rule on cleartext http:// URLs such as the paranoid
// profile's, therefore hold here exactly as they hold for the agent's own
// fetches. sandbox may not import gate (DESIGN.md); both call the policy's
// one stage order.
//
// ofName marks an IP the destination's name resolved to. The name's
// verdict already applied the policy's default and its catch-all rules, so
// for such an IP only a forbid, or a rule whose host pattern matched the
// IP itself, refuses: a policy that allows "api.example.com" and blocks
// every other fetch must not refuse the address api.example.com resolves
// to, while 169.254.169.254 or a blocked 10.0.0.0/8 behind an innocent
// name is still refused.
func egressPolicyVerdict(p *policy.Policy, asker Asker) func(string, int, string, bool) egressVerdict {
	return func(host string, port int, scheme string, ofName bool) egressVerdict {
		input, err := json.Marshal(map[string]string{"url": egressURL(scheme, host, port)})
		if err != nil {
			return egressVerdict{decision: "block", rule: egressRuleInternal, reason: "cannot encode the destination: " + err.Error()}
		}
		f := policy.Classify("WebFetch", input, policy.CallEnv{NoResolve: true})
		pv := p.Decide(f, time.Now(), policy.Stages{})
		d, eff := pv.Decision, pv.Effective
		v := egressVerdict{allow: eff == policy.Allow, decision: d.Action.String(), rule: d.Rule, reason: d.Reason, mode: p.Mode.String()}
		if ofName && !v.allow && d.Source != policy.FromForbid && d.Source != policy.FromBudget && d.Target != host {
			v.allow = true
			return v
		}
		if eff == policy.Ask {
			// forbids, grants, rules and the overlay have all run: only an
			// ask reaches a person
			out := ask.Outcome{Answer: ask.Fallback, Asked: audit.AskedUnattended, Detail: "no ask channel"}
			if asker != nil {
				out = asker.Ask(context.Background(), ask.Request{
					// masked as the gate's questions and the log are: a
					// desktop dialog's text is its argv, which every local
					// user can read, and a name label can carry a secret
					Source: "sandbox", Tool: "egress " + scheme, Target: secret.Mask(net.JoinHostPort(host, strconv.Itoa(port))),
					Rule: d.Rule, Reason: secret.Mask(d.Reason), Fallback: p.AskFallback.String(), Shape: ask.Shape("sandbox", "", scheme, []byte(net.JoinHostPort(host, strconv.Itoa(port)))),
				})
			}
			switch out.Answer {
			case ask.Allow:
				v.allow = true
			case ask.Deny:
				v.allow = false
			default:
				v.allow = p.AskFallback == policy.Allow
			}
			v.asked, v.note = out.Asked, out.Detail
		}
		return v
	}
}

func egressURL(scheme, host string, port int) string {
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
}

// decideSafe runs the decision; a panic in it refuses, never allows.
func (e *egress) decideSafe(host string, port int, scheme string, ofName bool) (v egressVerdict) {
	defer func() {
		if r := recover(); r != nil {
			v = egressVerdict{decision: "block", rule: egressRuleInternal, reason: fmt.Sprintf("Airlock failed while deciding (%v); refusing the connection", r)}
		}
	}()
	return e.decide(host, port, scheme, ofName)
}

// hostTotal is the running count of bytes sent to a capped host, or nil
// when the host has no cap.
func (e *egress) hostTotal(host string) *atomic.Int64 {
	if _, ok := e.caps[host]; !ok {
		return nil
	}
	e.sentMu.Lock()
	defer e.sentMu.Unlock()
	t := e.sent[host]
	if t == nil {
		t = new(atomic.Int64)
		e.sent[host] = t
	}
	return t
}

// admit decides ex's destination and returns the addresses to dial, or nil
// with ex.status (and ex.v or ex.err) saying why not. Nothing is resolved
// for a refused name and nothing is dialled for a refused address.
//
// DNS rebinding: the name is decided, then every address it resolves to;
// one refused address refuses the connection (an answer that mixes a
// metadata IP into a public name's records is the attack, not noise), and
// only the addresses decided here are dialled — the connection never goes
// back to the resolver. Plain HTTP to an internet address is refused here
// too (see EgressOptions.AllowCleartext): only the address says whether a
// destination is on the internet.
func (e *egress) admit(ctx context.Context, ex *egressExchange, scheme string) []netip.Addr {
	ex.v = e.decideSafe(ex.host, ex.port, scheme, false)
	if !ex.v.allow {
		ex.status = 403
		return nil
	}
	if limit, ok := e.caps[ex.host]; ok {
		ex.total = e.hostTotal(ex.host)
		// Bytes are counted as they are relayed, but the cap is checked
		// only here, when a connection opens: an open connection is never
		// cut, so a host's total can pass its cap by what the connections
		// open at that moment go on to send, and a connection's own count
		// is known only when it closes.
		if sent := ex.total.Load(); sent >= limit && ex.proxyRefuses(egressRuleMaxBytesOut,
			fmt.Sprintf("%d bytes already sent to this host through the proxy, cap %d (max_bytes_out; checked when a connection opens)", sent, limit)) {
			return nil
		}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(ex.host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		rctx, cancel := context.WithTimeout(ctx, e.opt.DialTimeout)
		found, err := e.lookup(rctx, ex.host)
		cancel()
		if err != nil || len(found) == 0 {
			ex.status = 502
			ex.err = fmt.Sprintf("cannot resolve %s: %v", ex.host, err)
			return nil
		}
		seen := map[netip.Addr]bool{}
		for _, a := range found {
			c := policy.CanonicalHost(a.WithZone("").String())
			ca, err := netip.ParseAddr(c)
			if err != nil || seen[ca] {
				continue
			}
			seen[ca] = true
			if iv := e.decideSafe(c, ex.port, scheme, true); !iv.allow {
				iv.reason = ex.host + " resolved to " + c + ": " + iv.reason
				ex.v = iv
				ex.status = 403
				return nil
			}
			addrs = append(addrs, ca)
		}
		if len(addrs) == 0 {
			ex.status = 502
			ex.err = "cannot resolve " + ex.host + ": no usable address"
			return nil
		}
	}
	for _, a := range addrs {
		if scheme == "http" && !e.opt.AllowCleartext && !(a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified()) &&
			ex.proxyRefuses(egressRuleCleartext, "cleartext HTTP to an internet address ("+a.String()+") can be read and changed on the way; use https") {
			return nil
		}
		if ex.port == int(e.addr.Port()) && (a == e.addr.Addr() || a.IsLoopback() || a.IsUnspecified()) {
			ex.v = egressVerdict{decision: "block", rule: egressRuleProxyLoop, mode: ex.v.mode,
				reason: "a connection to the egress proxy itself"}
			ex.status = 400
			return nil
		}
	}
	return addrs
}

// proxyRefuses applies one of the proxy's own rules (the cap, cleartext):
// it refuses, except under a policy in observe mode, which refuses nothing
// and only notes what it would have refused.
func (ex *egressExchange) proxyRefuses(rule, reason string) bool {
	if ex.v.mode == policy.Observe.String() {
		ex.note = "observe mode: " + rule + " would refuse: " + reason
		return false
	}
	ex.v = egressVerdict{decision: "block", rule: rule, reason: reason, mode: ex.v.mode}
	ex.status = 403
	return true
}

// dial connects to the first address that answers.
func (e *egress) dial(ctx context.Context, ex *egressExchange, addrs []netip.Addr) (net.Conn, error) {
	d := net.Dialer{Timeout: e.opt.DialTimeout}
	var last error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, uint16(ex.port)).String()
		c, err := d.DialContext(ctx, "tcp", ap)
		if err == nil {
			ex.dialed = ap
			return c, nil
		}
		last = err
	}
	return nil, last
}

// egressTarget splits an authority into a canonical host and a port.
func egressTarget(authority string, defaultPort int) (host string, port int, err error) {
	h, p, splitErr := net.SplitHostPort(authority)
	if splitErr != nil {
		if defaultPort == 0 {
			return "", 0, fmt.Errorf("%q is not host:port", authority)
		}
		h, p = authority, strconv.Itoa(defaultPort)
	}
	port, perr := strconv.Atoi(p)
	if perr != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q has no valid port", authority)
	}
	host = policy.CanonicalHost(h)
	if host == "" {
		return "", 0, fmt.Errorf("%q names no usable host", authority)
	}
	return host, port, nil
}
