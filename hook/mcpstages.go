package hook

import (
	"fmt"
	"sync"

	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
)

// WithMCPStages completes a hook's gate with the same holds, pinned tool
// lists and contracts the proxy applies, read from pins.json and
// contracts.yaml only when an mcp__ call needs them (a Bash call pays
// nothing).
func WithMCPStages(g *gate.Gate) *gate.Gate {
	g.Toolsets = &pinsFile{store: pins.Open(g.Env.AirlockHome)}
	g.Contracts = &lazyContracts{home: g.Env.AirlockHome, vars: g.Policy.Vars}
	return g
}

// pinsFile answers for toolsets from pins.json (the hook's view): holds
// and tools outside the pinned list. Argument schemas are the proxy's to
// check: the validator's start-up cost does not belong in a process that
// lives for one call, and Claude Code validates its own MCP calls against
// the schema it listed.
type pinsFile struct {
	store *pins.Store
}

func (pf *pinsFile) Check(server, tool string, args []byte, strict bool) (policy.Decision, bool) {
	block := func(src policy.Source, rule, reason string) (policy.Decision, bool) {
		return policy.Decision{Action: policy.Block, Source: src, Rule: rule, Reason: reason, Target: tool}, true
	}
	e, err := pf.store.Find(server)
	if err != nil {
		return block(policy.FromHold, "pins:unreadable", err.Error())
	}
	if e == nil {
		return policy.Decision{}, false // never seen by a proxy: nothing pinned to hold it to
	}
	if e.State == pins.Held || e.Pinned == nil {
		return block(policy.FromHold, "pins:held", fmt.Sprintf("server %q is held: %s", e.Server, e.Reason))
	}
	if _, ok := e.Pinned.Tool(tool); ok {
		return policy.Decision{}, false
	}
	for _, n := range e.Pinned.Names() {
		if pins.NormName(n) == tool {
			return policy.Decision{}, false
		}
	}
	return block(policy.FromSchema, "schema", fmt.Sprintf("tool %q is not in the pinned toolset of server %q", tool, e.Server))
}

// lazyContracts loads contracts.yaml on the first MCP call. A file that
// does not load refuses every MCP call, with the loader's message.
type lazyContracts struct {
	home string
	vars policy.Vars
	once sync.Once
	view gate.Contracts
	err  error
}

func (lc *lazyContracts) Check(server, tool string, f *policy.Facts) (policy.Decision, bool, bool) {
	lc.once.Do(func() {
		set, err := contracts.Load(lc.home, lc.vars)
		lc.view, lc.err = contracts.GateView{Set: set}, err
	})
	if lc.err != nil {
		return policy.Decision{Action: policy.Block, Source: policy.FromContract, Rule: "contracts:unreadable", Reason: lc.err.Error()}, true, true
	}
	return lc.view.Check(server, tool, f)
}
