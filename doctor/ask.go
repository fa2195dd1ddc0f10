package doctor

import (
	"fmt"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/policy"
)

// checkAsk says where an ask from an MCP server or airlock run goes: which
// backends can reach a person now, and what ask_fallback does with the
// rest.
func checkAsk(o Options) Check {
	c := Check{Name: "ask channel", Status: info}
	ch, err := ask.New(ask.Options{Home: o.Env.AirlockHome, Getenv: o.Getenv})
	if err != nil {
		c.Status, c.Detail = fail, err.Error()
		c.Fix = "unset it, or set AIRLOCK_ASK_BACKEND to a list of socket, tty, desktop, fallback"
		return c
	}
	fallback := "ask_fallback"
	if p, err := policy.LoadEnv(o.Env, o.Workspace); err == nil {
		fallback = "ask_fallback (" + p.AskFallback.String() + ")"
	}
	reach := 0
	for _, p := range ch.Probe() {
		mark := "ready"
		if !p.Ready {
			mark = "not ready"
		}
		if p.Ready && p.Backend != ask.BackendFallback {
			reach++
		}
		c.Items = append(c.Items, fmt.Sprintf("%s: %s — %s", p.Backend, mark, p.Why))
	}
	timeout := ch.Timeout()
	if reach > 0 {
		c.Detail = fmt.Sprintf("asks from MCP servers and airlock run reach a person; no answer in %s leaves it to %s", timeout, fallback)
	} else {
		c.Detail = "asks from MCP servers and airlock run reach nobody now: " + fallback + " decides them (airlock report counts them); to answer them, run airlock askd in a terminal"
	}
	c.Brief = c.Detail // each backend's state: --verbose
	return c
}
