// Package files is the static scanner: it walks folders, tells what each
// file is to an agent (a skill, a rules file, a slash command, an agent
// config, a tools/list snapshot, a script, code or prose), weighs its text
// with scan's engine in the context that kind gets, adds what only an agent
// config shows (hooks and MCP server launch commands that run without a
// person, project settings a repository uses against whoever opens it),
// lists the MCP servers configs define, and prints the report as text,
// JSON (airlock.scan/v1) or SARIF.
//
// It reads agent configs through setup, which is why it is a package of
// its own: the proxy and the hook need scan's text engine, never this
// walker or the config editor behind it.
//
// files never decides what happens to a call or a server, and never writes:
// a report is evidence for a person.
package files
