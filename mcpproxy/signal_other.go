//go:build !unix

package mcpproxy

import (
	"os"
	"os/signal"
	"time"
)

// forwardSignals: outside Unix the only signal Go can deliver to a child
// is a kill, so an interrupt stops the child at once.
func forwardSignals(child *os.Process, grace time.Duration, exited <-chan struct{}, stopped func(os.Signal)) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	stop := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			_ = child.Kill()
			stopped(s)
		case <-exited:
		case <-stop:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(stop)
	}
}

func terminate(child *os.Process, grace time.Duration, exited <-chan struct{}) {
	_ = child.Kill()
}

func signalExit(ps *os.ProcessState) int { return 0 }

func ignoreBrokenPipe() {}
