package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/profiles"
	"github.com/urfave/cli/v2"
)

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "show the profile in force, or switch $AIRLOCK_HOME/policy.yaml to a bundled one",
		ArgsUsage: "[yolo|default|paranoid]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace a policy you edited (a backup is kept)"},
		},
		Action: runProfile,
	}
}

func runProfile(c *cli.Context) error {
	w := c.App.Writer
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock: %v", err)
	}
	file := home.PolicyFile(env.AirlockHome)
	force, name := c.Bool("force"), c.Args().First()
	current, rerr := readPolicy(env, file)
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return exitWith(1, "airlock: read %s: %v", file, rerr)
	}
	if name == "" {
		showProfile(c, env, file, current, rerr)
		return nil
	}
	if name, err = oneOf("profile name", name, profiles.Names...); err != nil {
		return exitWith(64, "airlock profile: %v", err)
	}
	data, err := profiles.Get(name)
	if err != nil {
		return exitWith(64, "airlock profile: %v", err)
	}
	if rerr == nil && bundledName(current) == "" && !force {
		return exitWith(1, "airlock profile: %s has been edited; it was left alone. Re-run with --force to replace it (a backup is kept).", file)
	}
	if err := makePolicyDir(env, file); err != nil {
		return exitWith(1, "airlock profile: %v", err)
	}
	if rerr == nil && bundledName(current) == "" {
		backup := fmt.Sprintf("%s.bak-%s", file, time.Now().UTC().Format("20060102T150405.000000000Z"))
		if err := atomicfile.WriteState(backup, current, 0o600); err != nil {
			return exitWith(1, "airlock profile: back up %s: %v", file, err)
		}
		fmt.Fprintf(w, "backed up your policy to %s\n", backup)
	}
	if err := writePolicy(env, file, data, 0o600); err != nil {
		return exitWith(1, "airlock profile: %v", err)
	}
	fmt.Fprintf(w, "profile: %s (%s)\n", name, file)
	return nil
}

// showProfile says which profile is in force, why (which file or
// variable chose it), what its mode does, and the intended path.
func showProfile(c *cli.Context, env home.Env, file string, current []byte, rerr error) {
	w := c.App.Writer
	why := ""
	switch {
	case env.ExplicitPolicy() != "":
		fmt.Fprintf(w, "policy: %s (AIRLOCK_POLICY)\n", env.ExplicitPolicy())
		why = "AIRLOCK_POLICY names this file, so it is taken whole (no repository overlay)"
	case rerr != nil:
		p, set := env.Profile()
		fmt.Fprintf(w, "profile: %s (bundled; no %s)\n", p, file)
		why = "there is no policy file in $AIRLOCK_HOME and AIRLOCK_PROFILE is not set"
		if set {
			why = "there is no policy file in $AIRLOCK_HOME and AIRLOCK_PROFILE=" + p
		}
	case bundledName(current) != "":
		fmt.Fprintf(w, "profile: %s (%s)\n", bundledName(current), file)
		why = "the policy file in $AIRLOCK_HOME is the bundled " + bundledName(current) + " profile, unedited"
	default:
		fmt.Fprintf(w, "profile: custom (%s, edited)\n", file)
		why = "the policy file in $AIRLOCK_HOME differs from every bundled profile"
	}
	cwd, _ := os.Getwd()
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		fmt.Fprintf(w, "why: %s, and it does not load: %v\n", why, err)
	} else {
		if p.Profile != "" && bundledName(current) == "" && rerr == nil {
			why += " (it is labelled profile: " + p.Profile + ")"
		}
		fmt.Fprintf(w, "why: %s\n", why)
		mode := p.Mode.String()
		if p.ModeFromEnv != "" {
			mode += " (AIRLOCK_MODE)"
		}
		fmt.Fprintf(w, "mode: %s: %s; default %s, %d rule(s), %d grant(s)\n", mode, modeMeaning[p.Mode], p.Default, len(p.Rules), len(p.Grants))
		if m := p.ManagedFile(); m != "" {
			fmt.Fprintf(w, "managed: %s %s (the organisation's floor: your policy only tightens it)\n", m, p.Files[0].Digest)
			if t := p.ManagedExport(); len(t) > 0 {
				fmt.Fprintf(w, "export: %s (the managed policy's targets: airlock forward ships the log there)\n", strings.Join(t, ", "))
			}
			if req := p.ManagedAudit(); req.Required() {
				fmt.Fprintf(w, "audit: %s (the managed policy's: AIRLOCK_SIGN and AIRLOCK_ANCHOR_DIR cannot change it)\n", req)
			}
		}
	}
	fmt.Fprintln(w, "path: yolo (observe a week) → airlock policy propose --apply → default → paranoid (docs/policy.md)")
	fmt.Fprintln(w, "available: yolo, default, paranoid")
}

var modeMeaning = map[policy.Mode]string{
	policy.Observe: "nothing is refused, every decision is logged with the reason it would have had",
	policy.Guard:   "forbids and written rules stand, an unmatched call is allowed",
	policy.Enforce: "everything as written",
}

// bundledName says which bundled profile a file is, byte for byte ("" if edited).
func bundledName(data []byte) string {
	for _, n := range profiles.Names {
		if b, err := profiles.Get(n); err == nil && bytes.Equal(b, data) {
			return n
		}
	}
	return ""
}
