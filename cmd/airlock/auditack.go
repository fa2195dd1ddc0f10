package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:        "audit",
		Usage:       "sign off on the audit log, or seal its known breaks",
		Subcommands: []*cli.Command{auditAckCommand(), auditSealCommand()},
	}
}

func auditAckCommand() *cli.Command {
	return &cli.Command{
		Name:  "ack",
		Usage: "record that the report for a window was reviewed (reviews.jsonl, hash-chained)",
		Flags: []cli.Flag{
			sinceFlag(""),
			&cli.StringFlag{Name: "verdict", Usage: "clean | anomalous"},
			&cli.StringFlag{Name: "note", Usage: "what the reviewer wants to say"},
			&cli.BoolFlag{Name: "yes", Usage: "do not ask; the review is recorded as automatic, never as a person's"},
			&cli.BoolFlag{Name: "list", Usage: "show the reviews so far and check their chain"},
		},
		Action: func(c *cli.Context) error {
			env, err := home.FromOS()
			if err != nil {
				return exitWith(1, "airlock audit ack: %v", err)
			}
			home, w := env.AirlockHome, c.App.Writer
			if c.Bool("list") {
				revs, err := report.ReadReviews(home)
				for _, r := range revs {
					fmt.Fprintf(w, "%s %-9s by %s%s: %d records up to %s, report %s%s\n", r.Time, r.Verdict, r.By,
						userSuffix(r), r.Records, r.Until, r.ReportDigest, noteSuffix(r))
				}
				if err != nil {
					return exitWith(1, "airlock audit ack: %v", err)
				}
				fmt.Fprintf(w, "%d review(s), chain intact\n", len(revs))
				return nil
			}
			verdict, err := enumFlag("audit ack", "verdict", c.String("verdict"), report.VerdictClean, report.VerdictAnomalous)
			if err != nil {
				return err
			}
			if verdict == "" {
				return exitWith(64, "airlock audit ack: --verdict clean or --verdict anomalous is required")
			}
			f, err := filterFrom(c)
			if err != nil {
				return exitWith(64, "airlock audit ack: %v", err)
			}
			f.Until = time.Now().UTC().Truncate(time.Millisecond)
			s, err := summarize(home, f)
			if err != nil {
				return exitWith(1, "airlock audit ack: %v", err)
			}
			if !s.Integrity.Trusted() && verdict == report.VerdictClean {
				return exitWith(1, "airlock audit ack: the audit log is broken; it cannot be signed off as clean")
			}
			var text bytes.Buffer
			if err := s.Text(&text); err != nil {
				return exitWith(1, "airlock audit ack: %v", err)
			}
			rev := report.Review{
				Time: audit.FormatTime(time.Now()), Until: audit.FormatTime(f.Until), Records: s.Records,
				LastH: s.LastH, ReportDigest: report.ReportDigest(text.Bytes()), Verdict: verdict,
				Note: c.String("note"), By: report.ByAutomatic,
			}
			if !f.Since.IsZero() {
				rev.Since = audit.FormatTime(f.Since)
			}
			if !c.Bool("yes") {
				w.Write(text.Bytes())
				if !isTerminal(os.Stdin) {
					return exitWith(1, "airlock audit ack: no terminal to confirm on; a person must answer, or pass --yes to record an automatic review")
				}
				fmt.Fprintf(w, "\nSign off this report (%d records, %s) as %q, reviewed by %s? [y/N] ", rev.Records, rev.ReportDigest, verdict, textsafe.Escape(os.Getenv("USER")))
				answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return exitWith(1, "airlock audit ack: not signed off")
				}
				rev.By, rev.User = report.ByHuman, os.Getenv("USER")
			}
			if rev, err = report.AppendReview(home, rev); err != nil {
				return exitWith(1, "airlock audit ack: %v", err)
			}
			fmt.Fprintf(w, "recorded: %s review by %s of %d records up to %s (report %s, review %s)\n",
				rev.Verdict, rev.By, rev.Records, rev.Until, rev.ReportDigest, rev.H)
			fmt.Fprintf(w, "the same window: airlock report --since %s --until %s\n", orAll(rev.Since), rev.Until)
			return nil
		},
	}
}

func userSuffix(r report.Review) string {
	if r.User == "" {
		return ""
	}
	return " (" + textsafe.Escape(r.User) + ")"
}

func noteSuffix(r report.Review) string {
	if r.Note == "" {
		return ""
	}
	return " — " + textsafe.Escape(r.Note)
}

func orAll(since string) string {
	if since == "" {
		return "all"
	}
	return since
}
