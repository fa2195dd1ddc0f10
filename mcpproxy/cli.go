package mcpproxy

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/sandbox"
)

const usage = `usage: airlock-mcp --name NAME [--sandbox] [--max-message SIZE] -- COMMAND [ARGS…]
       airlock-mcp --name NAME --url URL [--transport streamable-http|sse]

Starts the MCP server COMMAND and relays its stdio, gating every call; with
--url, connects to the remote server at URL instead and gates it the same.
  --name NAME   the server's name: rules, pins, contracts and the audit log
                know it as mcp__NAME__TOOL
  --sandbox     start the server under the kernel sandbox (Linux: Landlock,
                seccomp): it may touch only its contract's fs and net when
                one is enforced, otherwise the workspace read-only
  --yes         approve every call the policy asks about without asking
                anyone; recorded as automatic, never as a person's answer
                (refused when the policy's ask_fallback is block)
  --max-message SIZE
                the longest message either side may send (default 64MiB,
                or AIRLOCK_MCP_MAX_MESSAGE): a call past it is refused, a
                server message past it dropped and recorded

Asks go to the ask channel: AIRLOCK_ASK_BACKEND (socket,tty,desktop,fallback),
AIRLOCK_ASK_TIMEOUT (60 s), AIRLOCK_ASK_REMEMBER (300 s). Run "airlock askd"
in a terminal to answer them.
  --url URL     a remote server: the bridge speaks HTTP to it (its host is
                judged by the policy like any URL); headers come from
                AIRLOCK_MCP_HEADER_1, _2 … ("Name: value"), or from the
                variables AIRLOCK_MCP_HEADER_ENV_n ("Name: VAR") and
                AIRLOCK_MCP_BEARER_ENV name, never the command line; OAuth
                tokens from "airlock mcp login NAME"
  --transport T streamable-http (default) or sse (the legacy HTTP+SSE one)
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
		return exitUsage
	}
	if a.sandbox && runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		fmt.Fprintf(stderr, "airlock-mcp: --sandbox: %v\nThe server %q was not started.\n", sandbox.ErrUnsupported, a.name)
		return exitConfig
	}
	maxMsg, err := maxMessage(a.maxMessage, os.Getenv("AIRLOCK_MCP_MAX_MESSAGE"))
	if err != nil {
		fmt.Fprintf(stderr, "airlock-mcp: %v\nThe server %q was not started.\n", err, a.name)
		return exitConfig
	}
	if a.url != "" && a.sandbox {
		fmt.Fprintf(stderr, "airlock-mcp: --sandbox confines a local server's process; a remote server (--url) has none\n\n%s", usage)
		return exitUsage
	}
	o, code, err := Setup(a.name, a.argv, a.yes, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "airlock-mcp: %v\nThe server %q was not started.\n", err, a.name)
		return code
	}
	if a.url != "" {
		if a.url, err = urlWithEnvQuery(a.url, os.Getenv(urlQueryEnv)); err != nil {
			fmt.Fprintf(stderr, "airlock-mcp: %v\nThe server %q was not connected.\n", err, a.name)
			return exitConfig
		}
		up, err := newRemote(a, o, maxMsg)
		if err != nil {
			fmt.Fprintf(stderr, "airlock-mcp: %v\nThe server %q was not connected.\n", err, a.name)
			return exitConfig
		}
		o.Upstream, o.URL = up, a.url
	}
	o.Stdin, o.Stdout = stdin, stdout
	o.Sandbox = a.sandbox
	o.MaxMessage = maxMsg
	return Run(context.Background(), o)
}

type args struct {
	name       string
	sandbox    bool
	yes        bool
	maxMessage string
	url        string
	transport  string
	argv       []string
}

var errHelp = fmt.Errorf("help")

func parseArgs(in []string) (args, error) {
	var a args
	for i := 0; i < len(in); i++ {
		s := in[i]
		switch {
		case s == "--":
			if a.url != "" {
				return a, fmt.Errorf("--url names a remote server: no command after -- goes with it")
			}
			if a.transport != "" {
				return a, fmt.Errorf("--transport is for a remote server: give --url, not a command")
			}
			a.argv = in[i+1:]
			if len(a.argv) == 0 {
				return a, fmt.Errorf("no server command after --")
			}
			if a.name == "" {
				return a, fmt.Errorf("--name NAME is required (the name the agent's config gives this server)")
			}
			if strings.Contains(a.name, "#") {
				// pins.json keys a server's other listings NAME#kind
				return a, fmt.Errorf("--name %q: a server's name cannot hold \"#\"", a.name)
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
		case s == "--max-message" || s == "-max-message":
			if i+1 >= len(in) {
				return a, fmt.Errorf("--max-message needs a size, like 64MiB")
			}
			i++
			a.maxMessage = in[i]
		case strings.HasPrefix(s, "--max-message="):
			a.maxMessage = strings.TrimPrefix(s, "--max-message=")
		case s == "--url" || s == "-url" || s == "--transport" || s == "-transport":
			if i+1 >= len(in) {
				return a, fmt.Errorf("%s needs a value", s)
			}
			i++
			if strings.HasSuffix(s, "url") {
				a.url = in[i]
			} else {
				a.transport = in[i]
			}
		case strings.HasPrefix(s, "--url="):
			a.url = strings.TrimPrefix(s, "--url=")
		case strings.HasPrefix(s, "--transport="):
			a.transport = strings.TrimPrefix(s, "--transport=")
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
	if a.url != "" {
		if a.name == "" {
			return a, fmt.Errorf("--name NAME is required (the name the agent's config gives this server)")
		}
		return a, nil
	}
	if a.transport != "" {
		return a, fmt.Errorf("--transport is for a remote server: give --url too")
	}
	return a, fmt.Errorf("missing -- and the server command after it")
}

// Bounds on --max-message: below 64 KiB ordinary listings do not fit;
// above 4 GiB one message could take the machine's memory (the proxy
// holds about twice a message while it reads it).
const (
	minMaxMessage = 64 << 10
	maxMaxMessage = 4 << 30
)

// maxMessage reads the message cap from --max-message, else
// AIRLOCK_MCP_MAX_MESSAGE, else the default.
func maxMessage(flag, env string) (int64, error) {
	v, from := flag, "--max-message"
	if v == "" {
		v, from = env, "AIRLOCK_MCP_MAX_MESSAGE"
	}
	if v == "" {
		return defaultMaxMessage, nil
	}
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", from, v, err)
	}
	if n < minMaxMessage || n > maxMaxMessage {
		return 0, fmt.Errorf("%s=%q: the limit must be between 64KiB and 4GiB", from, v)
	}
	return n, nil
}

// parseSize reads a byte count: digits, optionally followed by K, M or G
// (powers of 1024, with or without "iB" or "B").
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	shift := 0
	upper := strings.ToUpper(s)
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KIB", 10}, {"MIB", 20}, {"GIB", 30}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}} {
		if strings.HasSuffix(upper, u.suffix) {
			s, shift = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<40)>>shift {
		return 0, fmt.Errorf("not a size like 64MiB, 512KiB or 1048576")
	}
	return n << shift, nil
}
