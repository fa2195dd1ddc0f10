package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/pins"
	"github.com/urfave/cli/v2"
)

func pinsCommand() *cli.Command {
	list := &cli.Command{
		Name:   "list",
		Usage:  "one line per MCP server: state, pinned toolset, and why it is held",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the entries as JSON"}},
		Action: runPinsList,
	}
	return &cli.Command{
		Name:   "pins",
		Usage:  "review MCP toolsets pinned on first use, and the servers held because theirs changed",
		Flags:  list.Flags,
		Action: runPinsList,
		Subcommands: []*cli.Command{
			list,
			{Name: "diff", ArgsUsage: "NAME", Usage: "show what a held server's pending toolset changes, field by field", Action: runPinsDiff},
			{Name: "approve", Usage: "pin the pending toolset and release the hold", Action: runPinsApprove,
				Flags: []cli.Flag{&cli.StringFlag{Name: "hash", Usage: "approve only if the pending toolset is still this one (as printed by pins diff)"}}},
			{Name: "reject", ArgsUsage: "NAME", Usage: "refuse the pending toolset; the server stays held until it serves its pinned one", Action: runPinsReject},
			{Name: "forget", ArgsUsage: "NAME", Usage: "drop the server's pin; its next start pins afresh", Action: runPinsForget},
		},
	}
}

func pinsStore() (*pins.Store, error) {
	env, err := home.FromOS()
	if err != nil {
		return nil, exitWith(1, "airlock pins: %v", err)
	}
	return pins.Open(env.AirlockHome), nil
}

// pinsArgs takes the server name (exactly one: cli_grammar.go) and --hash.
func pinsArgs(c *cli.Context, verb string, hashOK bool) (name, hash string, err error) {
	if name = c.Args().First(); name == "" {
		return "", "", exitWith(64, "airlock pins %s: which server? usage: airlock pins %s NAME", verb, verb)
	}
	if hashOK {
		hash = c.String("hash")
	}
	return name, hash, nil
}

