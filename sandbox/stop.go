package sandbox

import (
	"os"
	"syscall"
)

// SignalName is how a record names the signal that stopped a session
// (airlock run's sandbox_stop, the proxy's mcp_exit): its constant's name,
// not the platform's description ("terminated").
func SignalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}
