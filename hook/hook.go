// Package hook is one small adapter per agent's hook protocol (Claude
// Code, Codex, Gemini CLI, Cursor, Windsurf, Cline, Copilot; agent_*.go):
// one event on stdin → canonical calls (the tool names and argument shapes
// the policy knows) → the one gate → the agent's own answer, as an exit
// code and what it reads on stdout or stderr. docs/hooks.md has each
// agent's events, answers and timeouts.
//
// An agent that cannot put an ask to a person from its hook (Codex,
// Cursor's preToolUse, Gemini CLI, Windsurf, Cline) has the ask put on
// Airlock's ask channel, as the MCP proxy does (askchan.go), inside the
// agent's hook timeout.
//
// Claude Code, PreToolUse: allow is exit 0 with nothing printed (printing
// permissionDecision "allow" would switch off Claude Code's own prompt);
// block is exit 2 with the reason on stderr; ask is exit 0 with the
// hookSpecificOutput JSON. PostToolUse and PostToolUseFailure (a tool that
// failed) record the outcome and never block; a PostToolUse result that
// carries injection taints its session (taint.go) and is answered with a
// warning to the model (withheld, for an MCP result, under a policy whose
// taint action is block), and an MCP result that carries secrets is
// handed back masked (mask.go).
//
// Claude Code treats every exit code but 2 as "go ahead", so every failure
// here — a policy that will not load, an unusable home, a panic, an event
// that cannot be read — exits 2 (another agent gets its own deny) unless
// the user set AIRLOCK_FAIL_OPEN=1.
package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan/secret"
	"github.com/agentairlock/airlock/taint"
	"github.com/tidwall/gjson"
)

// Exit codes Claude Code understands.
const (
	ExitAllow = 0
	ExitBlock = 2
)

// maxEvent bounds what is read from stdin. The argument budget refuses
// anything past 1,000,000 characters anyway; this only stops a runaway
// writer from exhausting memory before the budget can speak.
const maxEvent = 64 << 20

// Event is the part of a hook event Airlock reads.
type Event struct {
	Name           string // hook_event_name (or the agent's name for the event)
	Tool           string // the first call's canonical tool
	Input          []byte // the first call's arguments, a JSON object
	Session        string
	Cwd            string
	PermissionMode string
	Response       gjson.Result // tool_response (PostToolUse)
	Error          string       // error (PostToolUseFailure)
	Interrupted    bool         // is_interrupt (PostToolUseFailure)

	// Agent is the protocol the event was read in; AgentTool the agent's
	// own name for the tool ("" when it is Tool).
	Agent     Agent
	AgentTool string
	// Calls are the canonical calls of the event, Tool and Input first:
	// more than one when one tool acts on several files (a Codex patch).
	Calls []Call
	// Failed: a post event whose tool failed, in an agent's own terms.
	Failed bool
	// Via is the agent whose hook file ran airlock-hook when it is not
	// Agent (Cursor running the hook wired as Claude Code's).
	Via Agent
	// Dedupe keys a call that two of an agent's hook files gate (Cursor's
	// own and Claude Code's): "" when the agent has only one.
	Dedupe string
}

// ParseEvent reads a hook event. It fails on anything that is not a JSON
// object with a tool_name string and a tool_input object.
func ParseEvent(data []byte) (*Event, error) {
	if !gjson.ValidBytes(data) {
		return nil, errors.New("the event is not valid JSON")
	}
	return parseClaude(gjson.ParseBytes(data))
}

