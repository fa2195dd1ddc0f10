package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentairlock/airlock/doctor"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "say exactly what is enforcing on this machine and what is not",
		Description: "Checks the policy, the audit chain, the Claude Code hook, every MCP server in every agent's\n" +
			"config, the pins, the indicator feed, weakening AIRLOCK_* variables and the kernel sandbox, and\n" +
			"lists what Airlock cannot cover. Exit 0 when everything checked is enforcing, 1 otherwise.\n" +
			"--fix wraps stragglers and wires a missing hook (as airlock init does, with backups), then checks again.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "wrap stdio MCP servers not behind airlock-mcp and wire a missing hook, then re-check"},
			&cli.BoolFlag{Name: "json", Usage: "print the checks as JSON"},
			&cli.GenericFlag{Name: "mcp-config", Value: &pathList{}, Usage: "also check this mcpServers `FILE` (repeatable)"},
		},
		Action: runDoctor,
	}
}

func runDoctor(c *cli.Context) error {
	if c.NArg() > 0 {
		return exitWith(64, "airlock doctor: no arguments expected (got %q)", c.Args().First())
	}
	env, err := gate.EnvFromOS()
	if err != nil {
		return exitWith(1, "airlock doctor: %v", err)
	}
	if env.AirlockHome, err = filepath.Abs(env.AirlockHome); err != nil {
		return exitWith(1, "airlock doctor: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock doctor: %v", err)
	}
	// The installed binaries, which the hook and the wrappers must run:
	// found as init finds them; "" (and said so in the checks) when not.
	hookBin, mcpBin := installedBinaries()
	o := doctor.Options{Env: env, Workspace: wd, GOOS: runtime.GOOS, Getenv: os.Getenv,
		ExtraConfigs: *c.Generic("mcp-config").(*pathList), HookPath: hookBin, MCPPath: mcpBin}
	w := c.App.Writer
	if c.Bool("fix") {
		hook, mcp, err := findBinaries()
		if err != nil {
			return exitWith(1, "airlock doctor --fix: %v", err)
		}
		r, err := setup.Init(setup.Options{
			Home: env.Home, Workspace: wd, Env: os.Getenv, AirlockHome: env.AirlockHome,
			HookPath: hook, MCPPath: mcp, ExtraConfigs: o.ExtraConfigs,
		})
		if err != nil {
			return exitWith(1, "airlock doctor --fix: %v", err)
		}
		if !c.Bool("json") {
			fmt.Fprintln(w, "fixing (as airlock init; airlock uninstall puts every file back):")
			if err := r.WriteText(w); err != nil {
				return exitWith(1, "airlock doctor: %v", err)
			}
			fmt.Fprintln(w)
		}
	}
	rep := doctor.Run(o)
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Enforcing bool           `json:"enforcing"`
			Checks    []doctor.Check `json:"checks"`
		}{rep.Enforcing(), rep.Checks}); err != nil {
			return exitWith(1, "airlock doctor: %v", err)
		}
	} else {
		writeDoctor(w, rep)
	}
	if !rep.Enforcing() {
		return exitWith(1, "")
	}
	return nil
}

func writeDoctor(w io.Writer, rep *doctor.Report) {
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range rep.Checks {
		mark := map[doctor.Status]string{doctor.OK: "ok  ", doctor.Info: "info", doctor.Warn: "warn", doctor.Fail: "FAIL"}[c.Status]
		fmt.Fprintf(w, "%s  %-*s  %s\n", mark, width, c.Name, c.Detail)
		pad := strings.Repeat(" ", width+8)
		for _, it := range c.Items {
			fmt.Fprintf(w, "%s%s\n", pad, it)
		}
		if c.Fix != "" && c.Status != doctor.OK && c.Status != doctor.Info {
			fmt.Fprintf(w, "%sfix: %s\n", pad, c.Fix)
		}
	}
	if rep.Enforcing() {
		fmt.Fprintln(w, "\nenforcing: everything checked is in force (warnings are limits, listed so they are known)")
	} else {
		fmt.Fprintln(w, "\nNOT enforcing: fix the FAIL lines above (airlock doctor --fix handles stragglers and the hook)")
	}
}
