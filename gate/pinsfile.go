package gate

import (
	"fmt"

	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
)

// PinsFile answers for toolsets from pins.json, for a front end that holds
// no live toolset (the hook): holds and tools outside the pinned list.
// Argument schemas are the proxy's to check: the validator's start-up cost
// does not belong in a process that lives for one call, and Claude Code
// validates its own MCP calls against the schema it listed.
type PinsFile struct {
	Store *pins.Store
}

// Check refuses a call to a held server or to a tool its pinned toolset
// does not list.
func (pf PinsFile) Check(server, tool string, args []byte, strict bool) (policy.Decision, bool) {
	block := func(src policy.Source, rule, reason string) (policy.Decision, bool) {
		return policy.Decision{Action: policy.Block, Source: src, Rule: rule, Reason: reason, Target: tool}, true
	}
	e, err := pf.Store.Find(server)
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