func runPinsList(c *cli.Context) error {
	s, err := pinsStore()
	if err != nil {
		return err
	}
	m, err := s.Load()
	if err != nil {
		return exitWith(1, "airlock %v", err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		out, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return exitWith(1, "airlock pins: %v", err)
		}
		fmt.Fprintf(w, "%s\n", out)
		return nil
	}
	if len(m) == 0 {
		fmt.Fprintf(w, "no MCP server is pinned yet (%s)\n", s.Path())
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range sortedKeys(m) {
		e := m[name]
		hash, count := "-", "-"
		if e.Pinned != nil {
			hash, count = pins.ShortHash(e.Pinned.Hash), fmt.Sprint(len(e.Pinned.Tools))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s tools", textsafe.Escape(name), e.State, hash, count)
		if e.State == pins.Held {
			fmt.Fprintf(tw, "\t%s", textsafe.Escape(e.Reason))
			if e.Pending != nil {
				fmt.Fprintf(tw, " [pending %s: %s]", pins.ShortHash(e.Pending.Hash), pins.Compare(e.Pinned, e.Pending))
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func runPinsDiff(c *cli.Context) error {
	name, _, err := pinsArgs(c, "diff", false)
	if err != nil {
		return err
	}
	s, err := pinsStore()
	if err != nil {
		return err
	}
	m, err := s.Load()
	if err != nil {
		return exitWith(1, "airlock %v", err)
	}
	e := m[name]
	if e == nil {
		return exitWith(1, "airlock %v", &pins.UnknownServerError{Server: name, Path: s.Path(), Known: sortedKeys(m)})
	}
	w := c.App.Writer
	fmt.Fprintf(w, "%s: %s\n", textsafe.Escape(name), e.State)
	if e.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", textsafe.Escape(e.Reason))
	}
	describe := func(what string, ts *pins.Toolset) {
		if ts == nil {
			fmt.Fprintf(w, "%-8s none\n", what)
			return
		}
		fmt.Fprintf(w, "%-8s %s (%d tools)\n", what, ts.Hash, len(ts.Tools))
	}
	describe("pinned", e.Pinned)
	describe("pending", e.Pending)
	if e.Pending == nil {
		fmt.Fprintln(w, "nothing pending to review")
		return nil
	}
	d := pins.Compare(e.Pinned, e.Pending)
	fmt.Fprintf(w, "\n%s\n", d)
	for _, t := range d.Added {
		tool, _ := e.Pending.Tool(t)
		fmt.Fprintf(w, "\nadded %s\n", textsafe.Escape(t))
		printFields(w, nil, tool)
	}
	for _, t := range d.Removed {
		fmt.Fprintf(w, "\nremoved %s\n", textsafe.Escape(t))
	}
	for _, ch := range d.Changed {
		old, _ := e.Pinned.Tool(ch.Name)
		cur, _ := e.Pending.Tool(ch.Name)
		fmt.Fprintf(w, "\nchanged %s\n", textsafe.Escape(ch.Name))
		printFields(w, old, cur)
	}
	fmt.Fprintf(w, "\nto pin exactly this toolset: airlock pins approve %s --hash %s\n", shellArg(name), pins.ShortHash(e.Pending.Hash))
	fmt.Fprintf(w, "to refuse it:                airlock pins reject %s\n", shellArg(name))
	return nil
}

// printFields prints each pinned field that differs between old and cur
// (all of cur's when old is nil), escaped: a description is text from the
// server, written to be read by a model, and may hide instructions in
// control, zero-width, bidi or tag characters.
func printFields(w io.Writer, old, cur *pins.Tool) {
	of, nf := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	if old != nil {
		of, _ = old.Fields()
	}
	if cur != nil {
		nf, _ = cur.Fields()
	}
	for _, f := range []string{"title", "description", "inputSchema", "outputSchema", "annotations"} {
		o, n := of[f], nf[f]
		if string(o) == string(n) {
			continue
		}
		fmt.Fprintf(w, "  %s\n", f)
		if old != nil {
			fmt.Fprintf(w, "    - %s\n", fieldText(o))
		}
		fmt.Fprintf(w, "    + %s\n", fieldText(n))
	}
}

// fieldText shows a field value on one line: strings as their text, other
// values as canonical JSON, both escaped.
func fieldText(v json.RawMessage) string {
	if v == nil {
		return "(absent)"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return textsafe.Escape(s)
	}
	return textsafe.Escape(string(v))
}

func runPinsApprove(c *cli.Context) error {
	name, hash, err := pinsArgs(c, "approve", true)
	if err != nil {
		return err
	}
	s, err := pinsStore()
	if err != nil {
		return err
	}
	e, err := s.ApprovePending(name, hash, time.Now().UTC())
	if err != nil {
		return exitWith(1, "airlock %v", err)
	}
	fmt.Fprintf(c.App.Writer, "approved %s: toolset %s (%d tools) is pinned; the hold is released\n",
		textsafe.Escape(name), pins.ShortHash(e.Pinned.Hash), len(e.Pinned.Tools))
	return nil
}

func runPinsReject(c *cli.Context) error {
	name, _, err := pinsArgs(c, "reject", false)
	if err != nil {
		return err
	}
	s, err := pinsStore()
	if err != nil {
		return err
	}
	e, err := s.Reject(name, time.Now().UTC())
	if err != nil {
		return exitWith(1, "airlock %v", err)
	}
	fmt.Fprintf(c.App.Writer, "rejected %s: %s\n", textsafe.Escape(name), textsafe.Escape(e.Reason))
	return nil
}

func runPinsForget(c *cli.Context) error {
	name, _, err := pinsArgs(c, "forget", false)
	if err != nil {
		return err
	}
	s, err := pinsStore()
	if err != nil {
		return err
	}
	if err := s.Forget(name); err != nil {
		return exitWith(1, "airlock %v", err)
	}
	fmt.Fprintf(c.App.Writer, "forgot %s: its next start pins its toolset afresh\n", textsafe.Escape(name))
	return nil
}

func sortedKeys(m map[string]*pins.Entry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shellArg quotes a server name for a command line a person may paste.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@:/+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(textsafe.Escape(s), "'", `'\''`) + "'"
}
