// Command airlock-hook is Claude Code's PreToolUse/PostToolUse hook. One
// process per tool call: read the event, decide, answer, exit.
//
// Build it with CGO_ENABLED=0 (install.sh does): a static binary skips the
// dynamic loader, which is a third of this process's life.
package main

import (
	"os"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/hook"
)

func main() {
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
