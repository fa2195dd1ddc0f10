package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/urfave/cli/v2"
)

func askdCommand() *cli.Command {
	return &cli.Command{
		Name:  "askd",
		Usage: "answer, in this terminal, the calls the policy asks about from MCP servers and airlock run",
		Description: "Listens on askd.sock in the Airlock home (mode 0600) and shows each question, one at a\n" +
			"time: the tool, server, target, rule and reason, every string from the agent quoted and\n" +
			"escaped. Answer y or n. No answer within AIRLOCK_ASK_TIMEOUT (60 s) is no approval: the\n" +
			"caller's ask_fallback decides, and a later answer is not used. Stop with Ctrl-C or Ctrl-D.",
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
	fmt.Fprintf(w, "airlock askd: answering asks on %s (Ctrl-C or Ctrl-D to stop)\n", ask.SocketPath(env.AirlockHome))
	d := &ask.Daemon{Home: env.AirlockHome, In: os.Stdin, Out: w}
	if err := d.Serve(ctx); err != nil {
		if errors.Is(err, ask.ErrRunning) {
			return exitWith(1, "airlock askd: %v", err)
		}
		return exitWith(exitConfig, "airlock askd: %v", err)
	}
	fmt.Fprintln(w, "airlock askd: stopped; asks now go to the next backend in AIRLOCK_ASK_BACKEND")
	return nil
}
