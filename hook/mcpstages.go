package hook

import (
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
	g.Toolsets = &gate.PinsFile{Store: pins.Open(g.Env.AirlockHome)}
	g.Contracts = &lazyContracts{home: g.Env.AirlockHome, vars: g.Policy.Vars}
	return g
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
