package setup

import (
	"strings"
	"testing"
)

// TestHookProblemTimeoutIsTheAgents: a pre-tool timeout that ends before
// airlock-hook's deadline for that agent is a problem. For Codex, Gemini
// CLI and Cursor the hook gives Airlock's ask channel until 85 s (90 s
// written): a 60 s timeout kills the hook while an ask is still open, and
// Codex and Gemini then run the call. It used to be measured against
// Claude Code's 25 s deadline for every agent, and passed.
func TestHookProblemTimeoutIsTheAgents(t *testing.T) {
	for _, tc := range []struct {
		d       *hookDialect
		event   string
		timeout int
		bad     bool
	}{
		{codexDialect, "PreToolUse", 60, true},
		{codexDialect, "PreToolUse", 85, true},
		{codexDialect, "PreToolUse", 90, false},
		{geminiDialect, "BeforeTool", 60, true},
		{geminiDialect, "BeforeTool", 90, false},
		{cursorDialect, "preToolUse", 30, true},
		{claudeDialect, "PreToolUse", 30, false},
		{claudeDialect, "PreToolUse", 25, true},
		{copilotDialect, "preToolUse", 30, false},
		{copilotDialect, "preToolUse", 20, true},
		{codexDialect, "PostToolUse", 30, false},
	} {
		h := tc.d.written(hookRecord{Event: tc.event, Command: tc.d.command("/x/airlock-hook", tc.d.isPost(tc.event))})
		h.Timeout = tc.timeout
		p := hookProblem(h, tc.d, "")
		if got := p != ""; got != tc.bad {
			t.Errorf("%s %s timeout %d s: problem %q, want a problem: %v", tc.d.agent, tc.event, tc.timeout, p, tc.bad)
		}
		if tc.bad && !strings.Contains(p, "timeout") {
			t.Errorf("%s %s timeout %d s: problem %q does not name the timeout", tc.d.agent, tc.event, tc.timeout, p)
		}
	}
}