// parseClaude reads Claude Code's event from its parsed JSON.
func parseClaude(root gjson.Result) (*Event, error) {
	if !root.IsObject() {
		return nil, errors.New("the event is not a JSON object")
	}
	ev := &Event{
		Name:           root.Get("hook_event_name").String(),
		Session:        root.Get("session_id").String(),
		Cwd:            root.Get("cwd").String(),
		PermissionMode: root.Get("permission_mode").String(),
		Response:       root.Get("tool_response"),
		Error:          root.Get("error").String(),
		Interrupted:    root.Get("is_interrupt").Bool(),
	}
	tn := root.Get("tool_name")
	if tn.Type != gjson.String || tn.Str == "" {
		return nil, errors.New("the event has no tool_name")
	}
	ev.Tool = tn.Str
	ti := root.Get("tool_input")
	if !ti.IsObject() {
		return nil, errors.New("the event's tool_input is not a JSON object")
	}
	ev.Input = []byte(ti.Raw)
	ev.Agent = Claude
	ev.Calls = []Call{{Tool: ev.Tool, Input: ev.Input}}
	return ev, nil
}

// CheckInput says why raw cannot be a tool_input, or nil: it must be
// valid JSON and a JSON object, as ParseEvent requires of an event's
// tool_input. airlock check --input answers with it, so that the command
// refuses what the hook refuses.
func CheckInput(raw []byte) error {
	if !gjson.ValidBytes(raw) {
		return errors.New("is not valid JSON")
	}
	if !gjson.ParseBytes(raw).IsObject() {
		return errors.New("is not a JSON object")
	}
	return nil
}

// Options wire the hook to its process.
type Options struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Post   bool // --post: this is a PostToolUse hook
	// Agent is the protocol spoken (--agent); "" is Claude Code's.
	Agent  Agent
	Getenv func(string) string
	// EnvFunc finds the user's environment (home.FromOS in the binary).
	EnvFunc func() (home.Env, error)

	// askBy is when an ask on Airlock's channel must have ended (set by
	// RunWithin from the deadline; zero: the deadline from now).
	askBy time.Time
	// refuseAs is the agent whose format a refusal by the Claude Code
	// hook takes when the event is that agent's (shapeOf), "" for Claude
	// Code's.
	refuseAs Agent
}

