package gate

import (
	"strings"

	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
)

// toolsets answers for MCP servers' admitted toolsets: a held server, a
// tool outside the pinned list, or arguments its pinned input schema does
// not accept refuse the call. The proxy answers from the toolset it saw
// live; the hook answers from pins.json.
type toolsets interface {
	// Check returns a refusal for a call of tool on server, or ok=false
	// when the toolset has nothing against it. strict refuses arguments
	// the schema does not declare even when it allows extra properties.
	Check(server, tool string, args []byte, strict bool) (d policy.Decision, refused bool)
}

// inputSchemas is what a Toolsets may also answer: the pinned input schema
// of a server's tool, or nil. The classifier reads its property
// descriptions to tell a prose argument (an issue body) from a place (a
// path), so a secret path named in prose is not taken for a read. It is
// asked before the call is classified, from the same pinned toolset Check
// holds the call to.
type inputSchemas interface {
	InputSchema(server, tool string) []byte
}

// Contracts answers for per-server contracts.
type Contracts interface {
	// Check returns the contract's decision on a call outside it, whether
	// that contract is enforced (false: report only), and hit=false when
	// the call is inside the contract or the server has none.
	Check(server, tool string, f *policy.Facts) (d policy.Decision, enforced, hit bool)
}

// mcpTarget names the MCP server and tool of a call: the proxy sets them;
// for the hook they come from Claude Code's mcp__SERVER__TOOL name. A
// proxy call with no tool (resources/read, prompts/get) gets "", "": the
// toolset and contract stages are about tools.
func mcpTarget(c Call) (server, tool string) {
	if c.Server != "" {
		if c.ServerTool == "" {
			return "", ""
		}
		return c.Server, c.ServerTool
	}
	return splitMCPName(c.Tool)
}

// splitMCPName splits Claude Code's MCP tool name mcp__SERVER__TOOL. The
// server part ends at the first "__" after the prefix, as Claude Code
// parses it; anything that is not such a name gives "", "".
func splitMCPName(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", ""
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", ""
	}
	return server, tool
}

// MCPName is the name Claude Code gives an MCP server's tool, so the proxy
// and the hook decide, record and match rules under one name.
func MCPName(server, tool string) string {
	return "mcp__" + pins.NormName(server) + "__" + pins.NormName(tool)
}

// strictSchemas says whether undeclared arguments are refused even where a
// tool's schema allows them: the paranoid profile's promise.
func strictSchemas(p *policy.Policy) bool {
	return p.Profile == "paranoid"
}

// absolute reports whether a decision came from a stage nothing later may
// soften or needs to tighten.
func absolute(s policy.Source) bool {
	return s == policy.FromForbid || s == policy.FromBudget || s == policy.FromHold || s == policy.FromSchema || s == policy.FromError
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
