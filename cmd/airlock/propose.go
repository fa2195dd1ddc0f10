package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/profiles"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func proposeCommand() *cli.Command {
	return &cli.Command{
		Name:  "propose",
		Usage: "derive the narrowest grants that cover what the agents did (run a week under yolo first)",
		Flags: []cli.Flag{
			sinceFlag("7d"),
			&cli.BoolFlag{Name: "apply", Usage: "write the grants into the policy in force (validated, atomic)"},
			&cli.BoolFlag{Name: "include-shell", Usage: "also apply shell grants (held back by default)"},
		},
		Action: runPolicyPropose,
	}
}

func runPolicyPropose(c *cli.Context) error {
	w := c.App.Writer
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	since, err := report.ParseSince(c.String("since"), time.Now())
	if err != nil {
		return exitWith(64, "airlock policy propose: %v", err)
	}
	pr, err := report.Propose(report.LogSource(env.AirlockHome), report.ProposeOptions{Since: since, Home: env.Home, User: env.User})
	if err != nil {
		return exitWith(1, "airlock policy propose: %v", err)
	}
	today := time.Now().Format("2006-01-02")
	includeShell := c.Bool("include-shell")
	if err := pr.Write(w, includeShell, today); err != nil {
		return exitWith(1, "airlock policy propose: %v", err)
	}
	if !c.Bool("apply") {
		return nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	file := env.PolicyFile()
	name, _ := env.Profile()
	fallback, err := profiles.Get(name)
	if err != nil {
		return exitWith(1, "airlock policy propose: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return exitWith(1, "airlock policy propose: %v", err)
	}
	vars := policy.Vars{Home: env.Home, Tmp: env.Tmp, User: env.User, AirlockHome: env.AirlockHome,
		Workspace: policy.FindWorkspace(cwd, env.Home)}
	apply, held := pr.Applicable(includeShell)
	// a grant the managed policy's no_grants bars would never apply: it is
	// not written, and said so (as airlock allow refuses one)
	in, err := policy.LoadEnv(env, cwd)
	if err != nil && home.ManagedInForce() {
		return exitWith(1, "airlock policy propose: the policy in force did not load:\n%v", err)
	}
	var barred []string
	kept := apply[:0:0]
	for _, g := range apply {
		if in != nil && in.GrantsBarredFor(g.Tool) {
			if !slices.Contains(barred, g.Tool) {
				barred = append(barred, g.Tool)
			}
			continue
		}
		kept = append(kept, g)
	}
	nBarred := len(apply) - len(kept)
	apply = kept
	n, err := report.ApplyGrants(file, fallback, apply, today, vars)
	if err != nil {
		return exitWith(1, "airlock policy propose: %v", err)
	}
	fmt.Fprintf(w, "\nwrote %d grant(s) to %s", n, file)
	if len(held) > 0 {
		fmt.Fprintf(w, "; %d shell grant(s) held back (--include-shell)", len(held))
	}
	fmt.Fprintln(w)
	if nBarred > 0 {
		fmt.Fprintf(w, "%d grant(s) not written: the managed policy %s bars grants for %s (no_grants)\n",
			nBarred, in.ManagedFile(), textsafe.Escape(strings.Join(barred, ", ")))
	}
	if p, err := policy.LoadFile(file, vars); err == nil && p.Mode == policy.Observe {
		fmt.Fprintln(w, "note: this policy is in observe mode (yolo): the grants change nothing until it enforces. Switch with `airlock profile default --force` first, then re-run `airlock policy propose --apply` (the switch replaces the file).")
	}
	return nil
}
