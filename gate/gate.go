// Package gate is the one decision pipeline both front ends call (the
// Claude Code hook and the MCP proxy): classification, policy.Decide (the
// one stage order) with the proxy's holds and contracts in its slots, the
// ask channel, then one audit record. The hold and contract stages apply
// to MCP calls only.
//
// The gate fails closed: an error or a panic inside it refuses the call.
package gate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentairlock/airlock/ask/question"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan/secret"
	"github.com/agentairlock/airlock/taint"
)

// Recorder appends audit records; *audit.Log is one.
type Recorder interface {
	Append(audit.Record) (audit.Record, error)
}

// Call is one tool call to decide.
type Call struct {
	Source   string // hook | mcp | cli
	Tool     string
	Input    []byte // the tool's arguments, a JSON object
	Cwd      string
	Session  string
	Attended bool // a person can answer an ask

	// Agent is the agent whose hook sent the call ("" for Claude Code and
	// the proxy), AgentTool its own name for the tool when that is not
	// Tool: both are recorded, the policy sees Tool only.
	Agent     string
	AgentTool string

	// MCP calls: the server's name and the tool's own name. For a hook
	// call named mcp__SERVER__TOOL they are filled from the name (both
	// normalised as Claude Code writes them).
	Server     string
	ServerTool string
}

// Result is the decision on a call.
type Result struct {
	Decision  policy.Decision
	Effective policy.Action // after the mode
	Mode      policy.Mode
	Facts     *policy.Facts
	Note      string // what else the record should say (an unattended ask, a report-only contract)
	Asked     string // how an ask was answered (audit.Asked*); "" when nobody was asked
	AuditErr  error  // the record could not be written (or was written but not checkpointed: audit.ErrCheckpoint); an unwritten record refuses the call unless AIRLOCK_FAIL_OPEN=1
}

// Gate holds a loaded policy and where decisions are recorded.
type Gate struct {
	Policy *policy.Policy
	Log    Recorder // nil: decisions are not recorded (airlock check)
	Env    home.Env

	// MCP stages; nil skips them.
	Toolsets  toolsets  // holds, unknown tools, argument schemas
	Contracts Contracts // per-server contracts

	// Notify tells the person at the desk about a block (rate-limited,
	// fire and forget). nil: no notifications.
	Notify *notify.Notifier

	// Ask reaches a person for an ask from a caller that has no prompt of
	// its own (Call.Attended false). nil: ask_fallback decides at once.
	Ask asker

	// Taints says what a call's session has seen (*taint.Store is one);
	// a tainted session's privileged actions escalate (policy.Taint).
	// nil: no taint stage.
	Taints Taints

	// Calls counts the calls of a session and of an MCP server for the
	// policy's limits (*calls.Store for the hook, *calls.Memory for the
	// proxy). nil: no limits stage.
	Calls Counter
}

// Counter records a call under a key ("session:ID", "server:NAME") and
// returns what it saw of the key's calls within each window, back from
// this one. An error wrapping calls.ErrReset comes with the counts of the
// started-over key; any other error with none.
type Counter interface {
	Tally(key string, c calls.Call, windows []calls.Window) (calls.Tally, error)
}

// Taints reads a session's taint. Of returns nil for a session that has
// none; an error is a state that cannot be trusted, and the gate takes the
// session for tainted by it.
type Taints interface {
	Of(session string) (*taint.Entry, error)
}

// sessionTaint is the taint stage's input for c's session, nil when it is
// not tainted at now.
func (g *Gate) sessionTaint(c Call, now time.Time) *policy.Taint {
	if g.Taints == nil || c.Session == "" {
		return nil
	}
	e, err := g.Taints.Of(c.Session)
	switch {
	case err != nil:
		return &policy.Taint{Provenance: "a taint state that could not be read (" + err.Error() + "; airlock taint clear " + c.Session + " starts it over)"}
	case !e.Tainted(now):
		return nil
	}
	return &policy.Taint{Provenance: e.Provenance(), Known: e.KnownHost}
}

// CheckAskYes refuses yes (--yes, approve asks automatically) under a
// policy whose ask_fallback is block: such a policy has said an ask
// nobody answers is refused, and an automatic approval is exactly that.
// A caller with no prompt of its own calls it before opening the ask
// channel (ask.New with Auto: yes); gate does not open the channel itself,
// so that the hook, which links gate, does not link the channel's socket
// code.
func CheckAskYes(p *policy.Policy, yes bool) error {
	if yes && p.AskFallback == policy.Block && p.Mode != policy.Observe {
		return fmt.Errorf("--yes approves asks without a person, and this policy's ask_fallback is block (%s): drop --yes, or answer asks with airlock askd", profileWord(p))
	}
	return nil
}

