package main

import (
	"fmt"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/urfave/cli/v2"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "verify the audit chain (exit 0 intact, 1 broken, 2 tail unprovable)",
		Action: func(c *cli.Context) error {
			env, err := gate.EnvFromOS()
			if err != nil {
				return exitWith(1, "airlock verify: %v", err)
			}
			rep, err := audit.Verify(env.AirlockHome)
			if err != nil {
				return exitWith(1, "airlock verify: %v", err)
			}
			w := c.App.Writer
			for _, p := range rep.Problems {
				if p.Line > 0 {
					fmt.Fprintf(w, "line %d: %s: %s\n", p.Line, p.Kind, audit.Escape(p.Message))
				} else {
					fmt.Fprintf(w, "%s: %s\n", p.Kind, audit.Escape(p.Message))
				}
			}
			switch rep.Status {
			case audit.Intact:
				fmt.Fprintf(w, "intact: %d records, chain and checkpoint verified\n", rep.Records)
				return nil
			case audit.TailUnprovable:
				return exitWith(int(rep.Status), "tail unprovable: %d records chain correctly, but no checkpoint proves nothing was cut from the end", rep.Records)
			}
			return exitWith(int(rep.Status), "BROKEN: the audit log was altered (%d problem(s))", len(rep.Problems))
		},
	}
}
