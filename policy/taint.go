package policy

import "fmt"

// Taint is what the gate knows of a session that has seen untrusted
// content with indicators (package taint holds it): where that came from,
// and the hosts the session used before. Decide's taint stage escalates
// the session's privileged actions to the policy's taint.action while it
// lasts; nil is an untainted session.
type Taint struct {
	// Provenance names the source for the reason: "the result of
	// mcp__notes__read_note at 12:03: instructions to read ~/.ssh/id_rsa".
	Provenance string
	// Known reports a host (canonical) the session used before the
	// taint; nil knows none.
	Known func(host string) bool
}

// taintDecision raises d when the session is tainted and the call is
// privileged: data to a host the session had not used, a write outside
// the workspace, a shell command that reaches the network or runs an
// interpreter on downloaded text, a read of a secret-class path (where an
// override lets it through too). It runs after the grants, so no grant
// lifts it, and never lowers a decision.
func (p *Policy) taintDecision(f *Facts, d Decision, t *Taint) Decision {
	if t == nil || p.TaintAction <= d.Action {
		return d
	}
	why, target, arg := p.privileged(f, t)
	if why == "" {
		return d
	}
	return Decision{Action: p.TaintAction, Source: FromTaint, Rule: "taint.privileged",
		Reason: fmt.Sprintf("%s while the session is tainted, after %s", why, t.Provenance),
		Target: clip(target, 120), Arg: arg, Hidden: arg != "" && arg != f.PrimaryArg}
}

// privileged says what makes a call privileged for a tainted session, and
// where: "" when nothing does.
func (p *Policy) privileged(f *Facts, t *Taint) (why, target, arg string) {
	shell := len(f.Commands) > 0
	for _, s := range f.Signals {
		if s.Signal == signalDownloadExec || s.Signal == signalReverseShell {
			return "a shell command runs downloaded text", s.Detail, s.Arg
		}
	}
	for _, h := range f.Hosts {
		if shell {
			return "a shell command reaches the network (" + h.Host + ")", h.Raw, h.Arg
		}
		if t.Known == nil || !t.Known(h.Host) {
			return "data goes to " + h.Host + ", a host this session had not used before", h.Raw, h.Arg
		}
	}
	ws := p.Vars.Workspace
	for i := range f.Paths {
		pf := &f.Paths[i]
		if pf.Access&accessWrite != 0 && (ws == "" || !within(pf.Path, ws)) {
			return "a write outside the workspace", pf.Path, pf.Arg
		}
	}
	if len(p.secretReads) > 0 && len(f.Paths) > 0 {
		reads := Facts{Tool: f.Tool, ltool: f.ltool, ltoolOf: f.ltoolOf, roles: f.roles}
		for _, pf := range f.Paths {
			if pf.Access&accessRead != 0 {
				reads.Paths = append(reads.Paths, pf)
			}
		}
		for _, r := range p.secretReads {
			if hit, ok := r.Match(&reads); ok {
				return "a read of a secret-class path (" + r.ID + ")", hit.Target, hit.Arg
			}
		}
	}
	return "", "", ""
}
