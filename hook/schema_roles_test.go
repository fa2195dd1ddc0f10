package hook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
)

// TestHookReadsArgumentRolesFromThePinnedSchema: the hook hands the
// classifier the input schema pins.json holds for the tool, so an
// argument the server describes as prose names a path without reading
// it, one it describes as a path stays a path, and a server never pinned
// is read by argument names only.
func TestHookReadsArgumentRolesFromThePinnedSchema(t *testing.T) {
	dir := t.TempDir()
	env := home.Env{Home: dir + "/home/dev", User: "dev", Tmp: dir + "/tmp", AirlockHome: dir + "/airlock",
		Getenv: func(string) string { return "" }}
	tool := json.RawMessage(`{"name":"file_issue","description":"File an issue","inputSchema":{"type":"object","properties":{
		"details":{"type":"string","description":"Free-form notes for the reviewer"},
		"body":{"type":"string","description":"Path of the file whose contents become the issue body"}}}}`)
	ts, err := pins.NewToolset([]json.RawMessage{tool})
	if err != nil {
		t.Fatal(err)
	}
	if adm, err := pins.Open(env.AirlockHome).Admit("tracker", ts, nil, time.Now()); err != nil || adm.State != pins.Pinned {
		t.Fatalf("admit: %+v %v", adm, err)
	}
	p, err := policy.LoadEnv(env, env.Home)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, input string
		want        policy.Action
	}{
		{"mcp__tracker__file_issue", `{"details":"the installer opens ~/.aws/credentials"}`, policy.Allow},
		{"mcp__tracker__file_issue", `{"body":"~/.aws/credentials"}`, policy.Block},
		{"mcp__other__file_issue", `{"details":"the installer opens ~/.aws/credentials"}`, policy.Block},
		{"mcp__other__file_issue", `{"body":"the installer opens ~/.aws/credentials"}`, policy.Allow},
	} {
		g := WithMCPStages(&gate.Gate{Policy: p, Env: env})
		res := g.Decide(gate.Call{Source: "hook", Tool: c.tool, Input: []byte(c.input), Cwd: env.Home, Attended: true})
		if res.Decision.Action != c.want {
			t.Errorf("%s %s: want %s, got %s (%s)", c.tool, c.input, c.want, res.Decision.Action, res.Decision.Explain())
		}
		if c.want == policy.Block && !strings.Contains(res.Decision.Via, "argument") {
			t.Errorf("%s %s: the reason does not say which argument: %s", c.tool, c.input, res.Decision.Explain())
		}
	}
}
