// Package policy owns the policy file and the decision it makes about one
// tool call: the schema, the load order, strict validation, the
// tighten-only repo overlay, the variables, the classification of a call's
// arguments into facts, and the matching of rules against those facts.
//
// policy decides; it never records (that is audit) and never talks to an
// agent (that is hook and mcpproxy).
package policy

import (
	"fmt"
	"strings"
)

// Action is what a decision does with a call. Its order is strictness:
// allow < ask < block.
type Action int

const (
	Allow Action = iota
	Ask
	Block
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Block:
		return "block"
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// parseAction reads allow, ask or block.
func parseAction(s string) (Action, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "block", "deny":
		return Block, nil
	}
	return Allow, fmt.Errorf("%q is not an action: write allow, ask or block", s)
}

// stricter returns the stricter of two actions.
func stricter(a, b Action) Action {
	if b > a {
		return b
	}
	return a
}

// Mode is the policy's posture. Its order is strictness too.
type Mode int

const (
	Observe Mode = iota // nothing refused, everything logged
	Guard               // written rules stand; an unmatched call is allowed
	Enforce             // everything as written
)

func (m Mode) String() string {
	switch m {
	case Observe:
		return "observe"
	case Guard:
		return "guard"
	case Enforce:
		return "enforce"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// parseMode reads observe, guard or enforce.
func parseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "observe":
		return Observe, nil
	case "guard":
		return Guard, nil
	case "enforce":
		return Enforce, nil
	}
	return Observe, fmt.Errorf("%q is not a mode: write observe, guard or enforce", s)
}

// Severity grades an indicator hit for escalation.
type Severity int

const (
	sevNone Severity = iota
	sevLow
	sevMed
	SevHigh
)

func (s Severity) String() string {
	switch s {
	case sevLow:
		return "low"
	case sevMed:
		return "med"
	case SevHigh:
		return "high"
	}
	return "none"
}

func parseSeverity(s string) (Severity, bool) {
	switch strings.ToLower(s) {
	case "low":
		return sevLow, true
	case "med", "medium":
		return sevMed, true
	case "high":
		return SevHigh, true
	}
	return sevNone, false
}

// Source says which stage of the pipeline produced a decision.
type Source string

const (
	FromForbid     Source = "forbid"
	fromGrant      Source = "grant"
	fromRule       Source = "rule"
	FromDefault    Source = "default"
	FromEscalation Source = "escalation"
	FromOverlay    Source = "overlay"
	FromManaged    Source = "managed" // the organisation's layer (managed.go)
	FromBudget     Source = "budget"
	FromError      Source = "error"
	FromHold       Source = "hold"     // the server's toolset is held (pins)
	FromSchema     Source = "schema"   // the arguments do not fit the pinned inputSchema
	FromContract   Source = "contract" // the server's contract does not cover the call
	FromTaint      Source = "taint"    // a privileged action of a tainted session
	FromLimit      Source = "limit"    // a call budget or the loop detector (limits.go)
)

// Decision is the verdict on one call, with enough to explain it.
type Decision struct {
	Action Action // what the policy says, before the mode
	Source Source
	Rule   string // rule, forbid or grant id
	Reason string
	Target string // the concrete path, host or command that matched
	Arg    string // the argument the target sat in
	Hidden bool   // the target sat in a secondary argument
	// Via says where the target came from and what the call does with
	// it: "read by cat in argument command", "named in argument prompt,
	// read by nobody yet …". "" when nothing more is known than Arg.
	Via string
}

// Explain renders the reason with its target for a person or a model.
func (d Decision) Explain() string {
	var b strings.Builder
	b.WriteString(d.Reason)
	if d.Target != "" {
		b.WriteString(" (")
		b.WriteString(d.Target)
		b.WriteString(")")
	}
	switch {
	case d.Via != "":
		b.WriteString(" — ")
		b.WriteString(d.Via)
	case d.Hidden && d.Arg != "":
		b.WriteString(" — hidden in argument ")
		b.WriteString(d.Arg)
	}
	if d.Rule != "" {
		b.WriteString(" [")
		b.WriteString(d.Rule)
		b.WriteString("]")
	}
	return b.String()
}
