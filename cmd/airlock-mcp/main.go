// Command airlock-mcp will be the stdio proxy wrapped around every MCP
// server. It is not built yet; it refuses to start rather than run a server
// ungated.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "airlock-mcp: not yet: the MCP proxy is not built in this version; refusing to start the server ungated")
	os.Exit(78)
}
