// Command airlock is everything a person runs: check a call, inspect and
// switch the policy, verify and read the audit log. Each subcommand lives
// in its own file and only parses flags, calls a package and maps the
// result to an exit code.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentairlock/airlock/sandbox"
	"github.com/urfave/cli/v2"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "0.1.0-dev"

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitWith(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func newApp() *cli.App {
	return &cli.App{
		Name:    "airlock",
		Usage:   "a runtime firewall for AI coding agents",
		Version: version,
		Commands: []*cli.Command{
			checkCommand(),
			policyCommand(),
			profileCommand(),
			verifyCommand(),
			logCommand(),
			monitorCommand(),
			pinsCommand(),
			contractsCommand(),
			exportCommand(),
			reportCommand(),
			breachCommand(),
			auditCommand(),
			scanCommand(),
			updateCommand(),
			initCommand(),
			uninstallCommand(),
			demoCommand(),
			doctorCommand(),
			demoServerCommand(),
			runCommand(),
			askdCommand(),
			allowCommand(),
		},
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
	}
}

func main() {
	sandbox.MaybeChild()
	os.Exit(run(os.Args))
}

func run(args []string) int {
	err := newApp().Run(args)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(os.Stderr, "airlock: %v\n", err)
	return 1
}
