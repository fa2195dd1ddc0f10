//go:build !unix

package mcpproxy

import "time"

func threadCPU() time.Duration { return 0 }
