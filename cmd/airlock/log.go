package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show recent decisions",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "n", Value: 20, Usage: "how many records (0: all that match)", Action: atLeastZero("log", "n")},
			&cli.StringFlag{Name: "session", Usage: "only this agent session"},
			&cli.StringFlag{Name: "tool", Usage: "only tools matching this glob (e.g. 'mcp__*')"},
			&cli.StringFlag{Name: "decision", Usage: "only records whose policy decision or result is this: " + strings.Join(decisionValues, ", ")},
			&cli.BoolFlag{Name: "json", Usage: "one JSON record per line"},
		}, sinceFlag("")),
		Action: func(c *cli.Context) error {
			env, err := home.FromOS()
			if err != nil {
				return exitWith(1, "airlock log: %v", err)
			}
			f, err := filterFrom(c)
			if err != nil {
				return exitWith(64, "airlock log: %v", err)
			}
			var recs []audit.Record
			if f.Empty() {
				// only the end of the file is read
				recs, err = audit.Tail(env.AirlockHome, c.Int("n"))
			} else {
				var entries []report.Entry
				entries, err = report.Last(report.LogSource(env.AirlockHome), f, c.Int("n"))
				for _, e := range entries {
					recs = append(recs, report.AsRecord(e))
				}
			}
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
				fmt.Fprintln(w, report.LogLine(r))
			}
			return nil
		},
	}
}

// sinceFlag is --since, shared by the commands that read a window of the log.
func sinceFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "since", Value: def, Usage: "only records from this long ago (2d, 36h), since this time (RFC 3339), or all"}
}

// filterFrom reads the filter flags a command defines.
func filterFrom(c *cli.Context) (report.Filter, error) {
	var f report.Filter
	since, err := report.ParseSince(c.String("since"), time.Now())
	if err != nil {
		return f, err
	}
	f.Since = since
	if c.IsSet("until") || c.String("until") != "" {
		if f.Until, err = time.Parse(time.RFC3339Nano, c.String("until")); err != nil {
			return f, fmt.Errorf("bad --until %q: want an RFC 3339 time", c.String("until"))
		}
	}
	f.Session, f.Tool = c.String("session"), c.String("tool")
	if d := c.String("decision"); d != "" {
		if f.Decision, err = oneOf("decision", d, decisionValues...); err != nil {
			return f, err
		}
	}
	return f, f.Validate()
}
