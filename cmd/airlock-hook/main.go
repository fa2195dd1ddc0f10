// Command airlock-hook is the agents' hook: `airlock-hook [--agent NAME]
// [--post]`, NAME one of claude, codex, gemini, cursor, windsurf, cline,
// copilot (airlock init writes it; no --agent is Claude Code, as hooks
// wired before there were adapters are). One process per tool call: read
// the event, decide, answer in that agent's format, exit. --post marks a
// hook wired for post-tool events (they are also known by their names).
//
// It answers by its deadline (5 s before the hook timeout airlock init
// writes for the agent, hook.TimeoutOf; AIRLOCK_HOOK_DEADLINE shortens it)
// on every path: a decision still running then is refused in the agent's
// format, as any failure is. An unknown --agent is refused in the format
// of the agent the event is shaped as (Copilot's and Cline's JSON), else
// Claude Code's (exit 2), which the others read as a refusal.
//
// Build it with CGO_ENABLED=0 (install.sh does): a static binary skips the
// dynamic loader, which is a third of this process's life. It runs on one
// P (internal/oneproc): a decision is sequential.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	_ "github.com/agentairlock/airlock/internal/oneproc"
)

func main() {
	post := false
	name := ""
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--post" || a == "post":
			post = true
		case a == hook.AgentFlag && i+1 < len(args):
			i++
			name = args[i]
		case strings.HasPrefix(a, hook.AgentFlag+"="):
			name = strings.TrimPrefix(a, hook.AgentFlag+"=")
		case a == hook.AgentFlag:
			name = "?" // no value: refused below
		}
	}
	agent, err := hook.ParseAgent(name)
	if err != nil {
		os.Exit(hook.RefuseUnknownAgent(os.Stdin, os.Stdout, os.Stderr, fmt.Sprintf("airlock-hook %s: %v", hook.AgentFlag, err)))
	}
	os.Exit(hook.RunWithin(hook.Options{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Post: post, Agent: agent, Getenv: os.Getenv, EnvFunc: home.FromOS,
	}))
}
