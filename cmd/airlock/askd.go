package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/urfave/cli/v2"
)

func askdCommand() *cli.Command {
	return &cli.Command{
		Name:  "askd",
		Usage: "answer, in this terminal, the calls the policy asks about from MCP servers and airlock run",
		Description: "Listens on an abstract socket named from the Airlock home on Linux (on askd.sock in\n" +
			"the home, mode 0600, elsewhere) and shows each question, one at a time: the tool, server,\n" +
			"target, rule and reason, every string from the agent quoted and escaped. Only questions\n" +
			"MACed with the home's askd.key (an Airlock process of this user's) are shown; others are\n" +
			"refused and logged. Answer y or n. No answer within AIRLOCK_ASK_TIMEOUT (60 s) is no\n" +
			"approval: the caller's ask_fallback decides, and a later answer is not used. Stop with\n" +
			"Ctrl-C or Ctrl-D.",
		Action: runAskd,
	}
}

func runAskd(c *cli.Context) error {
	env, err := home.FromOS()
	if err != nil {
		return exitWith(exitConfig, "airlock askd: %v", err)
	}
	if err := home.Make(env.AirlockHome); err != nil {
		return exitWith(exitConfig, "airlock askd: %v", err)
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := c.App.Writer
	d := &ask.Daemon{Home: env.AirlockHome, In: os.Stdin, Out: w}
	// said once the address is bound: a caller that waits for the line
	// can reach askd
	d.Listening = func(addr string) {
		fmt.Fprintf(w, "airlock askd: answering asks on %s (Ctrl-C or Ctrl-D to stop)\n", addr)
	}
	// a refused question is in the chain as well as on the screen: a
	// process forging questions is something the person's report shows
	if log, err := gate.OpenLogEnv(env, ""); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "airlock askd: questions it refuses are shown here only, not recorded: %v\n", err)
	} else {
		defer log.Close()
		d.Refused = func(from, why string) {
			rec := audit.Record{Event: "askd_refused", Source: "askd", Effective: "refused", Target: from,
				Detail: "a question without valid proof that an Airlock process of this user sent it was not shown: " + why}
			if _, err := log.Append(rec); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "airlock askd: record the refusal: %v\n", err)
			}
		}
	}
	if err := d.Serve(ctx); err != nil {
		if errors.Is(err, ask.ErrRunning) {
			return exitWith(1, "airlock askd: %v", err)
		}
		return exitWith(exitConfig, "airlock askd: %v", err)
	}
	fmt.Fprintln(w, "airlock askd: stopped; asks now go to the next backend in AIRLOCK_ASK_BACKEND")
	return nil
}
