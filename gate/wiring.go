package gate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
)

// LoadMCP loads the gate an MCP proxy runs: the policy and the contracts,
// and it activates the indicator feed for the toolset checks. The proxy
// supplies the toolset stage from what it sees live.
func LoadMCP(env home.Env, cwd string) (*Gate, error) {
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		return nil, err
	}
	set, err := contracts.Load(env.AirlockHome, p.Vars)
	if err != nil {
		return nil, err
	}
	if err := ActivateFeed(env.AirlockHome); err != nil {
		return nil, err
	}
	return &Gate{Policy: p, Env: env, Contracts: contracts.GateView{Set: set}}, nil
}

// ActivateFeed puts the indicator feed installed in home, if there is one,
// under every later scan in this process (none: the bundled indicators
// alone). A feed.json that does not load is an error, for the proxy as
// for a policy that does not: the feed was installed to catch something.
func ActivateFeed(home string) error {
	f, err := scan.LoadFeed(filepath.Join(home, scan.FeedFile))
	if errors.Is(err, fs.ErrNotExist) {
		scan.ActivateFeed(nil)
		return nil
	}
	if err != nil {
		return err
	}
	scan.ActivateFeed(f)
	return nil
}

// ForHook completes a hook's gate with the same holds, pinned tool lists and
// contracts the proxy applies, read from pins.json and contracts.yaml
// only when an mcp__ call needs them (a Bash call pays nothing).
func ForHook(g *Gate) *Gate {
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
	view Contracts
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

// InspectToolset is the first-sight judgement of a toolset: any tool
// whose definition reads as poisoned (scan's indicators at high risk)
// holds it.
func InspectToolset(ts *pins.Toolset) (bool, string) {
	var why []string
	for _, t := range ts.Tools {
		if bad, reason := scan.Poisoned(scan.Tool(t.Canon)); bad {
			why = append(why, reason)
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

// Observer records a server's footprint while the policy is in observe
// mode, for `airlock contracts promote`.
func Observer(home, server string, stderr io.Writer) func(tool string, f *policy.Facts) {
	var warned bool
	return func(tool string, f *policy.Facts) {
		if err := contracts.Observe(home, server, tool, f, time.Now()); err != nil && !warned {
			warned = true
			fmt.Fprintf(stderr, "airlock-mcp: could not record the footprint of %q: %v\n", server, err)
		}
	}
}
