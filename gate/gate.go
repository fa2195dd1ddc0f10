// Package gate is the one decision pipeline both front ends call (the
// Claude Code hook and the MCP proxy): budget → forbid → hold → grants →
// rules → default → escalation → contract → overlay → mode, then one audit
// record. The hold and contract stages apply to MCP calls only.
//
// The gate fails closed: an error or a panic inside it refuses the call.
package gate

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// Env is the user's environment as the gate sees it.
type Env struct {
	Home        string
	User        string
	Tmp         string
	AirlockHome string
	Getenv      func(string) string
	Now         func() time.Time
}

// EnvFromOS reads the process environment. It fails when no home
// directory can be found: without one neither the policy nor the secret
// paths it protects can be placed.
func EnvFromOS() (Env, error) {
	e := Env{Getenv: os.Getenv, Now: time.Now}
	e.Home = os.Getenv("HOME")
	if e.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return e, fmt.Errorf("find home directory: %w", err)
		}
		e.Home = h
	}
	e.User = os.Getenv("USER")
	if e.User == "" {
		e.User = os.Getenv("USERNAME")
	}
	if e.User == "" {
		if u, err := user.Current(); err == nil {
			e.User = u.Username
		}
	}
	e.Tmp = os.TempDir()
	e.AirlockHome = os.Getenv("AIRLOCK_HOME")
	if e.AirlockHome == "" {
		e.AirlockHome = filepath.Join(e.Home, ".airlock")
	}
	return e, nil
}

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
	AuditErr  error  // the record could not be written; the decision still stands
}

// Gate holds a loaded policy and where decisions are recorded.
type Gate struct {
	Policy *policy.Policy
	Log    Recorder // nil: decisions are not recorded (airlock check)
	Env    Env

	// MCP stages; nil skips them.
	Toolsets  Toolsets  // holds, unknown tools, argument schemas
	Contracts Contracts // per-server contracts
}

// Load loads the policy for calls made in cwd.
func Load(env Env, cwd string) (*policy.Policy, error) {
	return policy.Load(policy.Options{
		Cwd: cwd, Home: env.Home, User: env.User, Tmp: env.Tmp,
		AirlockHome: env.AirlockHome, Getenv: env.Getenv,
	})
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
	res.AuditErr = g.record(c, res)
	return res
}

func (g *Gate) decide(c Call) Result {
	p := g.Policy
	getenv := g.Env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	now := time.Now
	if g.Env.Now != nil {
		now = g.Env.Now
	}
	f := policy.Classify(c.Tool, c.Input, policy.CallEnv{
		Cwd: c.Cwd, Home: g.Env.Home, User: g.Env.User, Budget: policy.BudgetFromEnv(getenv),
	})
	res := Result{Mode: p.Mode, Facts: f}
	d, ok := policy.CheckBudget(f)
	if !ok {
		d, ok = p.CheckForbids(f)
	}
	server, tool := mcpTarget(c)
	if !ok && tool != "" && g.Toolsets != nil {
		d, ok = g.Toolsets.Check(server, tool, c.Input, strictSchemas(p))
	}
	if !ok {
		d, ok = p.CheckGrants(f, now())
	}
	if !ok {
		d, ok = p.CheckRules(f)
	}
	if !ok {
		d = p.DefaultDecision(f)
	}
	if d.Source != policy.FromBudget {
		d = p.EscalateDecision(f, d)
	}
	if tool != "" && g.Contracts != nil && !absolute(d.Source) {
		if cd, enforced, hit := g.Contracts.Check(server, tool, f); hit {
			if !enforced {
				res.Note = "report-only contract: " + cd.Explain()
			} else if cd.Action > d.Action {
				d = cd
			}
		}
	}
	d = p.ApplyOverlay(f, d)
	res.Decision = d
	res.Effective = p.Effective(d, c.Attended)
	if d.Action == policy.Ask && !c.Attended && p.Mode != policy.Observe {
		res.Note = joinNote(res.Note, "no person could answer the ask; ask_fallback made it "+res.Effective.String())
	}
	if d.Source == policy.FromBudget {
		// not read is not clean: no mode turns an unread call into an allow
		// except observe, which refuses nothing by definition
		if p.Mode != policy.Observe {
			res.Effective = policy.Block
		}
	}
	return res
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
		Decision:   d.Action.String(),
		Effective:  res.Effective.String(),
		Rule:       d.Rule,
		Reason:     d.Reason,
		Target:     d.Target,
		Detail:     joinNote(joinNote(detail(d), res.Note), payloadNote(res.Facts, c.Input)),
		Mode:       res.Mode.String(),
		ArgsDigest: audit.ArgsDigest(c.Input),
	})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func detail(d policy.Decision) string {
	if d.Hidden && d.Arg != "" {
		return "hidden in argument " + d.Arg
	}
	return ""
}