func profileWord(p *policy.Policy) string {
	if p.Profile != "" {
		return "profile " + p.Profile
	}
	return "set in the policy"
}

// asker puts a call to a person; *ask.Channel is one.
type asker interface {
	Ask(ctx context.Context, r question.Request) question.Outcome
}

// Decide runs the pipeline on one call and records the result.
func (g *Gate) Decide(c Call) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{
				Decision:  policy.Decision{Action: policy.Block, Source: policy.FromError, Rule: "internal-error", Reason: fmt.Sprintf("Airlock failed while deciding (%v); refusing the call", r)},
				Effective: policy.Block,
			}
			res.AuditErr = g.record(c, res)
		}
	}()
	res = g.decide(c)
	// The record is written before the caller forwards or answers the
	// call; one that cannot be written refuses it (refuseUnrecorded).
	res.AuditErr = g.record(c, res)
	g.refuseUnrecorded(&res)
	if res.Effective == policy.Block && g.Notify != nil {
		g.Notify.Blocked(blockNote(c, res.Decision))
	}
	return res
}

// blockNote is the notification of a block: what, why, and the one
// command that fixes it.
func blockNote(c Call, d policy.Decision) notify.Block {
	fix := "airlock allow last"
	switch {
	case d.Source == policy.FromForbid || d.Source == policy.FromBudget || d.Source == policy.FromError:
		// no grant lifts these; the report shows what happened
		fix = "none by a grant (built-in); see airlock report"
	case d.Source == policy.FromHold:
		fix = "airlock pins diff " + c.Server
	case d.Source == policy.FromTaint:
		// the session saw injected content: a person ends the taint
		fix = "airlock taint clear " + c.Session + " (after reading airlock taint)"
	case d.Source == policy.FromLimit:
		// counted after the grants: the window passing ends it
		fix = "none by a grant (a call limit): it ends as the window passes; see airlock log"
	case d.Source == policy.FromSchema || d.Source == policy.FromContract || d.Source == policy.FromEscalation:
		// decided after grants (escalation) or by the server's own
		// terms: a grant would not change it
		fix = "airlock report"
	case d.Source == policy.FromOverlay:
		fix = "the project's .airlock policy refuses it; a grant cannot lift it"
	case d.Source == policy.FromManaged:
		fix = "your organisation's managed policy refuses it; a grant cannot lift it (ask your administrator)"
	}
	src := c.Source
	if c.Server != "" {
		src += ":" + c.Server
	}
	return notify.Block{Source: src, Tool: c.Tool, Target: d.Target, Rule: d.Rule, Reason: d.Reason, Fix: fix}
}

func (g *Gate) decide(c Call) Result {
	p := g.Policy
	now := time.Now
	if g.Env.Now != nil {
		now = g.Env.Now
	}
	server, tool := mcpTarget(c)
	env := policy.CallEnv{Cwd: c.Cwd, Home: g.Env.Home, User: g.Env.User, Budget: policy.BudgetFromEnv(getenv(g.Env))}
	if is, ok := g.Toolsets.(inputSchemas); ok && tool != "" {
		env.InputSchema = is.InputSchema(server, tool)
	}
	f := policy.Classify(c.Tool, c.Input, env)
	res := Result{Mode: p.Mode, Facts: f}
	var st policy.Stages
	if tool != "" {
		if g.Toolsets != nil {
			st.Hold = func(*policy.Facts) (policy.Decision, bool) {
				return g.Toolsets.Check(server, tool, c.Input, strictSchemas(p))
			}
		}
		if g.Contracts != nil {
			st.Contract = func(f *policy.Facts, d policy.Decision) (policy.Decision, string) {
				if absolute(d.Source) {
					return d, ""
				}
				cd, enforced, hit := g.Contracts.Check(server, tool, f)
				switch {
				case !hit:
				case !enforced:
					return d, "report-only contract: " + cd.Explain()
				case cd.Action > d.Action:
					return cd, ""
				}
				return d, ""
			}
		}
	}
	at := now()
	st.Taint = g.sessionTaint(c, at)
	st.Limits = g.recentCalls(c, server, at)
	v := p.Decide(f, at, st)
	res.Decision, res.Effective, res.Note = v.Decision, v.Effective, v.Note
	if res.Effective == policy.Ask && !c.Attended {
		// every stage that can refuse has run: only an ask reaches a
		// person, so no answer (remembered or not) can lift a forbid or
		// a hold; a call the budget refused is never an ask (Decide)
		g.askPerson(c, &res)
	}
	return res
}

