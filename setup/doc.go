// Package setup owns the agents' config stores: where each agent keeps its
// MCP servers and hooks (Locate, Recognize), what a store defines (Parse),
// and putting agents behind Airlock and back: Init wraps every stdio
// server in airlock-mcp and wires airlock-hook into the hooks of every
// agent it finds (Claude Code, Codex — whose trust of the hooks it records
// —, Gemini CLI, Cursor, Windsurf, Copilot CLI, Cline: one hookDialect
// each), backing each file up first and recording it in a manifest;
// Uninstall restores each file byte for byte, or removes only Airlock's
// own entries from a file edited since; Status tells the doctor what is
// covered.
//
// Twenty-odd agents write the same idea (a named server: a command, its
// arguments and environment, or a URL) in their own dialect: JSON
// mcpServers, VS Code's servers, Zed's context_servers, opencode's mcp, the
// TOML [mcp_servers.NAME] of Codex and Grok, Continue's and Goose's YAML.
// Parse turns each into the same Server, with the line it sits on, so the
// scanner and the doctor can point at it, and says which servers are
// already wrapped (WrappedCommand) and which are remote: init rewrites a
// remote entry into the bridge, airlock-mcp --url (wrap_remote.go), where
// it can, and says why where it cannot rather than count it as covered.
//
// Every file here is untrusted input: a project can ship .mcp.json or
// .vscode/mcp.json. Parsing never panics, refuses files over MaxFileSize,
// bounds nesting, reads YAML aliases without expanding them, and reports a
// field of the wrong type with the file, line, server and field rather
// than guessing. A broken entry costs that entry only.
//
// setup never decides whether a server is safe (scan and gate do). On the
// read side it never writes: Locate and Recognize read no files, and
// Parse reads only the bytes it is given. On the write side every edit is
// a splice of the command and args values only (comments, key order and
// unknown keys untouched), checked by parsing the result before an atomic
// write through any symlink, keeping the file's mode.
package setup
