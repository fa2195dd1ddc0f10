package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func policyReplayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "re-decide what the audit log recorded under a candidate policy, and show what would change",
		Description: "Every decision record whose call can be rebuilt from what the record keeps (a shell command,\n" +
			"a read of a path) is decided again under CANDIDATE, nothing recorded; what it decides\n" +
			"differently is listed as newly blocked, newly asked and newly allowed. Records that keep\n" +
			"too little to re-decide (a write's content, an MCP call's arguments) are counted as not\n" +
			"replayable, by tool and reason: never as unchanged.",
		ArgsUsage: "CANDIDATE.yaml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Value: "7d", Usage: "from when: 36h, 7d, 2026-11-01, or all"},
			&cli.IntFlag{Name: "show", Value: 20, Usage: "list at most this many changes of each kind"},
		},
		Action: runPolicyReplay,
	}
}

func runPolicyReplay(c *cli.Context) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	since, err := report.ParseSince(c.String("since"), time.Now())
	if err != nil {
		return exitWith(64, "airlock policy replay: %v", err)
	}
	file := c.Args().First()
	vars := policy.Vars{Home: env.Home, Tmp: env.Tmp, User: env.User, AirlockHome: env.AirlockHome,
		Workspace: policy.Workspace(cwd, env.Home)}
	if _, err := policy.LoadFile(file, vars); err != nil {
		return exitWith(1, "%v", err)
	}
	// a call is decided with ${workspace} of the directory it is decided
	// in, as the hook would: the candidate is loaded once per directory
	loaded := map[string]*gate.Gate{}
	var loadErr error
	decide := func(tool string, input []byte, dir string) policy.Decision {
		ws := policy.Workspace(dir, env.Home)
		g := loaded[ws]
		if g == nil {
			v := vars
			v.Workspace = ws
			p, err := policy.LoadFile(file, v)
			if err != nil {
				loadErr = err
				return policy.Decision{Action: policy.Block, Rule: "replay-error", Reason: err.Error()}
			}
			g = hook.WithMCPStages(&gate.Gate{Policy: p, Env: env})
			loaded[ws] = g
		}
		return g.Decide(gate.Call{Source: "cli", Tool: tool, Input: input, Cwd: dir, Attended: true}).Decision
	}
	res, err := report.ReplayLog(report.LogSource(env.AirlockHome), since, cwd, decide)
	if err != nil {
		return exitWith(1, "airlock policy replay: read the log: %v", err)
	}
	if loadErr != nil {
		return exitWith(1, "airlock policy replay: %v", loadErr)
	}
	writeReplay(c.App.Writer, res, file, c.String("since"), c.Int("show"))
	return nil
}

func writeReplay(w io.Writer, r *report.Replay, file, since string, show int) {
	count := func(l []report.Change) int {
		n := 0
		for _, c := range l {
			n += c.Count
		}
		return n
	}
	fmt.Fprintf(w, "%d decisions recorded since %s, re-decided under %s:\n", r.Decisions, since, textsafe.Escape(file))
	fmt.Fprintf(w, "  newly blocked   %d\n", count(r.NewlyBlocked))
	fmt.Fprintf(w, "  newly asked     %d\n", count(r.NewlyAsked))
	fmt.Fprintf(w, "  newly allowed   %d\n", count(r.NewlyAllowed))
	fmt.Fprintf(w, "  unchanged       %d\n", r.Unchanged)
	fmt.Fprintf(w, "  not replayable  %d\n", r.NotReplayableCount())
	if r.Unreadable > 0 {
		fmt.Fprintf(w, "  unreadable      %d (run airlock verify)\n", r.Unreadable)
	}
	for _, s := range r.NotReplayable {
		fmt.Fprintf(w, "    %5d %s: %s\n", s.Count, textsafe.Escape(s.Tool), s.Why)
	}
	for _, g := range []struct {
		title string
		l     []report.Change
	}{{"newly blocked", r.NewlyBlocked}, {"newly asked", r.NewlyAsked}, {"newly allowed", r.NewlyAllowed}} {
		if len(g.l) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for i, c := range g.l {
			if i == show {
				fmt.Fprintf(w, "  … %d more (--show N)\n", len(g.l)-show)
				break
			}
			fmt.Fprintf(w, "  %4d× %s %s\n", c.Count, textsafe.Escape(c.Tool), textsafe.Escape(c.Target))
			fmt.Fprintf(w, "        was %s (%s), now %s (%s): %s\n", c.Was, c.WasRule, c.Now, c.NowRule, textsafe.Escape(c.NowReason))
			where := textsafe.Escape(c.Decided)
			if c.InCwd {
				where += " (here: the record keeps no directory)"
			}
			fmt.Fprintf(w, "        last %s, decided in %s\n", c.Last, where)
		}
	}
}
