package main

import "github.com/urfave/cli/v2"

// updateCommand is `airlock update`: refresh the indicators from a signed feed.
func updateCommand() *cli.Command {
	return &cli.Command{Name: "update", Usage: "refresh the indicators from a signed feed (not built yet)"}
}