// Refusal is the decision to show the caller of a refused call: when the
// refusal came from the ask channel, its reason says so first.
func (r Result) Refusal() policy.Decision {
	d := r.Decision
	why := ""
	switch r.Asked {
	case audit.AskedHuman:
		why = "a person refused it when asked"
	case audit.AskedRemembered:
		why = "a person refused the same call a moment ago"
	case audit.AskedTimeout:
		why = "nobody answered in time, so it is refused"
	case audit.AskedUnattended:
		why = "nobody could be asked, so it is refused"
	}
	if why != "" {
		d.Reason = why + "; the policy asks because: " + d.Reason
	}
	return d
}

// askPerson settles an ask through the ask channel, or ask_fallback when
// no person answers.
func (g *Gate) askPerson(c Call, res *Result) {
	p := g.Policy
	out := question.Outcome{Answer: question.Fallback, Asked: audit.AskedUnattended, Detail: "no ask channel"}
	if g.Ask != nil {
		d := res.Decision
		out = g.Ask.Ask(context.Background(), question.Request{
			// masked as the log masks them: a desktop dialog's text is
			// its argv, which every local user can read
			Source: c.Source, Tool: secret.Mask(c.Tool), Server: secret.Mask(c.Server), Target: secret.Mask(d.Target), Rule: d.Rule, Reason: secret.Mask(d.Reason),
			Args: askArgs(c.Input), Fallback: p.AskFallback.String(),
			// the raw server tool too: normalised names of two tools
			// can be the same
			Shape: question.Shape(c.Source, c.Server, c.Tool+"\x00"+c.ServerTool, c.Input),
		})
	}
	res.Asked = out.Asked
	switch out.Answer {
	case question.Allow:
		res.Effective = policy.Allow
	case question.Deny:
		res.Effective = policy.Block
	default:
		res.Effective = p.AskFallback
	}
	note := out.Detail
	if out.Answer == question.Fallback {
		note = joinNote(note, "no person could answer the ask; ask_fallback made it "+res.Effective.String())
	}
	res.Note = joinNote(res.Note, note)
}

// askArgs is the start of the arguments, enough for a person to see what
// the call does, secrets masked (scan/secret) before it is cut; the prompt
// escapes and cuts it.
func askArgs(in []byte) string {
	const max = 4096
	s := secret.Mask(string(in))
	if len(s) > max {
		return s[:max]
	}
	return s
}

func (g *Gate) record(c Call, res Result) error {
	if g.Log == nil {
		return nil
	}
	d := res.Decision
	_, err := g.Log.Append(audit.Record{
		Event:      "decision",
		Source:     c.Source,
		Session:    c.Session,
		Tool:       c.Tool,
		Agent:      c.Agent,
		AgentTool:  c.AgentTool,
		Decision:   d.Action.String(),
		Effective:  res.Effective.String(),
		Rule:       d.Rule,
		Reason:     d.Reason,
		Target:     d.Target,
		Detail:     joinNote(joinNote(withPartNote(detail(d), c.Tool, d, res.Facts), res.Note), payloadNote(res.Facts, c.Input)),
		Mode:       res.Mode.String(),
		Asked:      res.Asked,
		ArgsDigest: audit.ArgsDigest(c.Input),
	})
	if err != nil {
		return fmt.Errorf("record the decision: %w", err)
	}
	return nil
}

// withPartNote adds to a record's detail, when a shell call's decision
// names a part of its command rather than the whole (one simple command
// of a line, a text cut short or with a secret masked) and the detail does
// not already say which argument the target came from, that it is a part:
// the record then keeps too little to rebuild the call, and policy replay
// must not re-decide the part as if it were the call (policy.ReplayInput
// reads the note).
func withPartNote(detail, tool string, d policy.Decision, f *policy.Facts) string {
	if f == nil || d.Target == "" || d.Target == f.Primary || !policy.IsShellTool(tool) || strings.Contains(detail, " in argument ") {
		return detail
	}
	arg := f.PrimaryArg
	if arg == "" {
		arg = "command"
	}
	return joinNote(detail, policy.PartOfCallNote+arg)
}

func detail(d policy.Decision) string {
	if d.Via != "" {
		return d.Via
	}
	if d.Hidden && d.Arg != "" {
		return "hidden in argument " + d.Arg
	}
	return ""
}
