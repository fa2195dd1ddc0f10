package main

import (
	"errors"
	"fmt"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/urfave/cli/v2"
)

func auditSealCommand() *cli.Command {
	return &cli.Command{
		Name:  "seal",
		Usage: "seal the breaks verify reports (a line torn by a full disk) and continue in a new segment",
		Description: "Appends an audit_seal record naming every break airlock verify reports in the log's files\n" +
			"(position, kind, digest of the line), with your reason, and rotates the file holding them\n" +
			"out: it stays on disk as a segment, and every later verify and report names each sealed\n" +
			"break as a warning. Nothing is deleted or rewritten. A sealed line changed later, or any\n" +
			"new break, is still broken. Findings outside the log's lines (the ledger, the checkpoint,\n" +
			"a deleted segment) cannot be sealed. Exit 0 sealed or nothing to seal, 1 refused.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "what broke the log, kept in the seal record (required)"},
		},
		Action: func(c *cli.Context) error {
			env, err := home.FromOS()
			if err != nil {
				return exitWith(1, "airlock audit seal: %v", err)
			}
			if err := requireHome(env.AirlockHome); err != nil {
				return exitWith(1, "airlock audit seal: %v", err)
			}
			res, err := audit.Seal(env.AirlockHome, c.String("reason"))
			w := c.App.Writer
			switch {
			case errors.Is(err, audit.ErrNothingToSeal):
				fmt.Fprintln(w, "nothing to seal: airlock verify reports no break")
				return nil
			case res == nil && err != nil:
				return exitWith(1, "airlock audit seal: %v", err)
			}
			for _, p := range res.Sealed {
				fmt.Fprintf(w, "sealed: %s line %d: %s: %s\n", textsafe.Escape(p.File), p.Line, p.Kind, textsafe.Escape(p.Message))
			}
			if res.Segment != "" {
				fmt.Fprintf(w, "the broken file is kept as segment %s; the chain continues in %s\n", textsafe.Escape(res.Segment), audit.LogFile)
			} else {
				fmt.Fprintf(w, "the seal is the last record of %s (it could not be rotated now; the next rotation keeps it)\n", audit.LogFile)
			}
			if err != nil {
				return exitWith(1, "airlock audit seal: %v", err)
			}
			return nil
		},
	}
}
