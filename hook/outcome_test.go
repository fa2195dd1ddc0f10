package hook

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
)

// TestPostToolUseFailureRecordsTheOutcome: Claude Code fires
// PostToolUseFailure, not PostToolUse, for a tool that failed; the run is
// recorded as an outcome that says it failed (the error cut short), with
// or without --post, and the hook never blocks it.
func TestPostToolUseFailureRecordsTheOutcome(t *testing.T) {
	long := strings.Repeat("e", 5000)
	cases := []struct {
		name   string
		extra  string // fields after tool_input
		post   bool
		reason string
	}{
		{"failed, --post", `,"error":"Exit code 1\nls: cannot access 'nope'"`, true, "the tool failed: Exit code 1; ls: cannot access 'nope'"},
		{"failed, no --post", `,"error":"Exit code 2"`, false, "the tool failed: Exit code 2"},
		{"interrupted", `,"error":"","is_interrupt":true`, true, "the tool was interrupted"},
		{"no error text", ``, true, "the tool failed"},
		{"a long error is cut", `,"error":"` + long + `"`, true, "the tool failed: " + long[:maxOutcomeError] + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, ws := stuckEnv(t, nil)
			ev := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PostToolUseFailure","tool_name":"Bash",` +
				`"tool_input":{"command":"ls nope"},"tool_use_id":"toolu_1"` + c.extra + `}`
			var out, errb strings.Builder
			code := Run(Options{Stdin: strings.NewReader(ev), Stdout: &out, Stderr: &errb, Post: c.post,
				Getenv: env.Getenv, EnvFunc: func() (home.Env, error) { return env, nil }})
			if code != ExitAllow || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q: a failure hook must never block", code, out.String(), errb.String())
			}
			all, err := audit.Tail(env.AirlockHome, 5)
			if err != nil {
				t.Fatal(err)
			}
			var recs []audit.Record
			for _, r := range all {
				if r.Event != audit.EventStart {
					recs = append(recs, r)
				}
			}
			if len(recs) != 1 {
				t.Fatalf("%d records, want the one outcome: %+v", len(recs), recs)
			}
			r := recs[0]
			if r.Event != "outcome" || r.Tool != "Bash" || r.Effective != "ran" || r.Session != "s" ||
				r.ArgsDigest != audit.ArgsDigest([]byte(`{"command":"ls nope"}`)) {
				t.Errorf("record %+v, want the outcome of the Bash call", r)
			}
			if r.Reason != c.reason {
				t.Errorf("reason %q, want %q", r.Reason, c.reason)
			}
		})
	}
}
