package main

import (
	"fmt"
	"os"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
	"github.com/urfave/cli/v2"
)

func policyCommand() *cli.Command {
	return &cli.Command{
		Name:  "policy",
		Usage: "inspect the policy, or propose grants from the log",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "load, validate and summarise a policy file (default: the one in force here)",
			ArgsUsage: "[FILE]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "forbids", Usage: "list the built-in forbid ids and reasons"},
			},
			Action: runPolicyCheck,
		}, policyTestCommand(), policyReplayCommand(), proposeCommand()},
	}
}

func runPolicyCheck(c *cli.Context) error {
	w := c.App.Writer
	if c.Bool("forbids") {
		ids, err := policy.ForbidIDs()
		if err != nil {
			return exitWith(1, "airlock: %v", err)
		}
		for _, f := range ids {
			fmt.Fprintf(w, "%-28s %s\n", f[0], f[1])
		}
		return nil
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	var p *policy.Policy
	if file := c.Args().First(); file != "" {
		vars := policy.Vars{Home: env.Home, Tmp: env.Tmp, User: env.User, AirlockHome: env.AirlockHome,
			Workspace: policy.Workspace(cwd, env.Home)}
		p, err = policy.LoadFile(file, vars)
	} else {
		p, err = policy.LoadEnv(env, cwd)
	}
	if err != nil {
		return exitWith(1, "%v", err)
	}
	tests, err := policyTests(p)
	if err != nil {
		return exitWith(1, "%v", err)
	}
	fmt.Fprint(w, p.Summary())
	if len(tests) > 0 {
		fmt.Fprintf(w, "tests:        %d (run them: airlock policy test)\n", len(tests))
	}
	warnings := p.Lint()
	for _, l := range warnings {
		fmt.Fprintf(w, "warning: %s\n", l)
	}
	if len(warnings) == 0 {
		fmt.Fprintln(w, "ok")
	}
	return nil
}
