package main

import (
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/taint"
	"github.com/urfave/cli/v2"
)

func taintCommand() *cli.Command {
	return &cli.Command{
		Name:  "taint",
		Usage: "sessions that have seen injected content, and ending a taint (a person's to do, not the agent's)",
		Subcommands: []*cli.Command{
			{Name: "clear", Usage: "end a session's taint now (the agents may not run it: it is a self-approval)", ArgsUsage: "SESSION", Action: runTaintClear},
		},
		Action: runTaintList,
	}
}

func runTaintList(c *cli.Context) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock taint: %v", err)
	}
	es, err := taint.Open(env.AirlockHome, env.Now).List()
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "airlock taint: warning: %v\n", err)
	}
	now := time.Now()
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	n := 0
	for _, e := range es {
		if !e.Tainted(now) {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "SESSION\tSINCE\tUNTIL\tSOURCE")
		}
		n++
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", textsafe.Escape(e.Session), clock(e.Since), clock(e.Until), textsafe.Escape(e.Provenance()))
	}
	if n == 0 {
		fmt.Fprintln(w, "no session is tainted")
	}
	return w.Flush()
}

func clock(ms int64) string {
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04")
}

func runTaintClear(c *cli.Context) error {
	session := c.Args().First()
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock taint clear: %v", err)
	}
	cwd, _ := os.Getwd()
	log, err := gate.OpenLogEnv(env, cwd)
	if err != nil {
		return exitWith(1, "airlock taint clear: %v", err)
	}
	store := taint.Open(env.AirlockHome, env.Now)
	e, rerr := store.Of(session)
	if rerr == nil && !e.Tainted(time.Now()) {
		fmt.Fprintf(c.App.Writer, "session %s is not tainted\n", textsafe.Escape(session))
		return nil
	}
	what := "its taint state could not be read: " + fmt.Sprint(rerr)
	if rerr == nil {
		what = e.Provenance()
	}
	// the record first: ending a taint is a decision of its own
	if _, err := log.Append(audit.Record{Event: "taint_clear", Source: "cli", Session: session, Decision: "allow",
		Rule: "taint.clear", Reason: "a person ended the session's taint (" + what + ")"}); err != nil {
		return exitWith(1, "airlock taint clear: not recorded, so not cleared: %v", err)
	}
	if _, err := store.Clear(session); err != nil {
		return exitWith(1, "airlock taint clear: %v", err)
	}
	fmt.Fprintf(c.App.Writer, "session %s is no longer tainted\n", textsafe.Escape(session))
	return nil
}
