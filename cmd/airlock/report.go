package main

import (
	"bytes"
	"os"
	"time"

	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "summarise a window of the audit log: integrity, then what needs you, then the rest (text, --markdown or --html FILE|-)",
		Flags: []cli.Flag{
			sinceFlag("7d"),
			&cli.StringFlag{Name: "until", Usage: "end of the window (RFC 3339), to reproduce a signed-off report"},
			&cli.BoolFlag{Name: "markdown", Usage: "write Markdown"},
			&cli.StringFlag{Name: "html", Usage: "write one self-contained HTML page to `FILE` (- for stdout; an existing file only with --force)"},
			&cli.BoolFlag{Name: "force", Usage: "let --html replace an existing file (written whole, its mode kept)"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("markdown") && c.String("html") != "" {
				return exitWith(64, "airlock report: choose one of --markdown and --html")
			}
			if c.Bool("force") && c.String("html") == "" {
				return exitWith(64, "airlock report: --force only applies to --html FILE")
			}
			env, err := airlockhome.FromOS()
			if err != nil {
				return exitWith(1, "airlock report: %v", err)
			}
			f, err := filterFrom(c)
			if err != nil {
				return exitWith(64, "airlock report: %v", err)
			}
			s, err := summarize(env.AirlockHome, f)
			if err != nil {
				return exitWith(1, "airlock report: %v", err)
			}
			switch {
			case c.Bool("markdown"):
				err = s.Markdown(c.App.Writer)
			case c.String("html") != "":
				var page bytes.Buffer
				if err = s.HTML(&page); err == nil {
					return output{cmd: "airlock report", flag: "--html", path: c.String("html"), force: c.Bool("force"),
						newMode: 0o600}.write(c.App.Writer, page.Bytes())
				}
			default:
				err = s.Text(c.App.Writer)
			}
			if err != nil {
				return exitWith(1, "airlock report: %v", err)
			}
			return nil
		},
	}
}

// summarize verifies the log in home and summarises the window f.
func summarize(home string, f report.Filter) (report.Summary, error) {
	integ, err := report.CheckIntegrity(home, os.Getenv)
	if err != nil {
		return report.Summary{}, err
	}
	entries, err := report.Collect(report.LogSource(home), f)
	if err != nil {
		return report.Summary{}, err
	}
	var granted func(tool, target string) bool
	if env, err := airlockhome.FromOS(); err == nil {
		if cwd, err := os.Getwd(); err == nil {
			if p, err := policy.LoadEnv(env, cwd); err == nil {
				granted = report.GrantedBy(p, env.Home, env.User, time.Now())
			}
		}
	}
	return report.SummarizeWith(entries, integ, f, granted), nil
}
