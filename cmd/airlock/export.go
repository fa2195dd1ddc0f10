package main

import (
	"os"
	"strings"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/report"
	"github.com/urfave/cli/v2"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write the audit log for a SIEM: CEF, RFC 5424 syslog or JSONL, one record per line",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: report.FormatJSONL, Usage: strings.Join(report.Formats, " | ")},
			sinceFlag(""),
		},
		Action: func(c *cli.Context) error {
			format, err := enumFlag("export", "format", c.String("format"), report.Formats...)
			if err != nil {
				return err
			}
			env, err := home.FromOS()
			if err != nil {
				return exitWith(1, "airlock export: %v", err)
			}
			f, err := filterFrom(c)
			if err != nil {
				return exitWith(64, "airlock export: %v", err)
			}
			host, _ := os.Hostname()
			o := report.ExportOptions{Version: version, Host: host}
			if err := report.Export(c.App.Writer, format, report.LogSource(env.AirlockHome), f, o); err != nil {
				return exitWith(1, "airlock export: %v", err)
			}
			return nil
		},
	}
}
