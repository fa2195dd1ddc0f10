package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/profiles"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "put your agents behind airlock: each installed agent's hooks, every stdio MCP server, a policy",
		Description: "Writes $AIRLOCK_HOME/policy.yaml from a bundled profile (never over an edited one), wires\n" +
			"airlock-hook into ~/.claude/settings.json, and makes every agent launch its stdio MCP servers\n" +
			"through airlock-mcp. Each file it edits is backed up first; airlock uninstall puts it back.\n" +
			"It never prompts, and prints one line per file and server it looked at.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Value: "default", Usage: "bundled profile `NAME` for a new policy.yaml: yolo, default or paranoid"},
			&cli.GenericFlag{Name: "mcp-config", Value: &pathList{}, Usage: "also wrap the servers of this mcpServers `FILE` (repeatable; see also AIRLOCK_MCP_CONFIGS)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change, write nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "system", Usage: "as root: wire every agent's managed channel (Claude Code's managed settings, Codex's requirements.toml, Cursor's, Windsurf's and Copilot's system hook files) to root-owned binaries; airlock uninstall --system undoes it"},
		},
		Action: runInit,
	}
}

// pathList is a repeatable flag whose values are kept whole: a path may
// hold a comma, which urfave's slice flags would split on.
type pathList []string

func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }
func (p *pathList) String() string     { return strings.Join(*p, ", ") }

func runInit(c *cli.Context) error {
	if c.NArg() > 0 {
		return exitWith(64, "airlock init: no arguments expected (got %q); flags go before them", c.Args().First())
	}
	if c.Bool("system") {
		return runInitSystem(c)
	}
	env, err := home.FromOS()
	if err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	name, err := oneOf("profile", c.String("profile"), profiles.Names...)
	if err != nil {
		return exitWith(64, "airlock init: %v", err)
	}
	policy, err := profiles.Get(name)
	if err != nil {
		return exitWith(64, "airlock init: %v", err)
	}
	home, err := filepath.Abs(env.AirlockHome)
	if err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	hook, mcp, err := findBinaries()
	if err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	var services []setup.ServiceFile
	switch svc, err := forwardService(env, runtime.GOOS); {
	case err != nil:
		// the gate says the same on every call; init goes on wiring
		fmt.Fprintf(c.App.ErrWriter, "airlock init: warning: the forwarder's service is not installed: the policy does not load: %v\n", err)
	case svc != nil:
		services = append(services, *svc)
	}
	r, err := setup.Init(setup.Options{
		Home: env.Home, Workspace: wd, Env: os.Getenv, AirlockHome: home,
		HookPath: hook, MCPPath: mcp, ExtraConfigs: *c.Generic("mcp-config").(*pathList),
		DryRun: c.Bool("dry-run"), Profile: name, Policy: policy, ProfileOf: bundledName,
		Services: services,
	})
	if err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	if !c.Bool("dry-run") {
		// Start the chain, so a home whose log and checkpoint are later
		// deleted reads as a deletion, not as unused (audit.GenesisFile).
		rec := audit.Record{Event: "airlock_init", Source: "cli", Detail: "profile " + name}
		if err := audit.Start(home, rec); err != nil {
			return exitWith(1, "airlock init: start the audit chain in %s: %v", home, err)
		}
		recordBinaries(c.App.ErrWriter, home, hook, mcp)
	}
	if err := printSetupReport(c.App.Writer, r, c.Bool("json")); err != nil {
		return exitWith(1, "airlock init: %v", err)
	}
	if r.Refused > 0 {
		return exitWith(1, "airlock init: %d %s left alone; fix what is named above and run airlock init again", r.Refused, oneOrMany(r.Refused, "file or server", "files or servers"))
	}
	return nil
}

