package hook

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// TestMCPResultWithASecretIsHandedBackMasked: server-everything's get-env
// shape — an MCP result carrying a GitHub token — is answered with
// updatedMCPToolOutput holding the mask, recorded first with the shape
// and digest; the token is in neither. A clean result prints nothing.
func TestMCPResultWithASecretIsHandedBackMasked(t *testing.T) {
	env := taintEnv(t, "default")
	cwd := filepath.Join(env.Home, "proj")
	const tok = "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO"
	ev := map[string]any{"session_id": "s1", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "mcp__everything__get-env",
		"tool_input": map[string]any{}, "tool_response": []any{map[string]any{"type": "text", "text": `{"GITHUB_TOKEN":"` + tok + `","PATH":"/usr/bin"}`}}}
	code, stdout, stderr := runHook(t, env, true, ev)
	if code != ExitAllow {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var answer struct {
		HookSpecificOutput struct {
			HookEventName string          `json:"hookEventName"`
			Updated       json.RawMessage `json:"updatedMCPToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &answer); err != nil || answer.HookSpecificOutput.HookEventName != "PostToolUse" {
		t.Fatalf("answer %q: %v", stdout, err)
	}
	up := string(answer.HookSpecificOutput.Updated)
	if strings.Contains(up, tok) || !strings.Contains(up, "[masked github-token sha256:") || !strings.Contains(up, `"content"`) {
		t.Errorf("updatedMCPToolOutput: %s", up)
	}
	recs, _ := audit.Tail(env.AirlockHome, 1)
	if len(recs) != 1 || recs[0].Event != "mask" || !strings.Contains(recs[0].Detail, "github-token:sha256:") || strings.Contains(recs[0].Detail+recs[0].Reason, tok) {
		t.Errorf("mask record: %+v", recs)
	}
	ev["tool_response"] = []any{map[string]any{"type": "text", "text": "PATH=/usr/bin"}}
	if _, stdout, _ := runHook(t, env, true, ev); stdout != "" {
		t.Errorf("a clean result was answered: %s", stdout)
	}
}