// Run handles one event and returns the process exit code.
func Run(o Options) (code int) {
	failOpen := home.FailOpen(o.Getenv) // never on a managed machine
	post := o.Post
	ad := adapterFor(o.Agent)
	defer func() {
		if r := recover(); r != nil {
			code = fail(o, failOpen || post, fmt.Errorf("internal error: %v", r))
		}
	}()
	data, err := io.ReadAll(io.LimitReader(o.Stdin, maxEvent+1))
	if err != nil {
		return fail(o, failOpen || post, fmt.Errorf("read the hook event: %w", err))
	}
	if len(data) > maxEvent {
		return fail(o, failOpen || post, fmt.Errorf("the hook event is larger than %d MB: too large to inspect", maxEvent>>20))
	}
	// the event's name is read before its validity (gjson reads a
	// truncated object as far as it goes): a post event that cannot be
	// read never blocks
	root := gjson.ParseBytes(data)
	if ad.post(root) {
		post = true
	}
	if o.Agent == Claude || o.Agent == "" {
		// another agent's event on the hook wired as Claude Code's (its
		// command line copied without --agent): refused, in a format
		// that agent reads
		o.refuseAs = shapeOf(root)
	}
	if !gjson.ValidBytes(data) {
		return fail(o, failOpen || post, errors.New("unreadable hook event: the event is not valid JSON"))
	}
	ev, err := ad.parse(root)
	if err != nil {
		return fail(o, failOpen || post, fmt.Errorf("unreadable hook event: %w", err))
	}
	if !filepath.IsAbs(ev.Cwd) {
		// Claude Code always sends cwd; without it the hook's own directory
		// (the agent's) is the best answer, never a relative guess
		wd, err := os.Getwd()
		if err != nil {
			return fail(o, failOpen || post, fmt.Errorf("no cwd in the event and none of our own: %w", err))
		}
		if ev.Cwd != "" {
			wd = filepath.Join(wd, ev.Cwd)
		}
		ev.Cwd = wd
	}
	env, err := o.EnvFunc()
	if err != nil {
		return fail(o, failOpen || post, err)
	}
	// the policy first: the managed layer says how the log is written
	// (signed, anchored) before its first record
	p, perr := policy.LoadEnv(env, ev.Cwd)
	log, err := openLog(env, p)
	if err != nil {
		return fail(o, failOpen || post, err)
	}
	if post {
		return recordOutcome(o, ad, log, env, ev, p, perr)
	}
	if perr != nil {
		_, _ = log.Append(audit.Record{Event: "hook_error", Source: "hook", Session: ev.Session, Tool: ev.Tool,
			Agent: agentField(ev), AgentTool: ev.AgentTool,
			Decision: "block", Effective: effectiveOnFailure(failOpen), Reason: oneLine(perr.Error())})
		return fail(o, failOpen, fmt.Errorf("the policy did not load: %w", perr))
	}
	g := WithMCPStages(&gate.Gate{Policy: p, Log: log, Env: env,
		Notify: notify.New(notify.Options{AirlockHome: env.AirlockHome, Getenv: env.Getenv}),
		Taints: taint.Open(env.AirlockHome, env.Now), Calls: calls.Open(env.AirlockHome, env.Now)})
	attended := ad.asks(ev)
	if !attended {
		g.Ask = &channelAsker{home: env.AirlockHome, getenv: env.Getenv, by: askDeadline(o)}
	}
	var dup *duplicate
	if ev.Dedupe != "" {
		// the same call gated by another of the agent's hook files: one
		// record, one ask
		var first bool
		if dup, first = claimCall(env.AirlockHome, ev.Dedupe); !first {
			g.Log, g.Notify = nil, nil
			g.Calls = nil // counted once, by the first
			g.Ask = dup.asker(askDeadline(o))
		}
	}
	if g.Log != nil {
		if err := gate.RecordConfig(log, env.AirlockHome, ev.Session, gate.ConfigOf("hook", p, env)); err != nil {
			fmt.Fprintf(o.Stderr, "airlock: warning: %v\n", err)
		}
	}
	v := verdict{Action: policy.Allow, Tool: displayTool(ev)}
	for _, c := range ev.Calls {
		res := g.Decide(gate.Call{Source: "hook", Tool: c.Tool, Input: c.Input, Cwd: ev.Cwd, Session: ev.Session,
			Attended: attended, Agent: agentField(ev), AgentTool: ev.AgentTool})
		warnUnrecorded(o, res, env)
		switch res.Effective {
		case policy.Block:
			d := res.Refusal()
			v = verdict{Action: policy.Block, Tool: v.Tool, Reason: textsafe.Escape(secret.Mask(d.Explain()))}
		case policy.Ask:
			if v.Action == policy.Allow {
				v = verdict{Action: policy.Ask, Tool: v.Tool, Reason: textsafe.Escape(secret.Mask(res.Decision.Explain()))}
			}
		}
		if v.Action == policy.Block {
			break
		}
	}
	if v.Action == policy.Ask && !attended {
		// the ask channel settles every ask; one still open here would be
		// an allow to an agent that cannot ask
		v.Action = policy.Block
	}
	if dup != nil && dup.first {
		dup.settle(v.Action)
	}
	return ad.answer(answerTo{o.Stdout, o.Stderr}, ev, v)
}

// warnUnrecorded tells the person what happened to the record: the gate
// has applied the rule (a decision it could not record is a refusal
// unless AIRLOCK_FAIL_OPEN=1), the answer follows res.Effective.
func warnUnrecorded(o Options, res gate.Result, env home.Env) {
	switch {
	case res.AuditErr == nil:
	case res.FailedOpen():
		fmt.Fprintf(o.Stderr, "airlock: warning: let through unrecorded because %s=1: %s\n", gate.FailOpenEnv, oneLine(gate.Unrecorded(res.AuditErr, env.AirlockHome)))
	case errors.Is(res.AuditErr, audit.ErrCheckpoint) || errors.Is(res.AuditErr, audit.ErrAnchor):
		fmt.Fprintf(o.Stderr, "airlock: warning: the decision is recorded but not checkpointed: %s\n", oneLine(res.AuditErr.Error()))
	default:
		fmt.Fprintf(o.Stderr, "airlock: warning: the decision was not recorded: %s\n", oneLine(gate.Unrecorded(res.AuditErr, env.AirlockHome)))
	}
}

