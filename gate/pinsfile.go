package gate

import (
	"fmt"
	"sync"

	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// PinsFile answers for toolsets from pins.json, for a front end that holds
// no live toolset (the hook): holds and tools outside the pinned list, and
// the pinned input schema the classifier reads argument roles from.
// Argument schemas are the proxy's to check: the validator's start-up cost
// does not belong in a process that lives for one call, and Claude Code
// validates its own MCP calls against the schema it listed.
type PinsFile struct {
	Store *pins.Store

	// pins.json is read once for the call's server: the schema lookup
	// before the call is classified and the check after the forbids see
	// one file
	once   sync.Once
	server string
	entry  *pins.Entry
	err    error
}

func (pf *PinsFile) find(server string) (*pins.Entry, error) {
	pf.once.Do(func() {
		pf.server = server
		pf.entry, pf.err = pf.Store.Find(server)
	})
	if server != pf.server {
		// a hook process decides one call; another server is read afresh
		return pf.Store.Find(server)
	}
	return pf.entry, pf.err
}

// InputSchema is the pinned input schema of the tool, or nil: a server
// never pinned, held, or a tool outside its pinned list has none to give
// (Check refuses those calls anyway).
func (pf *PinsFile) InputSchema(server, tool string) []byte {
	e, err := pf.find(server)
	if err != nil || e == nil || e.State == pins.Held || e.Pinned == nil {
		return nil
	}
	t, ok := pinnedTool(e.Pinned, tool)
	if !ok {
		return nil
	}
	if s := gjson.GetBytes(t.Canon, "inputSchema"); s.IsObject() {
		return []byte(s.Raw)
	}
	return nil
}

// pinnedTool finds a tool by its name as pinned or as the agent spells it
// (pins.NormName).
func pinnedTool(ts *pins.Toolset, tool string) (*pins.Tool, bool) {
	if t, ok := ts.Tool(tool); ok {
		return t, true
	}
	for _, n := range ts.Names() {
		if pins.NormName(n) == tool {
			return ts.Tool(n)
		}
	}
	return nil, false
}

// Check refuses a call to a held server or to a tool its pinned toolset
// does not list.
func (pf *PinsFile) Check(server, tool string, args []byte, strict bool) (policy.Decision, bool) {
	block := func(src policy.Source, rule, reason string) (policy.Decision, bool) {
		return policy.Decision{Action: policy.Block, Source: src, Rule: rule, Reason: reason, Target: tool}, true
	}
	e, err := pf.find(server)
	if err != nil {
		return block(policy.FromHold, "pins:unreadable", err.Error())
	}
	if e == nil {
		return policy.Decision{}, false // never seen by a proxy: nothing pinned to hold it to
	}
	if e.State == pins.Held || e.Pinned == nil {
		return block(policy.FromHold, "pins:held", fmt.Sprintf("server %q is held: %s", e.Server, e.Reason))
	}
	if _, ok := pinnedTool(e.Pinned, tool); ok {
		return policy.Decision{}, false
	}
	return block(policy.FromSchema, "schema", fmt.Sprintf("tool %q is not in the pinned toolset of server %q", tool, e.Server))
}
