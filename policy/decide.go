package policy

import (
	"fmt"
	"time"
)

// Stages are a caller's own stages, each run in its place in the one order
// Decide keeps; a nil stage is skipped. The gate fills them for MCP calls.
type Stages struct {
	// Hold runs after the forbids and before the grants: a refusal no
	// grant lifts (the proxy's holds, unknown tools, argument schemas).
	// When it returns true its decision goes on to escalation.
	Hold func(f *Facts) (Decision, bool)
	// Contract runs after escalation and before the overlay, with the
	// decision so far; it returns the decision to go on with and a note
	// for the record (a report-only contract says what it would do).
	Contract func(f *Facts, d Decision) (Decision, string)
	// Taint is the session's taint (nil: none); its stage runs after
	// escalation and before the contract.
	Taint *Taint
	// Limits is what the caller's counter saw of the session's and the
	// server's recent calls (nil: nothing counted); its stage runs after
	// the taint stage and before the contract.
	Limits *Recent
}

// verdict is what Decide found.
type verdict struct {
	Decision  Decision
	Effective Action // after the mode; an ask stays an ask for the caller to settle
	Note      string // what a caller's stage added for the record
}

// Decide runs the one stage order on the facts of a call: budget → forbid
// → hold → grants → rules → default → escalation → taint → limits →
// contract → overlay → mode. Every front end (the gate, the sandbox's egress proxy, `airlock
// allow`'s check of a new grant) and the property tests decide through it,
// so the order is written here alone. now is when grants expire against.
//
// The effective action is the mode's answer for a caller that can put an
// ask to a person (Effective(d, true)); one that cannot maps an ask to
// AskFallback. A call refused by the budget stays refused in every mode but
// observe: not read is not clean.
func (p *Policy) Decide(f *Facts, now time.Time, s Stages) verdict {
	var v verdict
	d, ok := checkBudget(f)
	if !ok {
		d, ok = p.CheckForbids(f)
	}
	if !ok && s.Hold != nil {
		d, ok = s.Hold(f)
	}
	if !ok {
		d, ok = p.CheckGrants(f, now)
	}
	if !ok {
		d, ok = p.checkRules(f)
	}
	if !ok {
		d = p.defaultDecision(f)
	}
	if d.Source != FromBudget {
		d = p.EscalateDecision(f, d)
		d = p.taintDecision(f, d, s.Taint)
		d = p.limitsDecision(f, d, s.Limits)
	}
	if s.Contract != nil {
		d, v.Note = s.Contract(f, d)
	}
	d = p.overlayDecision(f, d)
	d = p.managedDecision(f, d)
	v.Decision = d
	v.Effective = p.Effective(d, true)
	if d.Source == FromBudget && p.Mode != Observe {
		v.Effective = Block
	}
	return v
}

// The stages Decide calls in its order. The forbids, the grants and
// escalation stay exported for the single questions other packages ask
// (is this a secret, which grant covers a record, is this flagged); none
// of them is a pipeline.

// checkBudget refuses a call whose arguments were not fully read.
func checkBudget(f *Facts) (Decision, bool) {
	if f.TooLarge == "" {
		return Decision{}, false
	}
	return Decision{Action: Block, Source: FromBudget, Rule: "budget",
		Reason: "arguments too large to inspect: " + f.TooLarge}, true
}

// CheckForbids runs the built-in forbid list against every fact. What a
// brief only names (Facts.Mentioned) meets the forbids after everything
// the call does: a forbid it fits asks, never blocks.
func (p *Policy) CheckForbids(f *Facts) (Decision, bool) {
	// A forbid met by what the call names is a truer reason than one met by
	// what its glob or tree might name (rm -rf /* is a delete of the root
	// before it is a write to /etc/profile): blocks on the literal facts
	// first.
	if lit, ok := literalPaths(f); ok {
		lk := kindsOf(lit)
		for _, r := range p.Forbids {
			if r.Action != Block || r.lacks(&lk) {
				continue
			}
			if hit, ok := r.Match(lit); ok {
				return decisionFrom(r, hit, f, FromForbid), true
			}
		}
	}
	// The first blocking forbid decides; an asking one that fits first is
	// kept only until a later one blocks (cp /dev/null ~/.gitconfig is a
	// global-config write, which asks, and a destruction, which blocks).
	var ask *Rule
	var askHit Hit
	k := kindsOf(f)
	for _, r := range p.Forbids {
		if ask != nil && r.Action != Block || r.lacks(&k) {
			continue
		}
		if hit, ok := r.Match(f); ok {
			if r.Action == Block {
				return decisionFrom(r, hit, f, FromForbid), true
			}
			ask, askHit = r, hit
		}
	}
	if ask != nil {
		return decisionFrom(ask, askHit, f, FromForbid), true
	}
	if m := f.Mentioned; m != nil && len(m.Paths) > 0 {
		mk := kindsOf(m)
		for _, r := range p.Forbids {
			if r.path == nil || r.lacks(&mk) {
				continue
			}
			if hit, ok := r.Match(m); ok {
				d := decisionFrom(r, hit, f, FromForbid)
				d.Action = min(d.Action, Ask)
				d.Via = "named in argument " + hit.Arg + ", read by nobody yet: the sub-agent's own calls are checked as it makes them"
				return d, true
			}
		}
	}
	return Decision{}, false
}

