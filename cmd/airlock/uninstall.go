package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/setup"
	"github.com/urfave/cli/v2"
)

func uninstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "undo airlock init: restore every config file it edited",
		Description: "A file unchanged since init is restored from its backup byte for byte. A file you edited\n" +
			"since keeps your edits: only Airlock's own entries come out. Asks first, unless -y.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			&cli.BoolFlag{Name: "purge", Usage: "also delete $AIRLOCK_HOME (policy, audit log, pins, backups) once every file is restored"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "system", Usage: "as root: undo airlock init --system (its manifest is in the managed directory)"},
		},
		Action: runUninstall,
	}
}

func runUninstall(c *cli.Context) error {
	if c.NArg() > 0 {
		return exitWith(64, "airlock uninstall: no arguments expected (got %q); flags go before them", c.Args().First())
	}
	var env home.Env
	var err error
	if c.Bool("system") {
		if c.Bool("purge") {
			return exitWith(64, "airlock uninstall --system: --purge deletes a user's Airlock home; the managed directory %s is the deployment's to remove", home.ManagedDir())
		}
		if geteuid() != 0 {
			return exitWith(77, "airlock uninstall --system: run it as root (sudo airlock uninstall --system): the files airlock init --system wired are root's")
		}
		env.AirlockHome = home.ManagedDir()
	} else if env, err = home.FromOS(); err != nil {
		return exitWith(1, "airlock uninstall: %v", err)
	}
	home, err := filepath.Abs(env.AirlockHome)
	if err != nil {
		return exitWith(1, "airlock uninstall: %v", err)
	}
	man, err := setup.ReadManifest(home)
	if err != nil {
		return exitWith(1, "airlock uninstall: %v", err)
	}
	purge := c.Bool("purge")
	if n := len(man.Files); !c.Bool("yes") && (n > 0 || purge) {
		question := fmt.Sprintf("Restore %d %s", n, oneOrMany(n, "file", "files"))
		if purge {
			question += " and delete " + home
		}
		if !confirm(question + "? [y/N] ") {
			return exitWith(1, "airlock uninstall: refusing without confirmation; run airlock uninstall -y")
		}
	}
	r, err := setup.Uninstall(setup.UninstallOptions{AirlockHome: home, Home: env.Home, Purge: purge})
	if r != nil {
		if perr := printSetupReport(c.App.Writer, r, c.Bool("json")); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return exitWith(1, "airlock uninstall: %v", err)
	}
	if r.Refused > 0 {
		return exitWith(1, "airlock uninstall: %d %s could not be restored safely and %s left as %s; the backups are kept", r.Refused, oneOrMany(r.Refused, "file", "files"), oneOrMany(r.Refused, "was", "were"), oneOrMany(r.Refused, "it is", "they are"))
	}
	return nil
}

// confirm asks on stderr and reads the answer from stdin, which must be a
// terminal: an answer piped in by a script is not a person agreeing.
func confirm(question string) bool {
	if !isTerminal(os.Stdin) {
		return false
	}
	fmt.Fprint(os.Stderr, question)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
