// Command airlock-hook is Claude Code's PreToolUse, PostToolUse and
// PostToolUseFailure hook (the last two with --post). One
// process per tool call: read the event, decide, answer, exit.
//
// It answers by its deadline (25 s, 5 s before the 30 s timeout airlock
// init writes; AIRLOCK_HOOK_DEADLINE shortens it) on every path: a
// decision still running then is refused with exit 2, as any failure.
//
// Build it with CGO_ENABLED=0 (install.sh does): a static binary skips the
// dynamic loader, which is a third of this process's life. It runs on one
// P (internal/oneproc): a decision is sequential.
package main

import (
	"os"

	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	_ "github.com/agentairlock/airlock/internal/oneproc"
)

func main() {
	post := false
	for _, a := range os.Args[1:] {
		if a == "--post" || a == "post" {
			post = true
		}
	}
	os.Exit(hook.RunWithin(hook.Options{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Post: post, Getenv: os.Getenv, EnvFunc: home.FromOS,
	}))
}