func printSetupReport(w io.Writer, r *setup.Report, asJSON bool) error {
	if !asJSON {
		return r.WriteText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findBinaries finds airlock-hook and airlock-mcp next to this airlock
// (install.sh puts the three side by side), else on PATH. The paths go
// into the agents' configs, so they are made absolute.
func findBinaries() (hook, mcp string, err error) {
	hook, mcp = installedBinaries()
	var missing []string
	for _, b := range []struct{ name, path string }{{"airlock-hook", hook}, {"airlock-mcp", mcp}} {
		if b.path == "" {
			missing = append(missing, b.name)
		}
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("%s not found next to airlock or on PATH: install Airlock with install.sh, which puts airlock, airlock-hook and airlock-mcp side by side; nothing was changed", strings.Join(missing, " and "))
	}
	return hook, mcp, nil
}

// installedBinaries is findBinaries' search, each path "" when not found.
func installedBinaries() (hook, mcp string) {
	dir := ""
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir = filepath.Dir(exe)
	}
	find := func(name string) string {
		file := name
		if runtime.GOOS == "windows" {
			file += ".exe"
		}
		if dir != "" {
			p := filepath.Join(dir, file)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p
			}
		}
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
		return ""
	}
	return find("airlock-hook"), find("airlock-mcp")
}

// geteuid is the effective user id init --system checks (a test plays a
// user who is not root).
var geteuid = os.Geteuid

// initGOOS is the OS init --system wires for (a test plays Windows).
var initGOOS = runtime.GOOS

// runInitSystem wires the agents' managed channels, as root, recording
// what it changed in the managed directory's manifest (root's, and the
// gate's forbid keeps agents out of it).
func runInitSystem(c *cli.Context) error {
	if initGOOS == "windows" {
		printWindowsChannels(c.App.ErrWriter)
		return exitWith(64, "airlock init --system: wires nothing on Windows: deploy each agent's managed file above with your MDM (docs/fleet.md, Windows)")
	}
	if c.IsSet("profile") || len(*c.Generic("mcp-config").(*pathList)) > 0 {
		return exitWith(64, "airlock init --system: --profile and --mcp-config are for a user's init; the managed policy is %s (docs/fleet.md)", home.ManagedFile())
	}
	if geteuid() != 0 {
		return exitWith(77, "airlock init --system: run it as root (sudo airlock init --system): it writes each agent's managed configuration under /etc or /Library, which only root may change; airlock init without --system wires your own user's files")
	}
	hook, mcp, err := findBinaries()
	if err != nil {
		return exitWith(1, "airlock init --system: %v", err)
	}
	r, err := setup.Init(setup.Options{
		System: true, AirlockHome: home.ManagedDir(), HookPath: hook, MCPPath: mcp, DryRun: c.Bool("dry-run"),
	})
	if err != nil {
		return exitWith(1, "airlock init --system: %v", err)
	}
	if err := printSetupReport(c.App.Writer, r, c.Bool("json")); err != nil {
		return exitWith(1, "airlock init --system: %v", err)
	}
	if m := setup.ManagedMCPFile("", initGOOS); m != "" {
		w := c.App.Writer
		if c.Bool("json") {
			w = c.App.ErrWriter // the report is the JSON on stdout
		}
		fmt.Fprintln(w, notCoveredManagedMCP(m))
	}
	if r.Refused > 0 {
		return exitWith(1, "airlock init --system: %d %s left alone; fix what is named above and run airlock init --system again", r.Refused, oneOrMany(r.Refused, "file", "files"))
	}
	return nil
}

// printWindowsChannels says, per agent, what init --system would wire on
// Windows and why it does not: the agent's managed file (or none).
func printWindowsChannels(w io.Writer) {
	fmt.Fprintln(w, "airlock init --system wires nothing on Windows; each agent's managed channel there:")
	for _, ch := range setup.WindowsChannels() {
		if ch.Channel == "" {
			fmt.Fprintf(w, "  %s: none: %s\n", ch.Agent, ch.Advice)
			continue
		}
		fmt.Fprintf(w, "  %s: %s: not written by Airlock: %s\n", ch.Agent, ch.Channel, ch.Advice)
	}
}

// notCoveredManagedMCP is the line init --system prints for Claude Code's
// managed MCP servers file, which it does not rewrite.
func notCoveredManagedMCP(path string) string {
	return fmt.Sprintf("not covered: Claude Code's managed MCP servers file %s: Airlock does not rewrite it, so the servers it lists reach Claude Code without airlock-mcp (wrap each one's command in airlock-mcp there yourself; docs/fleet.md)", textsafe.Escape(path))
}