// CheckGrants finds an unexpired grant that covers the call.
func (p *Policy) CheckGrants(f *Facts, now time.Time) (Decision, bool) {
	if p.grantsBarred(f) {
		return Decision{}, false
	}
	for _, g := range p.Grants {
		if g.invalid || (!g.expiry.IsZero() && !now.Before(g.expiry)) {
			continue
		}
		if !g.tools.matchTool(f.Tool) {
			continue
		}
		if g.match != nil && !g.match.match(f) {
			continue
		}
		reason := g.Reason
		if reason == "" {
			reason = "granted"
		}
		return Decision{Action: Allow, Source: fromGrant, Rule: fmt.Sprintf("grant:%d", g.Line),
			Reason: reason, Target: f.Primary, Arg: f.PrimaryArg}, true
	}
	return Decision{}, false
}

// checkRules returns the first rule that matches.
func (p *Policy) checkRules(f *Facts) (Decision, bool) {
	for _, r := range p.Rules {
		if hit, ok := r.Match(f); ok {
			return decisionFrom(r, hit, f, fromRule), true
		}
	}
	return Decision{}, false
}

// defaultDecision is what an unmatched call gets.
func (p *Policy) defaultDecision(f *Facts) Decision {
	return Decision{Action: p.Default, Source: FromDefault, Rule: "default",
		Reason: "no rule matched; the policy's default is " + p.Default.String(), Target: f.Primary, Arg: f.PrimaryArg}
}

// EscalateDecision raises a decision when an indicator in the arguments has a
// severity the policy escalates. It never lowers one.
func (p *Policy) EscalateDecision(f *Facts, d Decision) Decision {
	if len(p.Escalate) == 0 || d.Action == Block {
		return d
	}
	for _, ind := range p.Indicators {
		to, ok := p.Escalate[ind.Severity]
		if !ok || to <= d.Action {
			continue
		}
		for i := range f.Texts {
			t := &f.Texts[i]
			for _, tp := range ind.texts {
				if tp.Match(t.fold) {
					return Decision{Action: to, Source: FromEscalation, Rule: ind.ID,
						Reason: fmt.Sprintf("%s (%s severity; escalated from %s)", ind.Reason, ind.Severity, d.Action),
						Target: clip(t.Raw, 120), Arg: t.Arg, Hidden: t.Arg != f.PrimaryArg}
				}
			}
		}
	}
	return d
}

// overlayDecision consults the repository's rules and keeps their answer only
// when it is stricter.
func (p *Policy) overlayDecision(f *Facts, d Decision) Decision {
	if p.Overlay == nil {
		return d
	}
	return tighten(p.Overlay.Rules, f, d, FromOverlay, " [project policy]")
}

// tighten is a tighten-only layer's answer (the overlay's, the managed
// policy's): its first rule that matches decides when it is stricter than
// d, and d stands otherwise.
func tighten(rules []*Rule, f *Facts, d Decision, src Source, mark string) Decision {
	for _, r := range rules {
		hit, ok := r.Match(f)
		if !ok {
			continue
		}
		if r.Action > d.Action {
			td := decisionFrom(r, hit, f, src)
			td.Reason += mark
			return td
		}
		return d
	}
	return d
}

// Effective applies the mode: observe refuses nothing; guard lets an
// unmatched call through; enforce keeps everything as written. attended
// says whether a person can answer an ask; when none can (the MCP proxy
// until an ask channel exists), the ask becomes ask_fallback.
func (p *Policy) Effective(d Decision, attended bool) Action {
	switch p.Mode {
	case Observe:
		return Allow
	case Guard:
		if d.Source == FromDefault {
			return Allow
		}
	}
	if d.Action == Ask && !attended {
		return p.AskFallback
	}
	return d.Action
}

func decisionFrom(r *Rule, hit Hit, f *Facts, src Source) Decision {
	d := Decision{
		Action: r.Action, Source: src, Rule: r.ID, Reason: r.Reason,
		Target: hit.Target, Arg: hit.Arg,
		Hidden: hit.Arg != "" && hit.Arg != f.PrimaryArg,
	}
	if r.Action != Allow && r.hasFacts {
		// an allow names nothing it found, nor does a rule that names no
		// fact; a refusal by a fact says where its target came from and
		// what the call does with it
		d.Via = f.via(hit)
		if hit.Via != "" {
			d.Via = hit.Via
		}
	}
	return d
}

// literalPaths is f without its glob and tree path facts, and whether it
// had any (a call without them needs no first pass).
func literalPaths(f *Facts) (*Facts, bool) {
	n := 0
	for i := range f.Paths {
		if f.Paths[i].Glob || f.Paths[i].Tree {
			n++
		}
	}
	if n == 0 {
		return nil, false
	}
	lit := *f
	lit.Paths = make([]PathFact, 0, len(f.Paths)-n)
	for _, pf := range f.Paths {
		if !pf.Glob && !pf.Tree {
			lit.Paths = append(lit.Paths, pf)
		}
	}
	return &lit, true
}
