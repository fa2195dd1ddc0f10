package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/profiles"
	"github.com/urfave/cli/v2"
)

const forbidNote = "only an overrides: entry with a reason can relax a built-in forbid"

func allowCommand() *cli.Command {
	return &cli.Command{
		Name:  "allow",
		Usage: "turn what got in the way into a narrow, reviewed grant",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "match", Usage: "the calls it covers: a path, host or command `GLOB` (required; --match '*' grants every call of TOOL on purpose)"},
			&cli.StringFlag{Name: "expires", Usage: "the last `DAY` it applies (YYYY-MM-DD)"},
			&cli.StringFlag{Name: "reason", Usage: "why, kept in the policy file"},
			&cli.BoolFlag{Name: "dry-run", Usage: "show the grant, write nothing"},
		},
		Subcommands: []*cli.Command{
			{Name: "recent", Usage: "what was blocked or asked about, most frequent first", Action: runAllowRecent},
			{Name: "last", Usage: "grant the call you were just stopped on, folded over every time it was gated",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "dry-run", Usage: "show the grant, write nothing"},
					&cli.StringFlag{Name: "reason", Usage: "why, kept in the policy file"}, &cli.StringFlag{Name: "expires", Usage: "the last `DAY` it applies (YYYY-MM-DD)"}},
				Action: runAllowLast},
			{Name: "list", Usage: "the grants in force, numbered", Action: runAllowList},
			{Name: "revoke", Usage: "remove grant N", ArgsUsage: "N", Action: runAllowRevoke},
		},
		Action: runAllowTool,
	}
}

// allowCtx is what every subcommand needs: the environment, the policy in
// force and the file grants are written to.
type allowCtx struct {
	env  home.Env
	cwd  string
	file string
	p    *policy.Policy
}

func newAllowCtx() (*allowCtx, error) {
	env, err := home.FromOS()
	if err != nil {
		return nil, exitWith(1, "airlock allow: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, exitWith(1, "airlock allow: %v", err)
	}
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return nil, exitWith(1, "airlock allow: the policy did not load:\n%v", err)
	}
	return &allowCtx{env: env, cwd: cwd, file: env.PolicyFile(), p: p}, nil
}

func (a *allowCtx) vars() policy.Vars {
	return policy.Vars{Home: a.env.Home, Tmp: a.env.Tmp, User: a.env.User, AirlockHome: a.env.AirlockHome,
		Workspace: policy.FindWorkspace(a.cwd, a.env.Home)}
}

func (a *allowCtx) callEnv() policy.CallEnv {
	return policy.CallEnv{Cwd: a.cwd, Home: a.env.Home, User: a.env.User}
}

// current is the policy file's bytes; when there is none yet, the bundled
// profile in force, which `airlock init` would have written.
func (a *allowCtx) current() ([]byte, error) {
	data, err := readPolicy(a.env, a.file)
	if errors.Is(err, fs.ErrNotExist) && a.env.ExplicitPolicy() == "" {
		name, _ := a.env.Profile()
		return profiles.Get(name)
	}
	return data, err
}

// commit validates the edited policy with the loader and only then
// replaces the file atomically; a bad edit leaves the old file as it was.
func (a *allowCtx) commit(data []byte) error {
	if _, err := policy.CheckEdit(data, a.file, a.vars()); err != nil {
		return exitWith(1, "airlock allow: the edited policy does not load, %s is unchanged:\n%v", a.file, err)
	}
	if err := makePolicyDir(a.env, a.file); err != nil {
		return exitWith(1, "airlock allow: %v", err)
	}
	if err := writePolicy(a.env, a.file, data, 0o600); err != nil {
		return exitWith(1, "airlock allow: write %s: %v (unchanged)", a.file, err)
	}
	return nil
}

func (a *allowCtx) checkForbid(tool, target string) error {
	if id, hit := a.p.ForbidOn(tool, target, a.callEnv()); hit {
		return exitWith(1, "airlock allow: refused: %s on %s meets the built-in forbid %s; a grant cannot lift it: %s",
			tool, textsafe.Escape(target), id, forbidNote)
	}
	return nil
}

