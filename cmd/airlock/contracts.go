package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/agentairlock/airlock/contracts"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

func contractsCommand() *cli.Command {
	return &cli.Command{
		Name:  "contracts",
		Usage: "per-server MCP contracts: list them, show one, promote an observed footprint",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "each server: its contract (enforced, report-only, none) and the calls observed", Action: runContractsList},
			{Name: "show", Usage: "a server's contract as YAML and its observed footprint", ArgsUsage: "NAME", Action: runContractsShow},
			{Name: "promote", Usage: "write the narrowest enforced contract covering what the server was observed doing", ArgsUsage: "NAME", Action: runContractsPromote},
		},
	}
}

// contractsEnv is what every contracts subcommand reads: where state
// lives and the variables ${workspace} and friends stand for here.
func contractsEnv() (home string, vars policy.Vars, err error) {
	env, err := airlockhome.FromOS()
	if err != nil {
		return "", vars, err
	}
	vars = policy.Vars{Home: env.Home, Tmp: env.Tmp, User: env.User, AirlockHome: env.AirlockHome}
	if cwd, err := os.Getwd(); err == nil {
		// the policy's rule: the repository around cwd, else cwd itself
		// unless that is the home directory or the root
		vars.Workspace = policy.FindWorkspace(cwd, env.Home)
		if vars.Workspace == "" && filepath.Clean(cwd) != filepath.Clean(env.Home) && filepath.Dir(cwd) != cwd {
			vars.Workspace = cwd
		}
	}
	return env.AirlockHome, vars, nil
}

func runContractsList(c *cli.Context) error {
	home, vars, err := contractsEnv()
	if err != nil {
		return exitWith(1, "airlock contracts: %v", err)
	}
	set, err := contracts.Load(home, vars)
	if err != nil {
		return exitWith(1, "airlock contracts: %v", err)
	}
	fps, err := contracts.Footprints(home)
	if err != nil {
		return exitWith(1, "airlock contracts: %v", err)
	}
	names := map[string]bool{}
	for _, n := range set.Names() {
		names[n] = true
	}
	for n := range fps {
		names[n] = true
	}
	w := c.App.Writer
	if len(names) == 0 {
		fmt.Fprintf(w, "no contracts (%s) and no observed servers: run an MCP server under airlock-mcp with AIRLOCK_MODE=observe, then `airlock contracts promote NAME`\n", set.Path())
		return nil
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tCONTRACT\tOBSERVED\tLAST SEEN")
	for _, n := range sorted {
		state := "none"
		if ct, ok := set.Get(n); ok {
			state = "enforced"
			if !ct.Enforced {
				state = "report-only"
			}
		}
		calls, last := "0 calls", "-"
		if fp := fps[contracts.NormName(n)]; fp != nil {
			calls = plural(fp.Calls, "call")
			if fp.Truncated() {
				calls += " (truncated)"
			}
			last = fp.Last.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", textsafe.Escape(n), state, calls, last)
	}
	return tw.Flush()
}

func runContractsShow(c *cli.Context) error {
	name, err := oneName(c, "show")
	if err != nil {
		return err
	}
	home, vars, err := contractsEnv()
	if err != nil {
		return exitWith(1, "airlock contracts show: %v", err)
	}
	set, err := contracts.Load(home, vars)
	if err != nil {
		return exitWith(1, "airlock contracts show: %v", err)
	}
	fps, err := contracts.Footprints(home)
	if err != nil {
		return exitWith(1, "airlock contracts show: %v", err)
	}
	ct, hasContract := set.Get(name)
	fp := fps[contracts.NormName(name)]
	if !hasContract && fp == nil {
		return exitWith(1, "airlock contracts show: no contract and nothing observed for %q (see `airlock contracts list`)", name)
	}
	w := c.App.Writer
	if hasContract {
		state := "enforced"
		if !ct.Enforced {
			state = "report-only"
		}
		fmt.Fprintf(w, "contract (%s, %s:%d):\n", state, set.Path(), ct.Line)
		if err := writeContractYAML(w, ct); err != nil {
			return exitWith(1, "airlock contracts show: %v", err)
		}
	} else {
		fmt.Fprintf(w, "contract: none in %s\n", set.Path())
	}
	if fp == nil {
		fmt.Fprintln(w, "observed: nothing")
		return nil
	}
	fmt.Fprintf(w, "observed: %s, %s to %s\n", plural(fp.Calls, "call"), fp.First.Local().Format(time.DateTime), fp.Last.Local().Format(time.DateTime))
	showList(w, "tools", fp.Tools, fp.ToolsTruncated)
	showList(w, "paths", fp.Paths, fp.PathsTruncated)
	showList(w, "hosts", fp.Hosts, fp.HostsTruncated)
	fmt.Fprintf(w, "  shell: %v\n", fp.Shell)
	return nil
}

func runContractsPromote(c *cli.Context) error {
	name, err := oneName(c, "promote")
	if err != nil {
		return err
	}
	home, vars, err := contractsEnv()
	if err != nil {
		return exitWith(1, "airlock contracts promote: %v", err)
	}
	ct, err := contracts.Promote(home, name, vars)
	if err != nil {
		return exitWith(1, "airlock contracts: %v", err) // the error already says "promote NAME"
	}
	w := c.App.Writer
	fmt.Fprintf(w, "wrote the contract for %q to %s:\n", ct.Name, filepath.Join(home, contracts.FileName))
	if err := writeContractYAML(w, ct); err != nil {
		return exitWith(1, "airlock contracts promote: %v", err)
	}
	fmt.Fprintln(w, "calls outside it are now blocked; set enforced: false in the file to only report them")
	return nil
}

func oneName(c *cli.Context, sub string) (string, error) {
	if c.NArg() != 1 || c.Args().First() == "" {
		return "", exitWith(64, "airlock contracts %s: name one server (see `airlock contracts list`)", sub)
	}
	return c.Args().First(), nil
}

// writeContractYAML prints a contract as the entry it is in contracts.yaml.
func writeContractYAML(w io.Writer, ct *contracts.Contract) error {
	type entry struct {
		Enforced bool     `yaml:"enforced"`
		Tools    []string `yaml:"tools,flow"`
		FS       []string `yaml:"fs"`
		Net      []string `yaml:"net,flow"`
		Shell    bool     `yaml:"shell"`
		Default  string   `yaml:"default"`
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(map[string]entry{ct.Name: {
		Enforced: ct.Enforced, Tools: nonNil(ct.Tools), FS: nonNil(ct.FS), Net: nonNil(ct.Net),
		Shell: ct.Shell, Default: ct.Default.String(),
	}}); err != nil {
		return fmt.Errorf("render contract: %w", err)
	}
	return enc.Close()
}

// showList prints an observed list; what a server touched is its own
// choice of bytes, so each item is escaped before it reaches a terminal.
func showList(w io.Writer, label string, items []string, truncated bool) {
	more := ""
	if truncated {
		more = " (truncated: more were seen than are kept)"
	}
	fmt.Fprintf(w, "  %s: %d%s\n", label, len(items), more)
	for _, it := range items {
		fmt.Fprintf(w, "    %s\n", textsafe.Escape(it))
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
