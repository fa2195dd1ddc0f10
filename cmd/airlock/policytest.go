package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/profiles"
	"github.com/urfave/cli/v2"
)

func policyTestCommand() *cli.Command {
	return &cli.Command{
		Name:  "test",
		Usage: "run a policy's tests: and the built-in forbids' examples (exit 1 when one fails)",
		Description: "Each test is a call and the decision the policy must make on it (expect: allow, ask or block,\n" +
			"and optionally the rule:). With no FILE, the policy in force here and its repository overlay;\n" +
			"with FILEs, each file as the whole policy. The forbids' examples run under each policy: a\n" +
			"forbid the policy overrides is skipped, and said so.",
		ArgsUsage: "[FILE…]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list every test, not only the failures"},
			&cli.BoolFlag{Name: "no-forbids", Usage: "run the policy's own tests only"},
		},
		Action: runPolicyTest,
	}
}

// testRun is one policy and what ran against it.
type testRun struct {
	name            string
	pass, fail      int
	skipped         []policy.Test
	forbidPass      int
	forbidFail      int
	forbidOverriden int
}

func runPolicyTest(c *cli.Context) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	w := c.App.Writer
	type loaded struct {
		p     *policy.Policy
		tests []policy.Test
	}
	var runs []loaded
	if c.NArg() == 0 {
		p, err := policy.LoadEnv(env, cwd)
		if err != nil {
			return exitWith(1, "%v", err)
		}
		tests, err := policyTests(p)
		if err != nil {
			return exitWith(1, "%v", err)
		}
		runs = append(runs, loaded{p, tests})
	}
	for _, file := range c.Args().Slice() {
		vars := policy.Vars{Home: env.Home, Tmp: env.Tmp, User: env.User, AirlockHome: env.AirlockHome,
			Workspace: policy.Workspace(cwd, env.Home)}
		p, err := policy.LoadFile(file, vars)
		if err != nil {
			return exitWith(1, "%v", err)
		}
		tests, err := policyTests(p)
		if err != nil {
			return exitWith(1, "%v", err)
		}
		runs = append(runs, loaded{p, tests})
	}
	failed := false
	for _, r := range runs {
		var forbids []policy.Test
		if !c.Bool("no-forbids") {
			if forbids, err = policy.ForbidTests(r.p.Vars); err != nil {
				return exitWith(1, "airlock: the built-in forbids' examples: %v", err)
			}
		}
		res := runTests(w, env, cwd, r.p, r.tests, forbids, c.Bool("verbose"))
		fmt.Fprintf(w, "%s: %d tests, %d passed, %d failed", res.name, res.pass+res.fail, res.pass, res.fail)
		if !c.Bool("no-forbids") {
			fmt.Fprintf(w, "; forbids' examples: %d, %d passed, %d failed", res.forbidPass+res.forbidFail, res.forbidPass, res.forbidFail)
			if res.forbidOverriden > 0 {
				fmt.Fprintf(w, ", %d skipped (their forbid is overridden)", res.forbidOverriden)
			}
		}
		if len(res.skipped) > 0 {
			fmt.Fprintf(w, "; %d not run here", len(res.skipped))
		}
		fmt.Fprintln(w)
		for _, t := range res.skipped {
			fmt.Fprintf(w, "  not run: %s:%d %s: %s\n", t.File, t.Line, textsafe.Escape(t.Describe()), t.Skip)
		}
		if res.fail+res.forbidFail > 0 {
			failed = true
		}
		if res.pass+res.fail+len(res.skipped) == 0 {
			fmt.Fprintf(w, "  (no tests: add a tests: list to %s, e.g.\n    tests:\n      - bash: \"cat ~/.ssh/id_rsa\"\n        expect: block)\n", r.p.Source)
		}
	}
	if failed {
		return exitWith(1, "")
	}
	return nil
}

// policyTests reads the tests of every file a policy was loaded from.
func policyTests(p *policy.Policy) ([]policy.Test, error) {
	var out []policy.Test
	for _, f := range p.Files {
		var data []byte
		var err error
		if name, ok := strings.CutPrefix(f.Path, "profile:"); ok {
			data, err = profiles.Get(name)
		} else {
			data, err = regular.Read(f.Path, 1<<20) // policy.yaml's own bound
		}
		if err != nil {
			return nil, fmt.Errorf("airlock: read the tests of %s: %w", f.Path, err)
		}
		tests, err := policy.Tests(data, f.Path, p.Vars)
		if err != nil {
			return nil, err
		}
		out = append(out, tests...)
	}
	return out, nil
}

func runTests(w io.Writer, env home.Env, cwd string, p *policy.Policy, tests, forbids []policy.Test, verbose bool) testRun {
	res := testRun{name: p.Source}
	g := hook.WithMCPStages(&gate.Gate{Policy: p, Env: env})
	run := func(t policy.Test, pass, fail *int) {
		o := g.RunTest(t, cwd)
		switch {
		case o.Skipped != "" && t.Forbid != "" && strings.HasPrefix(o.Skipped, "the policy overrides"):
			res.forbidOverriden++
			return
		case o.Skipped != "":
			res.skipped = append(res.skipped, t)
			return
		case o.Pass:
			*pass++
		default:
			*fail++
		}
		if o.Pass && !verbose {
			return
		}
		mark := "ok  "
		if !o.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s:%d %s\n", mark, t.File, t.Line, textsafe.Escape(t.Describe()))
		if !o.Pass {
			want := t.Expect.String()
			if t.Rule != "" {
				want += " by " + t.Rule
			}
			if t.Forbid != "" && t.Expect == policy.Allow {
				want = "not stopped by " + t.Forbid
			}
			d := o.Decision
			fmt.Fprintf(w, "     want %s; got %s by %s: %s\n", want, d.Action, d.Rule, textsafe.Escape(d.Reason))
		}
	}
	for _, t := range tests {
		run(t, &res.pass, &res.fail)
	}
	for _, t := range forbids {
		run(t, &res.forbidPass, &res.forbidFail)
	}
	return res
}
