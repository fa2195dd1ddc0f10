package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agentairlock/airlock/policy"
)

// recordBinaries writes the gate's binaries into the Airlock home
// (policy.BinariesFile), so the hook protects them wherever they are
// installed without reading the agents' configs on the call path. airlock
// itself is recorded beside the hook and the proxy. A failure is said on
// w and changes nothing else: the name-shaped forbid still protects the
// usual installs.
func recordBinaries(w io.Writer, airlockHome, hook, mcp string) {
	self, _ := os.Executable()
	if err := policy.WriteBinaries(airlockHome, hook, mcp, self); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}
