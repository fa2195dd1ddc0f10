package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/agentairlock/airlock/doctor"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "say exactly what is enforcing on this machine and what is not",
		Description: "Checks the policy, the audit chain, each agent's hooks (a coverage table per agent; Codex is\n" +
			"asked itself whether it trusts and runs them), every MCP server in every agent's config, the\n" +
			"pins, the indicator feed, weakening AIRLOCK_* variables and the kernel sandbox, and lists what\n" +
			"Airlock cannot cover. The verdict comes first; by default the report fits a screen\n" +
			"(the kernel sandbox on one line, long lists cut short) and --verbose shows every detail, the\n" +
			"sandbox's gap list included. --json always has everything.\n" +
			"--fix wraps stragglers and wires a missing hook (as airlock init does, with backups), then checks again.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "wrap stdio MCP servers not behind airlock-mcp and wire a missing hook, then re-check"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print every detail: the kernel sandbox's gap list, each ask backend, every item of a long list"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict and every check, with all details, as JSON"},
			&cli.GenericFlag{Name: "mcp-config", Value: &pathList{}, Usage: "also check this mcpServers `FILE` (repeatable)"},
		},
		Action: runDoctor,
	}
}

func runDoctor(c *cli.Context) error {
	if c.NArg() > 0 {
		return exitWith(64, "airlock doctor: no arguments expected (got %q)", c.Args().First())
	}
	env, err := home.FromOS()
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
	if p, err := exec.LookPath("codex"); err == nil {
		o.CodexPath = p // asked which hooks it will run: Codex skips an untrusted one
	}
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
	if st, err := os.Stat(env.AirlockHome); err == nil && st.IsDir() && (hookBin != "" || mcpBin != "") {
		// keep the record of the gate's binaries current (init wrote it)
		recordBinaries(c.App.ErrWriter, env.AirlockHome, hookBin, mcpBin)
	}
	rep := doctor.Run(o)
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Enforcing    bool           `json:"enforcing"`
			Verdict      string         `json:"verdict"`
			NothingWired bool           `json:"nothing_wired"`
			Checks       []doctor.Check `json:"checks"`
		}{rep.Enforcing(), rep.Verdict(), rep.NothingWired, rep.Checks}); err != nil {
			return exitWith(1, "airlock doctor: %v", err)
		}
	} else if err := rep.WriteText(w, c.Bool("verbose")); err != nil {
		return exitWith(1, "airlock doctor: %v", err)
	}
	if !rep.Enforcing() {
		return exitWith(1, "")
	}
	return nil
}
