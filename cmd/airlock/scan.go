package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"runtime"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/scan/files"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

// scanCommand is `airlock scan`: read skills, agent instructions and MCP
// configs before an agent does.
func scanCommand() *cli.Command {
	return &cli.Command{
		Name:      "scan",
		ArgsUsage: "[PATH…]",
		Usage:     "read skills, agent instructions and MCP configs for injection, secret access, exfiltration, execution and hidden text; list MCP servers not behind the gate",
		Description: `Walks each folder (skipping .git, node_modules and vendored trees; symlinks are not followed)
and scans each file as itself. Every finding is listed; where it sits decides its weight:
imperatives in a SKILL.md, command, rules file or tool description count in full, the same
words in code, tests and docs are weighted down. Each file gets a risk from 0 to 100.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the airlock.scan/v1 JSON document (docs/scan.md)"},
			&cli.BoolFlag{Name: "sarif", Usage: "print SARIF 2.1.0 for GitHub code scanning"},
			&cli.BoolFlag{Name: "fail-on-findings", Usage: "exit 1 when any finding reaches --min-severity (for CI)"},
			&cli.StringFlag{Name: "min-severity", Value: "high", Usage: "low, med or high: the threshold for --fail-on-findings"},
			&cli.BoolFlag{Name: "all", Usage: "list low findings too in the text report"},
			&cli.BoolFlag{Name: "user-configs", Usage: "also read every agent's MCP config and settings in your home directory"},
		},
		Action: runScan,
	}
}

func runScan(c *cli.Context) error {
	if c.Bool("json") && c.Bool("sarif") {
		return exitWith(64, "airlock scan: --json and --sarif are one or the other")
	}
	sev, err := oneOf("min-severity", c.String("min-severity"), severityValues...)
	if err != nil {
		return exitWith(64, "airlock scan: %v", err)
	}
	minSev, err := scan.ParseSeverity(sev)
	if err != nil {
		return exitWith(64, "airlock scan: --min-severity: %v", err)
	}
	paths := c.Args().Slice()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(2, "airlock scan: %v", err)
	}
	if err := scan.ActivateInstalledFeed(env.AirlockHome); err != nil {
		return exitWith(2, "airlock scan: %v", err)
	}
	opt := files.Options{Admission: admissionFrom(env.AirlockHome)}
	if c.Bool("user-configs") {
		home, err := os.UserHomeDir()
		if err != nil {
			return exitWith(2, "airlock scan: --user-configs: %v", err)
		}
		cwd, _ := os.Getwd()
		opt.Stores = setup.Locate(home, cwd, runtime.GOOS, os.Getenv)
		for _, d := range setup.LocateDirs(home, cwd, runtime.GOOS, os.Getenv) {
			if info, err := os.Stat(d.Path); err == nil && info.IsDir() {
				paths = append(paths, d.Path)
			}
		}
	}
	rep, err := files.Walk(paths, opt)
	if err != nil {
		return exitWith(2, "airlock scan: %v", err)
	}
	out := bufio.NewWriter(c.App.Writer)
	switch {
	case c.Bool("json"):
		err = rep.WriteJSON(out)
	case c.Bool("sarif"):
		err = rep.WriteSARIF(out, version)
	default:
		err = rep.WriteText(out, c.Bool("all"))
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return exitWith(2, "airlock scan: %v", err)
	}
	if c.Bool("fail-on-findings") && rep.Reaches(minSev) {
		return exitWith(1, "airlock scan: findings at %s or above", minSev)
	}
	return nil
}

// admissionFrom reads the pins once and answers for each server: pinned,
// held, or never seen. An unreadable pins file is said as such: the proxy
// refuses every call while it is so.
func admissionFrom(home string) func(string) string {
	if home == "" {
		return nil
	}
	entries, err := pins.Open(home).Load()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return func(string) string { return "pins unreadable" }
	}
	return func(name string) string {
		e, ok := entries[name]
		if !ok {
			return "never seen"
		}
		return string(e.State)
	}
}
