package main

// airlock allow recent and last: what the audit log says got in the way.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func runAllowRecent(c *cli.Context) error {
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	groups, err := report.ReadGated(report.LogSource(a.env.AirlockHome))
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
		if forbids[g.Rule] {
			note = "  (built-in forbid: no grant can lift it)"
		}
		if report.IsHold(g.Rule) {
			note = "  (held: " + a.holdFix(g.Tool, g.Rule) + ")"
		}
		if g.Rule == report.TaintRule {
			note = "  (tainted session: airlock taint)"
		}
		if report.IsLimitRule(g.Rule) {
			note = "  (call limit: it ends as the window passes)"
		}
		fmt.Fprintf(w, "%3d  %4d×  %-14s %-22s %s%s\n", i+1, g.Count, textsafe.Escape(g.Tool), textsafe.Escape(g.Rule), textsafe.Escape(g.Target), note)
	}
	fmt.Fprintln(w, "grant the latest with: airlock allow last")
	return nil
}

// holdFix is the pins commands that lift a hold on tool, naming the
// server as pins.json does when the agent's (normalised) name finds it.
func (a *allowCtx) holdFix(tool, rule string) string {
	fix, _ := report.HoldFix(tool, rule)
	norm := report.HoldServer(tool)
	if norm == "" {
		return fix
	}
	if e, err := pins.Open(a.env.AirlockHome).Find(norm); err == nil && e != nil && e.Server != norm {
		fix, _ = report.HoldFix("mcp__"+e.Server+"__x", rule)
	}
	return fix
}

// checkHold refuses a grant for an MCP tool whose server pins.json holds
// now: the hold is decided before grants, so the grant would do nothing.
func (a *allowCtx) checkHold(verb, tool string) error {
	norm := report.HoldServer(tool)
	if norm == "" || strings.ContainsAny(norm, "*?") {
		return nil
	}
	e, err := pins.Open(a.env.AirlockHome).Find(norm)
	if err != nil || e == nil || (e.State != pins.Held && e.Pinned != nil) {
		return nil
	}
	return exitWith(1, "airlock %s: refused: the server of %s is held (pins), which is decided before grants; a grant cannot lift it: %s",
		verb, textsafe.Escape(tool), a.holdFix(tool, "pins:held"))
}

func forbidSet() map[string]bool {
	out, _ := report.ForbidRules()
	return out
}

func runAllowLast(c *cli.Context) error {
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	groups, err := report.ReadGated(report.LogSource(a.env.AirlockHome))
	if err != nil {
		return exitWith(1, "airlock allow last: %v", err)
	}
	latest, ok := report.Latest(groups)
	if !ok {
		return exitWith(1, "airlock allow last: nothing was blocked or asked about")
	}
	if report.IsHold(latest.Rule) {
		return exitWith(1, "airlock allow last: refused: %s was stopped by the pins hold %s, which is decided before grants; a grant cannot lift it: %s",
			textsafe.Escape(latest.Tool), latest.Rule, a.holdFix(latest.Tool, latest.Rule))
	}
	var targets []string
	for _, g := range groups {
		if g.Tool == latest.Tool && g.Rule == latest.Rule && g.Target != "" {
			targets = append(targets, g.Target)
		}
	}
	sort.Strings(targets)
	g := policy.GrantSpec{Tool: latest.Tool, Reason: c.String("reason"), Expires: c.String("expires")}
	if err := checkExpires("allow last", g.Expires, a.env.Now()); err != nil {
		return err
	}
	// Without a concrete target the grant would cover every call of the
	// tool: that is a decision for a person to type, not to fold.
	if latest.Target == "" || len(targets) == 0 {
		return exitWith(1, "airlock allow last: refused: the log names no target for %s; grant it with airlock allow %s --match GLOB", textsafe.Escape(latest.Tool), textsafe.Escape(latest.Tool))
	}
	// A shell call is granted by command: its program, subcommand and
	// the tightest words that cover every time the same command was
	// gated (the other gated commands of the tool are not folded in). A
	// shell call stopped on a file (a path target) is not granted as a
	// file is: a grant by path for a shell covers every command that
	// names only that path, an upload or interpreter code beside it
	// included, and the log keeps the path, not the command.
	byCommand := policy.IsShellTool(latest.Tool)
	// (a command line may start with "/" too: /usr/bin/git push is
	// folded by command; a one-word one is refused with the files)
	if byCommand && strings.HasPrefix(latest.Target, "/") && !strings.ContainsAny(latest.Target, " \t\n") {
		return exitWith(1, "airlock allow last: refused: %s was stopped on the file %s, and a grant by path for a shell covers every command that names only it (curl -T %s … uploads it): answer it when it is asked, or write a grant by command (commands: [...], docs/policy.md)",
			textsafe.Escape(latest.Tool), textsafe.Escape(latest.Target), textsafe.Escape(latest.Target))
	}
	if byCommand {
		if g.Commands, targets, err = policy.FoldCommands(latest.Tool, latest.Target, targets, a.callEnv()); err != nil {
			return exitWith(1, "airlock allow last: refused: %v; answer it when it is asked, or write a narrow grant yourself (airlock allow %s --match GLOB)",
				err, textsafe.Escape(latest.Tool))
		}
	}
	for _, t := range targets {
		if err := a.checkForbid(latest.Tool, t); err != nil {
			return err
		}
	}
	if latest.Rule == report.TaintRule {
		return exitWith(1, "airlock allow last: refused: %s was asked about because its session is tainted, which is decided after grants; a grant cannot lift it: read airlock taint, then airlock taint clear SESSION",
			textsafe.Escape(latest.Tool))
	}
	if report.IsLimitRule(latest.Rule) {
		return exitWith(1, "airlock allow last: refused: %s was stopped by a call limit (%s: the same call repeated, or too many calls a minute), which is counted after grants; a grant cannot lift it: it ends as the window passes, or raise the limit in your policy (loop:, limits:)",
			textsafe.Escape(latest.Tool), latest.Rule)
	}
	if _, overridden := a.p.Overrides[latest.Rule]; forbidSet()[latest.Rule] && !overridden {
		return exitWith(1, "airlock allow last: refused: %s was stopped by the built-in forbid %s; a grant cannot lift it: %s",
			textsafe.Escape(latest.Tool), latest.Rule, forbidNote)
	}
	if !byCommand {
		if g.Match, err = policy.FoldTargets(targets, a.env.Home); err != nil {
			return exitWith(1, "airlock allow last: refused: %v", err)
		}
	}
	if g.Reason == "" {
		g.Reason = fmt.Sprintf("airlock allow last: %d call(s) stopped by %s", len(targets), latest.Rule)
	}
	w := c.App.Writer
	what := "target(s)"
	if byCommand {
		what = "command line(s)"
	}
	fmt.Fprintf(w, "%s was stopped by %s on %d %s:\n", textsafe.Escape(latest.Tool), textsafe.Escape(latest.Rule), len(targets), what)
	for _, t := range targets {
		fmt.Fprintf(w, "  %s\n", textsafe.Escape(t))
	}
	return a.write(w, g, c.Bool("dry-run"), targets...)
}