// agentField is the record's agent: "" for Claude Code's own events, so
// that its records read as they always have.
func agentField(ev *Event) string {
	if ev.Agent == Claude || ev.Agent == "" {
		return ""
	}
	if ev.Via != "" && ev.Via != ev.Agent {
		return string(ev.Agent) + "/" + string(ev.Via)
	}
	return string(ev.Agent)
}

// displayTool is the name a refusal names: the agent's own.
func displayTool(ev *Event) string {
	if ev.AgentTool != "" {
		return ev.AgentTool
	}
	return ev.Tool
}

// answerClaude is Claude Code's answer: allow is exit 0 with nothing
// printed, block exit 2 with the reason on stderr, ask the
// hookSpecificOutput JSON.
func answerClaude(w answerTo, _ *Event, v verdict) int {
	switch v.Action {
	case policy.Block:
		fmt.Fprintf(w.Stderr, "Airlock blocked this call: %s: %s\n", textsafe.Escape(v.Tool), v.Reason)
		return ExitBlock
	case policy.Ask:
		writeJSON(w.Stdout, map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":            "PreToolUse",
			"permissionDecision":       "ask",
			"permissionDecisionReason": "Airlock: " + v.Reason,
		}})
	}
	return ExitAllow
}

// writeJSON writes one JSON line; its values are strings and maps of
// strings, which always encode.
func writeJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "%s\n", b)
}

// openLog opens the audit log as p's managed layer requires (p nil: a
// policy that did not load, as the environment says).
func openLog(env home.Env, p *policy.Policy) (*audit.Log, error) {
	log, err := gate.OpenLog(env.AirlockHome, p, env.Getenv)
	if err != nil && !errors.Is(err, gate.ErrAuditRequirement) {
		err = fmt.Errorf("AIRLOCK_HOME %s is unusable: %w", env.AirlockHome, err)
	}
	return log, err
}

func recordOutcome(o Options, ad *adapter, log *audit.Log, env home.Env, ev *Event, p *policy.Policy, err error) int {
	r := audit.Record{Event: "outcome", Source: "hook", Session: ev.Session, Tool: ev.Tool,
		Agent: agentField(ev), AgentTool: ev.AgentTool,
		Effective: "ran", ArgsDigest: audit.ArgsDigest(ev.Input), Reason: outcomeReason(ev)}
	// A secret-class read that ran: record digests of what it returned
	// (never the content), so a later outbound call carrying it can be
	// matched (airlock breach).
	var f *policy.Facts
	if err == nil {
		f = policy.Classify(ev.Tool, ev.Input, policy.CallEnv{Cwd: ev.Cwd, Home: env.Home, User: env.User})
		if rule := gate.SecretRule(p, f); rule != "" {
			r.Rule = rule
			if ds := gate.ContentDigests(ev.Response); len(ds) > 0 {
				r.Detail = "secret_digest=" + strings.Join(ds, ",")
			}
		}
	}
	if _, err := log.Append(r); err != nil {
		fmt.Fprintf(o.Stderr, "airlock: warning: the outcome was not recorded: %v\n", err)
	}
	injection := taintFromResult(o, log, env, p, f, ev)
	if ev.Agent != Claude && ev.Agent != "" {
		// the other agents' post-tool answers replace nothing (Gemini CLI
		// can only block, Codex rejects a replacement): the result is
		// recorded and its session tainted, not masked (docs/hooks.md)
		if ad.answerPost != nil {
			ad.answerPost(answerTo{o.Stdout, o.Stderr})
		}
		return ExitAllow
	}
	block := p != nil && p.TaintAction == policy.Block
	var replace replacement
	raw := maskResult(o, log, ev)
	if raw != "" {
		replace = replaceWith(ev, raw)
	}
	switch {
	case injection == "" || !replaceable(ev):
	case mcpTool(ev.Tool):
		if block {
			// a policy that refuses a tainted session's privileged actions
			// does not show the model the instructions either
			replace = replacement{mcpOutputField, withheld(ev.Tool, injection)}
		}
	default:
		// a native tool's result keeps its shape: the strings that carry
		// the instructions are neutralised (withheld under block)
		if raw == "" {
			raw = ev.Response.Raw
		}
		if out, ok := neutraliseNative(raw, ev.Tool, injection, block); ok {
			recordNeutralised(o, log, ev, injection, block)
			replace = replaceWith(ev, out)
		}
	}
	postAnswer(o, textsafe.Escape(secret.Mask(injection)), block, replace)
	return ExitAllow
}

