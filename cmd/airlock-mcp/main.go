// Command airlock-mcp is the stdio proxy wrapped around an MCP server:
//
//	airlock-mcp --name NAME [--sandbox] -- CMD ARGS…
//
// It starts CMD as its child and relays JSON-RPC between the agent and the
// server, gating every tools/call against the policy, the server's pinned
// toolset and its contract. With --sandbox (Linux) the server runs under
// Landlock and seccomp, confined to its contract's fs and net, or to the
// workspace read-only. It exits with the server's status; 64 on bad
// arguments, 78 when the policy, contracts or home cannot be loaded (the
// server is then not started), 127 when CMD does not exist.
package main

import (
	"os"

	"github.com/agentairlock/airlock/mcpproxy"
	"github.com/agentairlock/airlock/sandbox"
)

func main() {
	sandbox.MaybeChild()
	os.Exit(mcpproxy.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
