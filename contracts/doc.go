// Package contracts owns per-server contracts for MCP servers: what one
// server may do (which tools, which paths, which hosts, whether shell
// commands), the footprint a server leaves while Airlock observes it, and
// the promotion of that footprint into the narrowest contract that covers
// it.
//
// The global policy answers "may any tool do X?"; a contract answers "may
// THIS server do X?". A contract can only tighten: a call inside it is
// decided by the policy as usual, a call outside it becomes the contract's
// default (block or ask). contracts never records decisions (that is
// audit) and never talks to an agent or a server (that is mcpproxy and
// hook); it reads and writes only $AIRLOCK_HOME/contracts.yaml,
// footprints.json and its lock file.
//
// Server and tool names are compared in the form Claude Code gives them
// (mcp__SERVER__TOOL): every byte other than a letter, digit, '_' or '-'
// becomes '_', so the stdio proxy (which sees the raw name) and the hook
// (which sees Claude Code's) find the same contract.
package contracts