// recordNeutralised records that a native tool's result reaches the model
// neutralised (or withheld): a decision, written before the answer.
func recordNeutralised(o Options, log *audit.Log, ev *Event, injection string, withhold bool) {
	r := audit.Record{Event: "result", Source: "hook", Session: ev.Session, Tool: ev.Tool, Decision: "allow", Effective: "neutralised",
		Reason: "the result carried instructions to the model (" + secret.Mask(injection) + "): delivered with them removed"}
	if withhold {
		r.Decision, r.Effective, r.Reason = "block", "withheld", "the result carried instructions to the model ("+secret.Mask(injection)+"): withheld"
	}
	if _, err := log.Append(r); err != nil {
		warnf(o, "the neutralised result was not recorded: %v", err)
	}
}

// fail answers an internal failure in the agent's deny format (Claude
// Code's: exit 2), unless the failure may pass (AIRLOCK_FAIL_OPEN=1, or a
// post event, which never blocks).
func fail(o Options, pass bool, err error) int {
	if pass {
		fmt.Fprintf(o.Stderr, "airlock: %s (not blocking)\n", oneLine(err.Error()))
		ad := adapterFor(o.Agent)
		if ad.answerPost != nil {
			ad.answerPost(answerTo{o.Stdout, o.Stderr})
		}
		return ExitAllow
	}
	msg := fmt.Sprintf("%s. Airlock fails closed; fix the problem, or set AIRLOCK_FAIL_OPEN=1 to let calls through while it is broken.", oneLine(err.Error()))
	if home.ManagedInForce() {
		// the variable is refused here: naming it would send the agent
		// after a way out that is not one
		msg = fmt.Sprintf("%s. Airlock fails closed, and AIRLOCK_FAIL_OPEN lets nothing through on this managed machine: fix the problem (or ask your administrator).", oneLine(err.Error()))
	}
	if o.Agent == Claude || o.Agent == "" {
		if o.refuseAs != "" {
			return adapterFor(o.refuseAs).answer(answerTo{o.Stdout, o.Stderr}, &Event{Agent: o.refuseAs}, verdict{Action: policy.Block, Reason: msg})
		}
		fmt.Fprintf(o.Stderr, "Airlock blocked this call: %s\n", msg)
		return ExitBlock
	}
	return adapterFor(o.Agent).answer(answerTo{o.Stdout, o.Stderr}, &Event{Agent: o.Agent}, verdict{Action: policy.Block, Reason: msg})
}

func effectiveOnFailure(failOpen bool) string {
	if failOpen {
		return "allow"
	}
	return "block"
}

// oneLine keeps a message on one line: Claude Code shows stderr to the
// model, and a reason must not be able to forge a second message.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", "; ")
}
