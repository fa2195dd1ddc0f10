package main

import "github.com/urfave/cli/v2"

// scanCommand is `airlock scan`: read skills, agent instructions and MCP configs before an agent does.
func scanCommand() *cli.Command {
	return &cli.Command{Name: "scan", Usage: "scan skills, agent instructions and MCP configs (not built yet)"}
}
