//go:build unix

package mcpproxy

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// forwardSignals passes SIGINT, SIGTERM and SIGHUP to the child and kills
// it when it is still alive a grace period later. At the first signal it
// calls stopped (the proxy writes its last record there: whoever sent the
// signal may kill the proxy next). The returned func stops forwarding.
func forwardSignals(child *os.Process, grace time.Duration, exited <-chan struct{}, stopped func(os.Signal)) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	stop := make(chan struct{})
	go func() {
		var killer <-chan time.Time
		for {
			select {
			case s := <-ch:
				_ = child.Signal(s)
				if killer == nil {
					killer = time.After(grace)
					stopped(s)
				}
			case <-killer:
				_ = child.Kill()
				return
			case <-exited:
				return
			case <-stop:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(stop)
	}
}

// terminate sends SIGTERM, then SIGKILL if the child outlives grace.
func terminate(child *os.Process, grace time.Duration, exited <-chan struct{}) {
	_ = child.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = child.Kill()
	}
}

// signalExit maps death by a signal to the shell's 128+N.
func signalExit(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 0
}

// ignoreBrokenPipe makes a write to a client that went away an error the
// relay handles (drain the server, record, exit with its status) instead
// of a SIGPIPE that kills the proxy mid-record.
func ignoreBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }
