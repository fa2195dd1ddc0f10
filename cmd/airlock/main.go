// Command airlock is everything a person runs: check a call, inspect and
// switch the policy, verify and read the audit log. Each subcommand lives
// in its own file and only parses flags, calls a package and maps the
// result to an exit code.
package main

import (
	"errors"
	"fmt"
	"io"
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
	app := &cli.App{
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
			mcpCommand(),
			contractsCommand(),
			exportCommand(),
			forwardCommand(),
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
			taintCommand(),
		},
		HideHelp:        true, // normalize answers --help and `help` (cli_help.go)
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
	}
	applyHelp(app)
	return app
}

func main() {
	sandbox.MaybeChild()
	os.Exit(run(os.Args))
}

func run(args []string) int { return runCLI(args, os.Stdout, os.Stderr) }

// runCLI runs one command line: normalize reads it against the command
// tree (cli_grammar.go), then urfave/cli runs the command. A usage error
// exits 64 with the problem and the usage on stderr; stdout stays empty.
func runCLI(args []string, stdout, stderr io.Writer) int {
	app := newApp()
	app.Writer, app.ErrWriter = stdout, stderr
	line, err := normalize(app, args)
	if err == nil && line.help {
		writeHelp(stdout, app, line.path)
		return 0
	}
	if err == nil {
		err = runLine(app, line)
	}
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		writeUsageError(stderr, app, ue)
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		// a command's own usage error gets the usage too; a command run
		// under airlock run that exits 64 is that command's business
		if ee.code == exitUsage && ee.msg != "" && !argShapes[pathName(line.path)].passthrough {
			writeUsageError(stderr, app, &usageError{path: pathName(line.path)})
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "airlock: %v\n", err)
	return 1
}

// runLine runs the command normalize chose. urfave/cli runs a
// subcommand named by the first argument even after `--`, so `airlock
// update -- keygen` wrote a key pair instead of installing the file
// ./keygen: while the line runs, the chosen command has no subcommands
// to run instead (normalize already took every subcommand the line
// names).
func runLine(app *cli.App, line *parsedLine) error {
	if n := len(line.path); n > 0 {
		last := line.path[n-1]
		subs := last.Subcommands
		last.Subcommands = nil
		defer func() { last.Subcommands = subs }()
	}
	return app.Run(line.args)
}
