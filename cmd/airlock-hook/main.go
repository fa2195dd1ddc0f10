// Command airlock-hook is Claude Code's PreToolUse/PostToolUse hook. One
// process per tool call: read the event, decide, answer, exit.
package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
)

func main() {
	// One short call on one goroutine: a collector and idle processors
	// only cost start-up time. The memory limit brings the collector back
	// if an oversized event ever needs it.
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)

	post := false
	for _, a := range os.Args[1:] {
		if a == "--post" || a == "post" {
			post = true
		}
	}
	os.Exit(hook.Run(hook.Options{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Post: post, Getenv: os.Getenv, EnvFunc: gate.EnvFromOS,
	}))
}