// write shows g and writes it. targets are the concrete calls g is meant
// to lift (allow last): when the edited policy would still refuse one of
// them, nothing is written.
func (a *allowCtx) write(w io.Writer, g policy.GrantSpec, dry bool, targets ...string) error {
	if a.p.GrantsBarredFor(g.Tool) {
		return exitWith(1, "airlock allow: refused: the managed policy %s bars every grant for %s (no_grants): this one would never apply; nothing written (ask your administrator)",
			a.p.ManagedFile(), textsafe.Escape(g.Tool))
	}
	if g.Added == "" {
		g.Added = a.env.Now().Format("2006-01-02")
	}
	fmt.Fprintf(w, "grant:\n  tool: %s\n", textsafe.Escape(g.Tool))
	if len(g.Commands) > 0 {
		fmt.Fprintln(w, "  commands:")
		for _, c := range g.Commands {
			fmt.Fprintf(w, "    - %s\n", textsafe.Escape(c))
		}
	}
	for _, kv := range [][2]string{{"match", g.Match}, {"reason", g.Reason}, {"added", g.Added}, {"expires", g.Expires}} {
		if kv[1] != "" {
			fmt.Fprintf(w, "  %s: %s\n", kv[0], textsafe.Escape(kv[1]))
		}
	}
	if g.Match == "" && len(g.Commands) == 0 {
		fmt.Fprintf(w, "note: no --match: this grants every %s call\n", textsafe.Escape(g.Tool))
	}
	cur, err := a.current()
	if err != nil {
		return exitWith(1, "airlock allow: %v", err)
	}
	next, err := policy.AppendGrant(cur, g)
	if err != nil {
		return exitWith(1, "airlock allow: %v", err)
	}
	if len(targets) > 0 {
		edited, err := policy.CheckEdit(next, a.file, a.vars())
		if err != nil {
			return exitWith(1, "airlock allow: the edited policy does not load, %s is unchanged:\n%v", a.file, err)
		}
		// the policy in force (overlay, mode and all) with the edited
		// file's grants
		q := *a.p
		q.Grants = edited.Grants
		for _, t := range targets {
			if d, ok := q.AllowsTarget(g.Tool, t, a.callEnv(), a.env.Now()); !ok {
				return exitWith(1, "airlock allow: refused: with this grant, %s on %s would still be %s by %s (%s, decided after grants); nothing written",
					textsafe.Escape(g.Tool), textsafe.Escape(t), d.Action, textsafe.Escape(d.Rule), d.Source)
			}
		}
	}
	if dry {
		fmt.Fprintln(w, "dry run: nothing written")
		return nil
	}
	if err := a.commit(next); err != nil {
		return err
	}
	fmt.Fprintf(w, "written to %s\n", a.file)
	return nil
}

// runAllowTool is `airlock allow TOOL [flags]` (one TOOL: cli_grammar.go).
func runAllowTool(c *cli.Context) error {
	g := policy.GrantSpec{Tool: c.Args().First(), Match: c.String("match"), Reason: c.String("reason"), Expires: c.String("expires")}
	dry := c.Bool("dry-run")
	if g.Tool == "" {
		return exitWith(64, "airlock allow: name the tool to grant")
	}
	// A grant without a match covers every call of the tool (under
	// paranoid, every Bash ask would become an allow): that must be typed,
	// not be what a forgotten flag does.
	if g.Match == "" {
		return exitWith(64, "airlock allow: %s without --match would grant every %s call: name what to allow with --match GLOB (a path, a URL or a text glob; airlock allow recent lists what was stopped), or write --match '*' to grant every call on purpose",
			textsafe.Escape(g.Tool), textsafe.Escape(g.Tool))
	}
	if err := checkExpires("allow", g.Expires, time.Now()); err != nil {
		return err
	}
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	if err := a.checkHold("allow", g.Tool); err != nil {
		return err
	}
	if g.Match != "" && g.Match != "*" {
		prefix, err := a.vars().LiteralPrefix(g.Match)
		if err != nil {
			return exitWith(64, "airlock allow: --match: %v", err)
		}
		if prefix != "" {
			if err := a.checkForbid(g.Tool, prefix); err != nil {
				return err
			}
		}
	}
	pathMatch := strings.HasPrefix(g.Match, "/") || strings.HasPrefix(g.Match, "~") || strings.HasPrefix(g.Match, "${")
	switch {
	case g.Match == "*":
		fmt.Fprintf(c.App.Writer, "note: --match '*' grants every %s call (the built-in forbids still stand)\n", textsafe.Escape(g.Tool))
	case policy.IsShellTool(g.Tool) && pathMatch:
		// a path grant covers every command that names only that path:
		// curl -T PATH https://… uploads it, python3 -c … runs anything
		return exitWith(1, "airlock allow: a path --match on %s would grant every command that names only that path (curl -T %s uploads it): grant the command itself, with airlock allow last or a commands: grant (docs/policy.md)",
			textsafe.Escape(g.Tool), textsafe.Escape(g.Match))
	case policy.IsShellTool(g.Tool) && strings.ContainsAny(g.Match, "*?"):
		fmt.Fprintf(c.App.Writer, "note: a wildcard in a --match over a %s command line also covers what is chained after it (npm test * grants npm test; curl …); airlock allow last grants a command by its words\n", textsafe.Escape(g.Tool))
	}
	return a.write(c.App.Writer, g, dry)
}

