package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/monitor"
	"github.com/urfave/cli/v2"
)

func monitorCommand() *cli.Command {
	return &cli.Command{
		Name:  "monitor",
		Usage: "watch decisions as they happen, on a live full-screen board",
		Description: "Follows the audit log (across rotations) and shows allow, ask, block and hold counts,\n" +
			"the newest records and whether the hash chain still holds: verified in full at start,\n" +
			"then each new record's link to the one before it. Results are coloured (allow green,\n" +
			"ask yellow, block red, hold magenta; NO_COLOR turns colour off, the word stays), paths\n" +
			"under your home show as ~/..., and a call that ran only because the policy is in observe\n" +
			"mode reads observe:block or observe:ask, never allow.\n" +
			"Keys: arrows move the cursor, Enter opens the whole record (Esc or q back), a all,\n" +
			"b blocks, k asks, o observe-only runs, / filter on tool, target or rule, PgUp/PgDn\n" +
			"scroll, End follow, q quit.\n" +
			"When stdout is not a terminal, or with --plain, it prints one escaped line per record\n" +
			"instead (the format of airlock log) until interrupted; --once prints the tail and exits.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plain", Usage: "print one line per record instead of the board"},
			&cli.BoolFlag{Name: "once", Usage: "print the newest records and exit (implies --plain)"},
			&cli.IntFlag{Name: "n", Value: monitor.DefaultOptions.Tail, Usage: "how many records plain mode prints at start", Action: atLeastZero("monitor", "n")},
			&cli.DurationFlag{Name: "interval", Value: monitor.DefaultOptions.Interval, Usage: "how often to check the log"},
		},
		Action: func(c *cli.Context) error {
			env, err := home.FromOS()
			if err != nil {
				return exitWith(1, "airlock monitor: %v", err)
			}
			o := monitor.DefaultOptions
			o.Tail, o.Interval = max(c.Int("n"), 1), max(c.Duration("interval"), 10*time.Millisecond)
			o.UserHome = env.Home
			// plain ANSI colours, decided from the environment alone: no
			// terminal is queried (https://no-color.org)
			o.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			once := c.Bool("once")
			if once || c.Bool("plain") || c.App.Writer != os.Stdout || !isTerminal(os.Stdout) {
				err = monitor.RunPlain(ctx, env.AirlockHome, c.App.Writer, c.App.ErrWriter, once, o)
			} else {
				err = monitor.RunBoard(ctx, env.AirlockHome, o)
			}
			if err != nil {
				return exitWith(1, "airlock monitor: %v", err)
			}
			return nil
		},
	}
}
