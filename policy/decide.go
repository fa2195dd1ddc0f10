package policy

import (
	"fmt"
	"time"
)

// The stages of a decision, in the order the gate runs them: forbid →
// grants → rules → default → escalation → overlay → mode. Each is a method
// so the gate can put its own stages (holds, contracts) between them.

// CheckBudget refuses a call whose arguments were not fully read.
func CheckBudget(f *Facts) (Decision, bool) {
	if f.TooLarge == "" {
		return Decision{}, false
	}
	return Decision{Action: Block, Source: FromBudget, Rule: "budget",
		Reason: "arguments too large to inspect: " + f.TooLarge}, true
}

// CheckForbids runs the built-in forbid list against every fact.
func (p *Policy) CheckForbids(f *Facts) (Decision, bool) {
	for _, r := range p.Forbids {
		if hit, ok := r.Match(f); ok {
			return decisionFrom(r, hit, f, FromForbid), true
		}
	}
	return Decision{}, false
}

// CheckGrants finds an unexpired grant that covers the call.
func (p *Policy) CheckGrants(f *Facts, now time.Time) (Decision, bool) {
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
		return Decision{Action: Allow, Source: FromGrant, Rule: fmt.Sprintf("grant:%d", g.Line),
			Reason: reason, Target: f.Primary, Arg: f.PrimaryArg}, true
	}
	return Decision{}, false
}

// CheckRules returns the first rule that matches.
func (p *Policy) CheckRules(f *Facts) (Decision, bool) {
	for _, r := range p.Rules {
		if hit, ok := r.Match(f); ok {
			return decisionFrom(r, hit, f, FromRule), true
		}
	}
	return Decision{}, false
}

// DefaultDecision is what an unmatched call gets.
func (p *Policy) DefaultDecision(f *Facts) Decision {
	return Decision{Action: p.Default, Source: FromDefault, Rule: "default",
		Reason: "no rule matched; the policy's default is " + p.Default.String(), Target: f.Primary, Arg: f.PrimaryArg}
}

// Escalate raises a decision when an indicator in the arguments has a
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

// ApplyOverlay consults the repository's rules and keeps their answer only
// when it is stricter.
func (p *Policy) ApplyOverlay(f *Facts, d Decision) Decision {
	if p.Overlay == nil {
		return d
	}
	for _, r := range p.Overlay.Rules {
		hit, ok := r.Match(f)
		if !ok {
			continue
		}
		if r.Action > d.Action {
			od := decisionFrom(r, hit, f, FromOverlay)
			od.Reason += " [project policy]"
			return od
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
	return Decision{
		Action: r.Action, Source: src, Rule: r.ID, Reason: r.Reason,
		Target: hit.Target, Arg: hit.Arg,
		Hidden: hit.Arg != "" && hit.Arg != f.PrimaryArg,
	}
}
