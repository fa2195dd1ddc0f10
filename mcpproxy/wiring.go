package mcpproxy

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
)

// loadGate loads the gate a proxy runs: the policy and the contracts, and
// it activates the indicator feed for the toolset checks. The proxy
// supplies the toolset stage from what it sees live.
func loadGate(env airlockhome.Env, cwd string) (*gate.Gate, error) {
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return nil, err
	}
	set, err := contracts.Load(env.AirlockHome, p.Vars)
	if err != nil {
		return nil, err
	}
	if err := scan.ActivateInstalledFeed(env.AirlockHome); err != nil {
		return nil, err
	}
	return &gate.Gate{Policy: p, Env: env, Contracts: contracts.GateView{Set: set}}, nil
}

// inspectToolset is the first-sight judgement of a toolset (or of the
// server's instructions, prompts, resources or templates, pinned alike):
// any item whose definition reads as poisoned (scan's indicators at high
// risk, a built-in tool's name among them) holds it, and so does any
// terminal control sequence, a colour too (black on black hides text as
// well as SGR 8 does).
func inspectToolset(ts *pins.Toolset) (bool, string) {
	var why []string
	for _, t := range ts.Tools {
		fs := scan.Tool(t.Canon)
		if bad, reason := scan.Poisoned(fs); bad {
			why = append(why, reason)
			continue
		}
		for _, f := range fs {
			if f.ID == "stealth.ansi" {
				why = append(why, fmt.Sprintf("%q: terminal control sequences in %s", t.Name, f.Field))
				break
			}
		}
	}
	if len(why) == 0 {
		return false, ""
	}
	if len(why) > 3 {
		why = append(why[:3], fmt.Sprintf("and %d more", len(why)-3))
	}
	return true, strings.Join(why, "; ")
}

// observer records a server's footprint while the policy is in observe
// mode, for `airlock contracts promote`.
func observer(home, server string, stderr io.Writer) func(tool string, f *policy.Facts) {
	var warned bool
	return func(tool string, f *policy.Facts) {
		if err := contracts.Observe(home, server, tool, f, time.Now()); err != nil && !warned {
			warned = true
			fmt.Fprintf(stderr, "airlock-mcp: could not record the footprint of %q: %v\n", server, err)
		}
	}
}
