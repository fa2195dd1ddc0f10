package main

// airlock allow recent and last: what the audit log says got in the way.

import (
	"fmt"
	"sort"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
	"github.com/urfave/cli/v2"
)

// gated is one group of calls that the gate stopped or asked about.
type gated struct {
	tool, rule, target string
	count, last        int
}

func gatedRecord(r audit.Record) bool {
	if r.Event != "decision" {
		return false
	}
	return r.Decision == "block" || r.Decision == "ask" || r.Effective == "block" || r.Effective == "ask"
}

// readGated streams the audit log (never loading it whole) and groups the
// gated decisions by tool, rule and target.
func readGated(home string) ([]*gated, error) {
	groups := map[[3]string]*gated{}
	n := 0
	err := audit.Each(home, func(e audit.Entry) error {
		n++
		r := e.Record
		if !gatedRecord(r) {
			return nil
		}
		k := [3]string{r.Tool, r.Rule, r.Target}
		g := groups[k]
		if g == nil {
			g = &gated{tool: r.Tool, rule: r.Rule, target: r.Target}
			groups[k] = g
		}
		g.count++
		g.last = n
		return nil
	})
	out := make([]*gated, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].last > out[j].last
	})
	return out, err
}

func runAllowRecent(c *cli.Context) error {
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	groups, err := readGated(a.env.AirlockHome)
	if err != nil {
		return exitWith(1, "airlock allow recent: %v", err)
	}
	w := c.App.Writer
	if len(groups) == 0 {
		fmt.Fprintln(w, "nothing was blocked or asked about")
		return nil
	}
	forbids := forbidSet()
	for i, g := range groups {
		note := ""
		if forbids[g.rule] {
			note = "  (built-in forbid: no grant can lift it)"
		}
		fmt.Fprintf(w, "%3d  %4d×  %-14s %-22s %s%s\n", i+1, g.count, g.tool, g.rule, audit.Escape(g.target), note)
	}
	fmt.Fprintln(w, "grant the latest with: airlock allow last")
	return nil
}

func forbidSet() map[string]bool {
	out := map[string]bool{}
	ids, _ := policy.ForbidIDs()
	for _, f := range ids {
		out[f[0]] = true
	}
	return out
}

func runAllowLast(c *cli.Context) error {
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	groups, err := readGated(a.env.AirlockHome)
	if err != nil {
		return exitWith(1, "airlock allow last: %v", err)
	}
	var latest *gated
	for _, g := range groups {
		if latest == nil || g.last > latest.last {
			latest = g
		}
	}
	if latest == nil {
		return exitWith(1, "airlock allow last: nothing was blocked or asked about")
	}
	var targets []string
	for _, g := range groups {
		if g.tool == latest.tool && g.rule == latest.rule && g.target != "" {
			targets = append(targets, g.target)
		}
	}
	sort.Strings(targets)
	for _, t := range targets {
		if err := a.checkForbid(latest.tool, t); err != nil {
			return err
		}
	}
	if _, overridden := a.p.Overrides[latest.rule]; forbidSet()[latest.rule] && !overridden {
		return exitWith(1, "airlock allow last: refused: %s was stopped by the built-in forbid %s; a grant cannot lift it: %s",
			latest.tool, latest.rule, forbidNote)
	}
	g := policy.GrantSpec{Tool: latest.tool, Reason: c.String("reason"), Expires: c.String("expires")}
	if g.Expires != "" && !validDate(g.Expires) {
		return exitWith(64, "airlock allow last: --expires %q: write YYYY-MM-DD", g.Expires)
	}
	// Without a concrete target the grant would cover every call of the
	// tool: that is a decision for a person to type, not to fold.
	if len(targets) == 0 {
		return exitWith(1, "airlock allow last: refused: the log names no target for %s; grant it with airlock allow %s --match GLOB", latest.tool, latest.tool)
	}
	if g.Match, err = policy.FoldTargets(targets, a.env.Home); err != nil {
		return exitWith(1, "airlock allow last: refused: %v", err)
	}
	if g.Reason == "" {
		g.Reason = fmt.Sprintf("airlock allow last: %d call(s) stopped by %s", len(targets), latest.rule)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "%s was stopped by %s on %d target(s):\n", latest.tool, latest.rule, len(targets))
	for _, t := range targets {
		fmt.Fprintf(w, "  %s\n", audit.Escape(t))
	}
	return a.write(w, g, c.Bool("dry-run"))
}
