package main

import (
	"os"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func breachCommand() *cli.Command {
	return &cli.Command{
		Name:  "breach",
		Usage: "read-only forensics: did a secret leave? (exit 0 clean, 1 burns found, 2 the log cannot be trusted)",
		Flags: []cli.Flag{
			sinceFlag("2d"),
			&cli.StringFlag{Name: "session", Usage: "only this agent session"},
			&cli.BoolFlag{Name: "simulate", Usage: "analyse a built-in canonical incident instead of the log"},
			&cli.BoolFlag{Name: "markdown", Usage: "write Markdown"},
		},
		Action: func(c *cli.Context) error {
			var (
				integ report.Integrity
				src   report.Source
				f     report.Filter
			)
			if c.Bool("simulate") {
				integ, src = report.Integrity{Simulated: true}, report.SimulatedIncident()
			} else {
				env, err := home.FromOS()
				if err != nil {
					return exitWith(1, "airlock breach: %v", err)
				}
				if f, err = filterFrom(c); err != nil {
					return exitWith(64, "airlock breach: %v", err)
				}
				if err := requireHome(env.AirlockHome); err != nil {
					return exitWith(2, "airlock breach: the log cannot be checked: %v", err)
				}
				if integ, err = report.CheckIntegrity(env.AirlockHome, os.Getenv); err != nil {
					return exitWith(2, "airlock breach: the log cannot be checked: %v", err)
				}
				src = report.LogSource(env.AirlockHome)
			}
			entries, err := report.Collect(src, f)
			if err != nil {
				return exitWith(2, "airlock breach: %v", err)
			}
			b := report.Analyze(entries, integ, f)
			if c.Bool("markdown") {
				err = b.Markdown(c.App.Writer)
			} else {
				err = b.Text(c.App.Writer)
			}
			switch {
			case err != nil:
				return exitWith(1, "airlock breach: %v", err)
			case !integ.Trusted():
				return exitWith(2, "airlock breach: the audit log is broken; the analysis above cannot be trusted")
			case b.Burned():
				return exitWith(1, "")
			}
			return nil
		},
	}
}
