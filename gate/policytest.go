package gate

import (
	"path/filepath"

	"github.com/agentairlock/airlock/policy"
)

// TestOutcome is what one policy test (policy.Test) came to.
type TestOutcome struct {
	Test     policy.Test
	Decision policy.Decision // what the policy decided on the call
	Pass     bool
	Skipped  string // why it did not run; "" when it ran
}

// RunTest decides a policy test's call as the hook would (nothing is
// recorded, nobody is asked) and says whether the policy decided what the
// test expects: the action (before the mode) and, when the test names
// one, the rule. A forbid's example passes when that forbid stops the call
// (alone, when another forbid earlier in the list stops it first), and a
// forbid's look-alike (expect allow) when that forbid does not stop it,
// alone either: the policy may still ask or block on other grounds. A
// rule of the policy that has the forbid's id is not the forbid. cwd is where a test without
// cwd: runs.
func (g *Gate) RunTest(t policy.Test, cwd string) TestOutcome {
	out := TestOutcome{Test: t}
	if t.Forbid != "" {
		if _, off := g.Policy.Overrides[t.Forbid]; off {
			out.Skipped = "the policy overrides forbid " + t.Forbid
			return out
		}
	}
	if t.Skip != "" {
		out.Skipped = t.Skip
		return out
	}
	dir := cwd
	switch {
	case t.Cwd == "":
	case filepath.IsAbs(t.Cwd):
		dir = t.Cwd
	default:
		dir = filepath.Join(cwd, t.Cwd)
	}
	call := Call{Source: "cli", Tool: t.Tool, Input: t.Input, Cwd: dir, Attended: true}
	d := g.Decide(call).Decision
	out.Decision = d
	byForbid := func(d policy.Decision) bool { return d.Source == policy.FromForbid && d.Rule == t.Forbid }
	// alone decides the call with the test's forbid as the only forbid:
	// what that forbid does to it whatever forbid comes first
	alone := func() policy.Decision {
		p := *g.Policy
		p.Forbids = nil
		for _, f := range g.Policy.Forbids {
			if f.ID == t.Forbid {
				p.Forbids = append(p.Forbids, f)
			}
		}
		ag := *g
		ag.Policy = &p
		return ag.Decide(call).Decision
	}
	switch {
	case t.Forbid == "":
		out.Pass = d.Action == t.Expect && (t.Rule == "" || d.Rule == t.Rule)
	case t.Expect == policy.Allow:
		// a look-alike: the forbid does not stop it, even where another
		// forbid stops it first
		out.Pass = !byForbid(d) && (d.Source != policy.FromForbid || !byForbid(alone()))
	default:
		out.Pass = d.Action == t.Expect && byForbid(d)
		if !out.Pass && d.Action == t.Expect {
			d2 := alone()
			out.Pass = d2.Action == t.Expect && byForbid(d2)
		}
	}
	return out
}
