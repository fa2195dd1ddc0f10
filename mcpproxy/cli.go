package mcpproxy

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/agentairlock/airlock/sandbox"
)

const usage = `usage: airlock-mcp --name NAME [--sandbox] -- COMMAND [ARGS…]

Starts the MCP server COMMAND and relays its stdio, gating every call.
  --name NAME   the server's name: rules, pins, contracts and the audit log
                know it as mcp__NAME__TOOL
  --sandbox     start the server under the kernel sandbox (Linux: Landlock,
                seccomp): it may touch only its contract's fs and net when
                one is enforced, otherwise the workspace read-only
  --yes         approve every call the policy asks about without asking
                anyone; recorded as automatic, never as a person's answer
                (refused when the policy's ask_fallback is block)

Asks go to the ask channel: AIRLOCK_ASK_BACKEND (socket,tty,desktop,fallback),
AIRLOCK_ASK_TIMEOUT (60 s), AIRLOCK_ASK_REMEMBER (300 s). Run "airlock askd"
in a terminal to answer them.
  --            ends airlock-mcp's options; everything after it is the server
`

// Main is airlock-mcp: it parses args (without the program name), sets
// up, runs the proxy and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a, err := parseArgs(args)
	if err == errHelp {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "airlock-mcp: %v\n\n%s", err, usage)
		return ExitUsage
	}
	if a.sandbox && runtime.GOOS != "linux" {
		fmt.Fprintf(stderr, "airlock-mcp: --sandbox: %v\nThe server %q was not started.\n", sandbox.ErrUnsupported, a.name)
		return ExitConfig
	}
	o, code, err := Setup(a.name, a.argv, a.yes, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "airlock-mcp: %v\nThe server %q was not started.\n", err, a.name)
		return code
	}
	o.Stdin, o.Stdout = stdin, stdout
	o.Sandbox = a.sandbox
	return Run(context.Background(), o)
}

type args struct {
	name    string
	sandbox bool
	yes     bool
	argv    []string
}

var errHelp = fmt.Errorf("help")

func parseArgs(in []string) (args, error) {
	var a args
	for i := 0; i < len(in); i++ {
		s := in[i]
		switch {
		case s == "--":
			a.argv = in[i+1:]
			if len(a.argv) == 0 {
				return a, fmt.Errorf("no server command after --")
			}
			if a.name == "" {
				return a, fmt.Errorf("--name NAME is required (the name the agent's config gives this server)")
			}
			return a, nil
		case s == "-h" || s == "--help":
			return a, errHelp
		case s == "--name" || s == "-name":
			if i+1 >= len(in) {
				return a, fmt.Errorf("--name needs a value")
			}
			i++
			a.name = in[i]
		case strings.HasPrefix(s, "--name="):
			a.name = strings.TrimPrefix(s, "--name=")
		case s == "--sandbox" || s == "-sandbox":
			a.sandbox = true
		case s == "--yes" || s == "-yes" || s == "-y":
			a.yes = true
		default:
			if strings.HasPrefix(s, "-") {
				return a, fmt.Errorf("unknown option %q", s)
			}
			return a, fmt.Errorf("missing -- before the server command %q (write: airlock-mcp --name NAME -- %s …)", s, s)
		}
	}
	return a, fmt.Errorf("missing -- and the server command after it")
}
