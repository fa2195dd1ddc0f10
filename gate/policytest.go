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
// forbid's look-alike (expect allow) when that forbid is not what stops it:
// the policy may still ask on other grounds. cwd is where a test without
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
	switch {
	case t.Forbid == "":
		out.Pass = d.Action == t.Expect && (t.Rule == "" || d.Rule == t.Rule)
	case t.Expect == policy.Allow:
		out.Pass = d.Rule != t.Forbid
	default:
		out.Pass = d.Action == t.Expect && d.Rule == t.Forbid
		if !out.Pass && d.Action == t.Expect {
			alone := *g.Policy
			alone.Forbids = nil
			for _, f := range g.Policy.Forbids {
				if f.ID == t.Forbid {
					alone.Forbids = append(alone.Forbids, f)
				}
			}
			ag := *g
			ag.Policy = &alone
			d2 := ag.Decide(call).Decision
			out.Pass = d2.Action == t.Expect && d2.Rule == t.Forbid
		}
	}
	return out
}
