package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
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
	// The same call must get the same answer here as from the hook, which
	// refuses an event whose tool_input is missing or not a JSON object:
	// a malformed --input is a usage error, never a quiet allow.
	switch {
	case c.IsSet("tool") && tool == "":
		return exitWith(64, "airlock check: --tool is empty: name the tool (Bash, Read, mcp__server__tool …)")
	case tool == "" && c.IsSet("input"):
		return exitWith(64, "airlock check: --input needs --tool: airlock check --tool NAME --input '{\"key\":\"value\"}'")
	case tool != "" && !c.IsSet("input"):
		return exitWith(64, "airlock check: --tool %s needs --input, the tool's arguments as a JSON object, e.g. --input '{\"command\":\"ls\"}' ({} for none)", textsafe.Escape(tool))
	case tool != "":
		if err := hook.CheckInput(input); err != nil {
			return exitWith(64, "airlock check: --input %s: write the tool's arguments as a JSON object, e.g. '{\"command\":\"ls\"}' ({} for none)", err)
		}
	}
	if c.NArg() > 0 {
		return exitWith(64, "airlock check: unexpected argument %q: give --tool and --input, or a hook event on stdin", c.Args().First())
	}
	if cwd != "" && !filepath.IsAbs(cwd) {
		abs, err := filepath.Abs(cwd)
		if err != nil {
			return exitWith(64, "airlock check: --cwd %q: %v", cwd, err)
		}
		cwd = abs
	}
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
		if cwd == "" && filepath.IsAbs(ev.Cwd) {
			cwd = ev.Cwd // as the hook: a relative cwd is no place, this directory is
		}
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return exitWith(checkBlock, "airlock check: %v", err)
		}
		cwd = wd
	}
	env, err := home.FromOS()
	if err != nil {
		return checkFailure(c, "the Airlock home is unusable", fmt.Sprintf("airlock check: %v", err))
	}
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return checkFailure(c, "the policy did not load", fmt.Sprintf("airlock check: the policy did not load:\n%v", err))
	}
	g := hook.WithMCPStages(&gate.Gate{Policy: p, Env: env})
	res := g.Decide(gate.Call{Source: "cli", Tool: tool, Input: input, Cwd: cwd, Attended: true})
	d := res.Decision
	w := c.App.Writer
	fmt.Fprintf(w, "decision:  %s\n", res.Effective)
	if res.Effective != d.Action {
		fmt.Fprintf(w, "policy:    %s (mode %s)\n", d.Action, res.Mode)
	}
	fmt.Fprintf(w, "rule:      %s\n", d.Rule)
	fmt.Fprintf(w, "reason:    %s\n", textsafe.Escape(d.Reason))
	if d.Target != "" {
		fmt.Fprintf(w, "target:    %s\n", textsafe.Escape(d.Target))
	}
	if d.Hidden && d.Arg != "" {
		fmt.Fprintf(w, "hidden in: argument %s\n", textsafe.Escape(d.Arg))
	}
	switch res.Effective {
	case policy.Block:
		return exitWith(checkBlock, "")
	case policy.Ask:
		return exitWith(checkAsk, "")
	}
	return nil
}

// checkFailure answers as the hook does when Airlock itself is broken: it
// fails closed (block, exit 2) unless AIRLOCK_FAIL_OPEN=1, under which the
// hook lets every call through, and check must not say block for a call
// that would run.
func checkFailure(c *cli.Context, what, msg string) error {
	if !home.FailOpen(os.Getenv) {
		return exitWith(checkBlock, "%s", msg)
	}
	fmt.Fprintln(c.App.ErrWriter, msg)
	w := c.App.Writer
	fmt.Fprintf(w, "decision:  %s\n", policy.Allow)
	fmt.Fprintf(w, "reason:    %s, and %s=1 lets every call through while it is broken (as the hook does)\n", what, gate.FailOpenEnv)
	return nil
}
