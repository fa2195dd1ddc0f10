package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/policy"
	"github.com/urfave/cli/v2"
)

// Exit codes of `airlock check`.
const (
	checkAllow = 0
	checkBlock = 2
	checkAsk   = 3
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "decide one tool call without running it (exit 0 allow, 3 ask, 2 block)",
		ArgsUsage: "[< hook-event.json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tool", Usage: "tool name (Bash, Read, mcp__server__tool …)"},
			&cli.StringFlag{Name: "input", Usage: "the tool's arguments as a JSON object"},
			&cli.StringFlag{Name: "cwd", Usage: "the directory the call runs in (default: this one)"},
		},
		Action: runCheck,
	}
}

func runCheck(c *cli.Context) error {
	tool, input, cwd := c.String("tool"), []byte(c.String("input")), c.String("cwd")
	if tool == "" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return exitWith(checkBlock, "airlock check: read stdin: %v", err)
		}
		ev, err := hook.ParseEvent(data)
		if err != nil {
			return exitWith(64, "airlock check: give --tool and --input, or a hook event on stdin: %v", err)
		}
		tool, input = ev.Tool, ev.Input
		if cwd == "" {
			cwd = ev.Cwd
		}
	}
	if len(input) == 0 {
		input = []byte("{}")
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return exitWith(checkBlock, "airlock check: %v", err)
		}
		cwd = wd
	}
	env, err := gate.EnvFromOS()
	if err != nil {
		return exitWith(checkBlock, "airlock check: %v", err)
	}
	p, err := gate.Load(env, cwd)
	if err != nil {
		return exitWith(checkBlock, "airlock check: the policy did not load:\n%v", err)
	}
	g := gate.ForHook(&gate.Gate{Policy: p, Env: env})
	res := g.Decide(gate.Call{Source: "cli", Tool: tool, Input: input, Cwd: cwd, Attended: true})
	d := res.Decision
	w := c.App.Writer
	fmt.Fprintf(w, "decision:  %s\n", res.Effective)
	if res.Effective != d.Action {
		fmt.Fprintf(w, "policy:    %s (mode %s)\n", d.Action, res.Mode)
	}
	fmt.Fprintf(w, "rule:      %s\n", d.Rule)
	fmt.Fprintf(w, "reason:    %s\n", audit.Escape(d.Reason))
	if d.Target != "" {
		fmt.Fprintf(w, "target:    %s\n", audit.Escape(d.Target))
	}
	if d.Hidden && d.Arg != "" {
		fmt.Fprintf(w, "hidden in: argument %s\n", audit.Escape(d.Arg))
	}
	switch res.Effective {
	case policy.Block:
		return exitWith(checkBlock, "")
	case policy.Ask:
		return exitWith(checkAsk, "")
	}
	return nil
}
