package main

import (
	"encoding/json"
	"fmt"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/urfave/cli/v2"
)

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show recent decisions",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "n", Value: 20, Usage: "how many records"},
			&cli.BoolFlag{Name: "json", Usage: "one JSON record per line"},
		},
		Action: func(c *cli.Context) error {
			env, err := gate.EnvFromOS()
			if err != nil {
				return exitWith(1, "airlock log: %v", err)
			}
			recs, err := audit.Tail(env.AirlockHome, c.Int("n"))
			if err != nil {
				return exitWith(1, "airlock log: %v", err)
			}
			w := c.App.Writer
			for _, r := range recs {
				if c.Bool("json") {
					b, err := json.Marshal(r)
					if err != nil {
						return exitWith(1, "airlock log: %v", err)
					}
					fmt.Fprintf(w, "%s\n", b)
					continue
				}
				fmt.Fprintln(w, formatRecord(r))
			}
			return nil
		},
	}
}

// formatRecord renders one record on one line; every field that came from
// an agent is escaped so a record cannot forge a line or hide text.
func formatRecord(r audit.Record) string {
	s := fmt.Sprintf("%s %-8s %-6s %-9s %s", r.Time, audit.Escape(r.Event), audit.Escape(r.Source), audit.Escape(r.Effective), audit.Escape(r.Tool))
	if r.Effective != r.Decision && r.Decision != "" {
		s += fmt.Sprintf(" (policy: %s)", audit.Escape(r.Decision))
	}
	if r.Rule != "" {
		s += " [" + audit.Escape(r.Rule) + "]"
	}
	if r.Target != "" {
		s += " " + audit.Escape(r.Target)
	}
	if r.Reason != "" {
		s += " — " + audit.Escape(r.Reason)
	}
	return s
}
