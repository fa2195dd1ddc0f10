package hook

import (
	"bytes"
	"strings"
	"testing"

	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// Events of agents whose deny is a JSON answer (Copilot's permissionDecision,
// Cline's cancel), as they would reach a hook wired without the right
// --agent: a Claude Code command line copied into their hook file, or
// an --agent misspelt.
var foreignEvents = map[Agent]string{
	Copilot: `{"timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"cat ~/.ssh/id_rsa\"}"}`,
	Cline:   `{"clineVersion": "3", "hookName": "PreToolUse", "taskId": "t", "workspaceRoots": ["/w"], "preToolUse": {"toolName": "execute_command", "parameters": {"command": "cat ~/.ssh/id_rsa"}}}`,
}

// TestClaudeHookRefusesOtherAgentsInTheirFormat: a hook read as Claude
// Code's cannot read Copilot's or Cline's event and refuses it, in the
// format that agent reads as a refusal (its JSON), not only Claude's exit
// 2, which they may take for a failed hook and run the call.
func TestClaudeHookRefusesOtherAgentsInTheirFormat(t *testing.T) {
	env, _ := testHome(t, nil)
	for a, event := range foreignEvents {
		var out, errb bytes.Buffer
		code := RunWithin(Options{Stdin: strings.NewReader(event), Stdout: &out, Stderr: &errb, Agent: Claude,
			Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
		got, err := readAnswer(a, code, out.String(), errb.String())
		if err != nil || got != "block" {
			t.Errorf("%s's event to the Claude Code hook: %s read it as %q (%v)", a, a, got, err)
		}
	}
}

// TestUnknownAgentRefusesInTheEventsFormat: airlock-hook --agent with a
// name it does not know refuses the event in the format of the agent the
// event is shaped as.
func TestUnknownAgentRefusesInTheEventsFormat(t *testing.T) {
	for a, event := range foreignEvents {
		var out, errb bytes.Buffer
		code := RefuseUnknownAgent(strings.NewReader(event), &out, &errb, "airlock-hook --agent copliot: unknown agent")
		got, err := readAnswer(a, code, out.String(), errb.String())
		if err != nil || got != "block" {
			t.Errorf("%s's event, unknown --agent: %s read it as %q (%v)", a, a, got, err)
		}
	}
	var out, errb bytes.Buffer
	code := RefuseUnknownAgent(strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), &out, &errb, "unknown agent")
	if got, err := readAnswer(Claude, code, out.String(), errb.String()); err != nil || got != "block" {
		t.Errorf("a Claude-shaped event, unknown --agent: read as %q (%v)", got, err)
	}
}
