package policy

import (
	"fmt"
	"strings"
)

// Lint returns warnings about a policy that loads but may not do what its
// author thinks: rules no call can reach, overrides that relax nothing, a
// policy that enforces nothing.
func (p *Policy) Lint() []string {
	out := append([]string(nil), p.Warnings...)
	for i, r := range p.Rules {
		for _, earlier := range p.Rules[:i] {
			if earlier.hasFacts || earlier.never {
				continue
			}
			if covers(earlier.tools, r.tools) {
				out = append(out, fmt.Sprintf("%s:%d: rule %q is shadowed by rule %q (line %d), which matches every call to the same tools first",
					r.File, r.Line, r.ID, earlier.ID, earlier.Line))
				break
			}
		}
	}
	switch {
	case p.Mode == Observe:
		out = append(out, "mode observe: this policy refuses nothing (every decision is only logged)")
	case len(p.Rules) == 0 && p.Default == Allow:
		out = append(out, "no rules and default allow: only the built-in forbid list is enforced")
	}
	if p.Mode == Guard && p.Default != Allow {
		out = append(out, fmt.Sprintf("default %s has no effect in mode guard (an unmatched call is allowed); use mode enforce to apply it", p.Default))
	}
	return out
}

// covers reports whether every tool matched by b is matched by a, judged
// on the glob text (a has no tools, or a literal superset of b's).
func covers(a, b []string) bool {
	if len(a) == 0 {
		return true
	}
	if len(b) == 0 {
		for _, t := range a {
			if t == "*" {
				return true
			}
		}
		return false
	}
	for _, t := range b {
		ok := false
		for _, s := range a {
			if s == "*" || s == t || (!strings.ContainsAny(t, "*?") && wildMatch(s, t)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Summary is a short description of what is in force.
func (p *Policy) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source:       %s\n", p.Source)
	if p.Profile != "" {
		fmt.Fprintf(&b, "profile:      %s\n", p.Profile)
	}
	mode := p.Mode.String()
	if p.ModeFromEnv != "" {
		mode += " (from AIRLOCK_MODE)"
	}
	fmt.Fprintf(&b, "mode:         %s\n", mode)
	fmt.Fprintf(&b, "default:      %s\n", p.Default)
	fmt.Fprintf(&b, "ask_fallback: %s\n", p.AskFallback)
	if len(p.Escalate) > 0 {
		var parts []string
		for _, s := range []Severity{SevHigh, sevMed, sevLow} {
			if a, ok := p.Escalate[s]; ok {
				parts = append(parts, fmt.Sprintf("%s→%s", s, a))
			}
		}
		fmt.Fprintf(&b, "escalate:     %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "rules:        %d\n", len(p.Rules))
	fmt.Fprintf(&b, "grants:       %d\n", len(p.Grants))
	fmt.Fprintf(&b, "forbids:      %d built-in", len(p.Forbids))
	if len(p.Overrides) > 0 {
		fmt.Fprintf(&b, ", %d overridden", len(p.Overrides))
	}
	b.WriteString("\n")
	if m := p.ManagedFile(); m != "" {
		fmt.Fprintf(&b, "managed:      %s (%d rules, the floors above included)\n", m, len(p.managed.Rules))
	}
	if p.Vars.Workspace != "" {
		fmt.Fprintf(&b, "workspace:    %s\n", p.Vars.Workspace)
	}
	if p.Overlay != nil {
		fmt.Fprintf(&b, "overlay:      %s (%d tightening rules)\n", p.Overlay.File, len(p.Overlay.Rules))
	} else {
		b.WriteString("overlay:      none\n")
	}
	return b.String()
}
