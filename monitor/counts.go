package monitor

import "github.com/agentairlock/airlock/audit"

// Kind is what a record counts as on the board.
type Kind int

// Kinds. Every record that is not a decision or a hold is KindOther: it is
// listed, but not counted.
const (
	kindOther Kind = iota
	kindAllow      // a decision that let the call run
	kindAsk        // a decision that went to a person (or to ask_fallback)
	kindBlock      // a decision that refused the call
	kindHold       // an MCP server's toolset held at admission (mcp_admit block)
)

// kindOf classifies r. A decision counts by what happened (Effective), except
// that one with Asked set counts as an ask whatever the answer was: the
// board shows how often a person is interrupted, and the row shows the
// answer. A hold is an mcp_admit record whose decision is block.
func kindOf(r audit.Record) Kind {
	switch r.Event {
	case "mcp_admit":
		if r.Decision == "block" {
			return kindHold
		}
	case "decision":
		if r.Asked != "" {
			return kindAsk
		}
		switch effective(r) {
		case "allow":
			return kindAllow
		case "ask":
			return kindAsk
		case "block":
			return kindBlock
		}
	}
	return kindOther
}

// effective is what happened to a call: Effective, or the policy's decision
// for a record written before Effective existed.
func effective(r audit.Record) string {
	if r.Effective != "" {
		return r.Effective
	}
	return r.Decision
}

// stopped reports a record whose call did not run: a block, an ask that
// ended in block, or a hold.
func stopped(r audit.Record) bool {
	k := kindOf(r)
	return k == kindBlock || k == kindHold || (k == kindAsk && effective(r) == "block")
}

// counts are the decisions seen, by Kind. Observed counts the allows (and
// asks answered allow) that ran only because of observe mode.
type counts struct {
	Allow, Ask, Block, Hold int
	Observed                int
}

// Add counts r.
func (c *counts) Add(r audit.Record) {
	if observed(r) {
		c.Observed++
	}
	switch kindOf(r) {
	case kindAllow:
		c.Allow++
	case kindAsk:
		c.Ask++
	case kindBlock:
		c.Block++
	case kindHold:
		c.Hold++
	}
}

// Plus returns c and d added up.
func (c counts) Plus(d counts) counts {
	return counts{Allow: c.Allow + d.Allow, Ask: c.Ask + d.Ask, Block: c.Block + d.Block, Hold: c.Hold + d.Hold, Observed: c.Observed + d.Observed}
}