// checkExpires refuses an --expires that is not a date, and one whose day
// is over: such a grant would never apply (a grant is valid through the
// whole day it names, as the loader reads it).
func checkExpires(verb, s string, now time.Time) error {
	if s == "" {
		return nil
	}
	day, err := time.ParseInLocation(time.DateOnly, s, time.Local)
	if err != nil {
		return exitWith(64, "airlock %s: --expires %q is not a date: write YYYY-MM-DD, e.g. --expires %s", verb, s, now.AddDate(0, 1, 0).Format(time.DateOnly))
	}
	if !now.Before(day.AddDate(0, 0, 1)) {
		return exitWith(64, "airlock %s: --expires %s is in the past (now %s): the grant would never apply; give a later date, or leave --expires out",
			verb, s, now.Format("2006-01-02 15:04 MST"))
	}
	return nil
}

func runAllowList(c *cli.Context) error {
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	w := c.App.Writer
	if len(a.p.Grants) == 0 {
		fmt.Fprintln(w, "no grants")
		return nil
	}
	now := a.env.Now()
	for i, g := range a.p.Grants {
		match := g.Match
		switch {
		case len(g.Commands) > 0:
			match = "commands: " + strings.Join(g.Commands, " | ")
		case match == "":
			match = "(any call)"
		}
		fmt.Fprintf(w, "%3d  %-16s %s\n", i+1, textsafe.Escape(g.Tool), textsafe.Escape(match))
		var meta []string
		for _, kv := range [][2]string{{"reason", g.Reason}, {"added", g.Added}, {"expires", g.Expires}} {
			if kv[1] != "" {
				meta = append(meta, kv[0]+" "+textsafe.Escape(kv[1]))
			}
		}
		if g.Expired(now) {
			meta = append(meta, "EXPIRED (not applied)")
		}
		if len(meta) > 0 {
			fmt.Fprintf(w, "     %s\n", strings.Join(meta, " · "))
		}
	}
	return nil
}

func runAllowRevoke(c *cli.Context) error {
	if c.NArg() != 1 {
		return exitWith(64, "usage: airlock allow revoke N (see airlock allow list)")
	}
	n, err := strconv.Atoi(c.Args().First())
	if err != nil {
		return exitWith(64, "airlock allow revoke: %q is not a grant number (see airlock allow list)", c.Args().First())
	}
	a, err := newAllowCtx()
	if err != nil {
		return err
	}
	cur, err := readPolicy(a.env, a.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return exitWith(1, "airlock allow revoke: failed: %v", err)
	}
	next, err := policy.RemoveGrant(cur, n)
	if errors.Is(err, fs.ErrNotExist) || len(cur) == 0 {
		return exitWith(1, "airlock allow revoke: failed: no grant %d (there are 0)", n)
	}
	if err != nil {
		return exitWith(1, "airlock allow revoke: failed: %v", err)
	}
	if err := a.commit(next); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "revoked grant %d in %s\n", n, a.file)
	return nil
}
