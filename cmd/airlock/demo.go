package main

import (
	"io"
	"os"
	"strings"

	"github.com/agentairlock/airlock/internal/demo"
	"github.com/urfave/cli/v2"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "watch Airlock stop a hijacked agent, in a throwaway home (nothing of yours is touched)",
		Description: "Builds a throwaway home and workspace in a temp directory — a fake SSH key, a poisoned\n" +
			"skill, two MCP servers built into this binary (one poisoned, one that changes its tools\n" +
			"later) — and replays what a hijacked agent would do through the real hook and proxy,\n" +
			"then verifies the audit log it wrote. No network. Exit 0 when every step comes out as it\n" +
			"must, 1 when one does not (a regression: please report it).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the temp directory and print its path"},
		},
		Action: runDemo,
	}
}

// demoServerCommand runs one of the demo's MCP servers on stdio. The demo
// starts it behind the proxy; it is not for people.
func demoServerCommand() *cli.Command {
	return &cli.Command{
		Name:   "__demo-server",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Usage: "which server: " + demo.PoisonedServer + " or " + demo.RugPullServer},
			&cli.StringFlag{Name: "state", Usage: "the file that marks the server's first start"},
		},
		Action: func(c *cli.Context) error {
			if err := demo.Serve(c.String("server"), c.String("state"), os.Stdin, os.Stdout); err != nil {
				return exitWith(1, "airlock __demo-server: %v", err)
			}
			return nil
		},
	}
}

func runDemo(c *cli.Context) error {
	self, err := os.Executable()
	if err != nil {
		return exitWith(1, "airlock demo: cannot find this program to start the demo's MCP servers: %v", err)
	}
	w := c.App.Writer
	p := demoPrinter{w: w, color: colorOK(w)}
	p.intro()
	res, err := demo.Run(demo.Options{
		Server: []string{self, "__demo-server"},
		Keep:   c.Bool("keep"),
		OnStep: p.step,
	})
	if err != nil {
		return exitWith(1, "airlock demo: %v", err)
	}
	p.outro(res, c.Bool("keep"))
	if bad := res.Failed(); len(bad) > 0 {
		ids := make([]string, len(bad))
		for i, s := range bad {
			ids[i] = s.ID
		}
		return exitWith(1, "airlock demo: REGRESSION: %d step(s) did not come out as they must: %s", len(bad), strings.Join(ids, ", "))
	}
	return nil
}

// colorOK: ANSI colour only on a terminal, and never under NO_COLOR
// (no-color.org) or TERM=dumb.
func colorOK(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(f)
}
