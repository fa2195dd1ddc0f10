package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/mcpproxy"
	"github.com/agentairlock/airlock/pins"
)

// session is the agent session id the demo's calls are recorded under.
const session = "airlock-demo"

// hookStep hands Claude Code's PreToolUse event for one native tool call
// to the real hook, as airlock-hook would get it on stdin.
func (r *runner) hookStep(id string, want outcome, tool string, input map[string]any) Step {
	s := Step{ID: id, Title: describe(tool, input), Want: want}
	ev, err := json.Marshal(map[string]any{
		"session_id": session, "hook_event_name": "PreToolUse", "cwd": r.w.work,
		"permission_mode": "default", "tool_name": tool, "tool_input": input,
	})
	if err != nil {
		s.Got, s.Detail = Failed, err.Error()
		return s
	}
	var stdout, stderr bytes.Buffer
	code := hook.Run(hook.Options{Stdin: bytes.NewReader(ev), Stdout: &stdout, Stderr: &stderr,
		Getenv: r.w.getenv, EnvFunc: r.w.gateEnv})
	blocked := blockedLine(stderr.String(), tool)
	switch {
	case code == hook.ExitBlock && blocked != "":
		s.Got = Blocked
		s.Reason, s.Rule = splitRule(blocked)
	case code == hook.ExitAllow && strings.Contains(stdout.String(), `"permissionDecision":"ask"`):
		s.Got = asked
	case code == hook.ExitAllow && stdout.Len() == 0:
		s.Got = Allowed
		s.Rule, s.Reason = r.lastDecision(tool)
	default:
		s.Got = Failed
	}
	if !s.OK() {
		s.Detail = fmt.Sprintf("the hook exited %d; stderr: %s; stdout: %s", code, oneLine(stderr.String()), oneLine(stdout.String()))
	}
	return s
}

// blockedLine is the reason of the hook's refusal of tool, or "" when it
// did not refuse it as a decision (an internal failure also exits 2, and
// must not pass for a verdict).
func blockedLine(stderr, tool string) string {
	prefix := "Airlock blocked this call: " + tool + ": "
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, prefix) && !strings.Contains(line, "Airlock fails closed") {
			return strings.TrimPrefix(line, prefix)
		}
	}
	return ""
}

// splitRule splits "reason [rule]" as policy.Decision.Explain writes it.
func splitRule(s string) (reason, rule string) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "]") {
		if i := strings.LastIndex(s, " ["); i >= 0 {
			return s[:i], s[i+2 : len(s)-1]
		}
	}
	return s, ""
}

// lastDecision is the rule and reason of the newest decision on tool in
// the audit log: an allow says nothing on the wire, the log says why.
func (r *runner) lastDecision(tool string) (rule, reason string) {
	recs, err := audit.Tail(r.w.airlockHome, 32)
	if err != nil {
		return "", ""
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Event == "decision" && recs[i].Tool == tool {
			return recs[i].Rule, recs[i].Reason
		}
	}
	return "", ""
}

// mcpStep connects to server through the real proxy as an agent would
// (initialize, initialized, tools/list) and calls tool once.
func (r *runner) mcpStep(id string, want outcome, server, tool string, args map[string]any) Step {
	a, _ := json.Marshal(args)
	s := Step{ID: id, Want: want, Title: fmt.Sprintf("MCP %s/%s %s", server, tool, a)}
	fail := func(format string, a ...any) Step {
		s.Got, s.Detail = Failed, fmt.Sprintf(format, a...)
		return s
	}
	c := r.startProxy(server)
	res, callErr := c.session(tool, args)
	code, closeErr := c.close()
	if callErr != nil {
		return fail("%v; the proxy exited %d: %s", callErr, code, oneLine(c.stderr.String()))
	}
	if closeErr != nil {
		return fail("%v", closeErr)
	}
	entry, err := pins.Open(r.w.airlockHome).Get(server)
	if err != nil {
		return fail("read the pins: %v", err)
	}
	text := res.text()
	switch {
	case res.refused() && res.Meta.Decision.Rule == "pins:held" && entry.State == pins.Held:
		s.Got = Held
		s.Rule = res.Meta.Decision.Rule
		s.Reason = holdReason(entry.Reason)
	case res.refused():
		s.Got = Blocked
		s.Reason, s.Rule = splitRule(strings.TrimPrefix(text, mcpproxy.BlockedPrefix))
	case !res.IsError && entry.State == pins.Pinned:
		s.Got = Allowed
		s.Reason = fmt.Sprintf("toolset pinned at first sight, call served (%q)", oneLine(text))
	default:
		return fail("the call was answered %q; the server is %s in pins.json", oneLine(text), entry.State)
	}
	if !s.OK() {
		s.Detail = fmt.Sprintf("the proxy answered %q", oneLine(text))
	}
	return s
}

// session is an agent's whole conversation with one server: the
// handshake and one call.
func (c *client) session(tool string, args map[string]any) (*toolResult, error) {
	if _, err := c.handshake(); err != nil {
		return nil, err
	}
	raw, err := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res toolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call: %w", err)
	}
	return &res, nil
}

// holdReason is why pins.json holds a server, without the how-to-release
// advice a user of the real thing would follow.
func holdReason(r string) string {
	if i := strings.Index(r, `; run "airlock pins`); i >= 0 {
		return r[:i]
	}
	return r
}

// verifyStep checks the chain the demo wrote, as `airlock verify` does.
func (r *runner) verifyStep() Step {
	s := Step{ID: StepVerify, Title: "airlock verify", Want: Intact}
	rep, err := audit.VerifyWith(r.w.airlockHome, audit.VerifyOptions{Getenv: r.w.getenv})
	if err != nil {
		s.Got, s.Detail = Failed, err.Error()
		return s
	}
	s.Records = rep.Records
	if rep.Status == audit.Intact {
		s.Got = Intact
		s.Reason = fmt.Sprintf("%d records, chain and checkpoint verified", rep.Records)
		return s
	}
	s.Got = Broken
	var probs []string
	for _, p := range rep.Problems {
		probs = append(probs, p.Kind+": "+p.Message)
	}
	s.Detail = fmt.Sprintf("%s: %s", rep.Status, strings.Join(probs, "; "))
	return s
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " | ")
}
