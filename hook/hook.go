// Package hook speaks Claude Code's hook protocol: one event on stdin, one
// answer as an exit code (and, for an ask, JSON on stdout).
//
// PreToolUse: allow is exit 0 with nothing printed (printing
// permissionDecision "allow" would switch off Claude Code's own prompt);
// block is exit 2 with the reason on stderr; ask is exit 0 with the
// hookSpecificOutput JSON. PostToolUse and PostToolUseFailure (a tool that
// failed) record the outcome and never block.
//
// Claude Code treats every exit code but 2 as "go ahead", so every failure
// here — a policy that will not load, an unusable home, a panic — exits 2
// unless the user set AIRLOCK_FAIL_OPEN=1.
package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan/secret"
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
	Name           string // hook_event_name
	Tool           string
	Input          []byte // tool_input, raw JSON object
	Session        string
	Cwd            string
	PermissionMode string
	Response       gjson.Result // tool_response (PostToolUse)
	Error          string       // error (PostToolUseFailure)
	Interrupted    bool         // is_interrupt (PostToolUseFailure)
}

// ParseEvent reads a hook event. It fails on anything that is not a JSON
// object with a tool_name string and a tool_input object.
func ParseEvent(data []byte) (*Event, error) {
	if !gjson.ValidBytes(data) {
		return nil, errors.New("the event is not valid JSON")
	}
	root := gjson.ParseBytes(data)
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
	Getenv func(string) string
	// EnvFunc finds the user's environment (home.FromOS in the binary).
	EnvFunc func() (home.Env, error)
}

// Run handles one event and returns the process exit code.
func Run(o Options) (code int) {
	failOpen := home.FailOpen(o.Getenv) // never on a managed machine
	post := o.Post
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
	if postEvent(gjson.GetBytes(data, "hook_event_name").String()) {
		post = true
	}
	ev, err := ParseEvent(data)
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
		ev.Cwd = wd
	}
	env, err := o.EnvFunc()
	if err != nil {
		return fail(o, failOpen || post, err)
	}
	log, err := audit.Open(env.AirlockHome)
	if err != nil {
		return fail(o, failOpen || post, fmt.Errorf("AIRLOCK_HOME %s is unusable: %w", env.AirlockHome, err))
	}
	if post {
		return recordOutcome(o, log, env, ev)
	}
	p, err := policy.LoadEnv(env, ev.Cwd)
	if err != nil {
		_, _ = log.Append(audit.Record{Event: "hook_error", Source: "hook", Session: ev.Session, Tool: ev.Tool,
			Decision: "block", Effective: effectiveOnFailure(failOpen), Reason: oneLine(err.Error())})
		return fail(o, failOpen, fmt.Errorf("the policy did not load: %w", err))
	}
	if err := gate.RecordConfig(log, env.AirlockHome, ev.Session, gate.ConfigOf("hook", p, env)); err != nil {
		fmt.Fprintf(o.Stderr, "airlock: warning: %v\n", err)
	}
	g := WithMCPStages(&gate.Gate{Policy: p, Log: log, Env: env,
		Notify: notify.New(notify.Options{AirlockHome: env.AirlockHome, Getenv: env.Getenv})})
	res := g.Decide(gate.Call{Source: "hook", Tool: ev.Tool, Input: ev.Input, Cwd: ev.Cwd, Session: ev.Session, Attended: true})
	// The gate has applied the rule (a decision it could not record is a
	// refusal unless AIRLOCK_FAIL_OPEN=1): the answer follows res.Effective;
	// here the person is told what happened to the record.
	switch {
	case res.AuditErr == nil:
	case res.FailedOpen():
		fmt.Fprintf(o.Stderr, "airlock: warning: let through unrecorded because %s=1: %s\n", gate.FailOpenEnv, oneLine(gate.Unrecorded(res.AuditErr, env.AirlockHome)))
	case errors.Is(res.AuditErr, audit.ErrCheckpoint) || errors.Is(res.AuditErr, audit.ErrAnchor):
		fmt.Fprintf(o.Stderr, "airlock: warning: the decision is recorded but not checkpointed: %s\n", oneLine(res.AuditErr.Error()))
	default:
		fmt.Fprintf(o.Stderr, "airlock: warning: the decision was not recorded: %s\n", oneLine(gate.Unrecorded(res.AuditErr, env.AirlockHome)))
	}
	return answer(o, ev.Tool, res)
}

func answer(o Options, tool string, res gate.Result) int {
	switch res.Effective {
	case policy.Block:
		fmt.Fprintf(o.Stderr, "Airlock blocked this call: %s: %s\n", textsafe.Escape(tool), textsafe.Escape(secret.Mask(res.Decision.Explain())))
		return ExitBlock
	case policy.Ask:
		out := map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":            "PreToolUse",
			"permissionDecision":       "ask",
			"permissionDecisionReason": "Airlock: " + textsafe.Escape(secret.Mask(res.Decision.Explain())),
		}}
		b, err := json.Marshal(out)
		if err != nil {
			return fail(o, false, err)
		}
		fmt.Fprintf(o.Stdout, "%s\n", b)
		return ExitAllow
	}
	return ExitAllow
}

func recordOutcome(o Options, log *audit.Log, env home.Env, ev *Event) int {
	r := audit.Record{Event: "outcome", Source: "hook", Session: ev.Session, Tool: ev.Tool,
		Effective: "ran", ArgsDigest: audit.ArgsDigest(ev.Input), Reason: outcomeReason(ev)}
	// A secret-class read that ran: record digests of what it returned
	// (never the content), so a later outbound call carrying it can be
	// matched (airlock breach).
	if p, err := policy.LoadEnv(env, ev.Cwd); err == nil {
		f := policy.Classify(ev.Tool, ev.Input, policy.CallEnv{Cwd: ev.Cwd, Home: env.Home, User: env.User})
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
	return ExitAllow
}

// fail answers an internal failure: exit 2 (blocking) unless the failure
// may pass (AIRLOCK_FAIL_OPEN=1, or a PostToolUse event, which never blocks).
func fail(o Options, pass bool, err error) int {
	if pass {
		fmt.Fprintf(o.Stderr, "airlock: %s (not blocking)\n", oneLine(err.Error()))
		return ExitAllow
	}
	if home.ManagedInForce() {
		// the variable is refused here: naming it would send the agent
		// after a way out that is not one
		fmt.Fprintf(o.Stderr, "Airlock blocked this call: %s. Airlock fails closed, and AIRLOCK_FAIL_OPEN lets nothing through on this managed machine: fix the problem (or ask your administrator).\n", oneLine(err.Error()))
		return ExitBlock
	}
	fmt.Fprintf(o.Stderr, "Airlock blocked this call: %s. Airlock fails closed; fix the problem, or set AIRLOCK_FAIL_OPEN=1 to let calls through while it is broken.\n", oneLine(err.Error()))
	return ExitBlock
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
