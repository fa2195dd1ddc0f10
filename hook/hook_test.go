package hook

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

func TestParseEvent(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
		tool     string
	}{
		{"pre", `{"session_id":"s","cwd":"/r","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, true, "Bash"},
		{"mcp", `{"hook_event_name":"PreToolUse","tool_name":"mcp__gh__create_issue","tool_input":{"title":"x"},"mcp_server":{"name":"gh","source":"user"}}`, true, "mcp__gh__create_issue"},
		{"unknown fields ignored", `{"tool_name":"Read","tool_input":{"file_path":"/x"},"effort":{"level":"high"},"new":[1,2]}`, true, "Read"},
		{"not json", `nope`, false, ""},
		{"array", `[1,2]`, false, ""},
		{"no tool", `{"tool_input":{}}`, false, ""},
		{"tool not string", `{"tool_name":3,"tool_input":{}}`, false, ""},
		{"input string", `{"tool_name":"Bash","tool_input":"rm -rf /"}`, false, ""},
		{"input missing", `{"tool_name":"Bash"}`, false, ""},
		{"truncated", `{"tool_name":"Bash","tool_input":{"command":"ls"`, false, ""},
	}
	for _, c := range cases {
		ev, err := ParseEvent([]byte(c.in))
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok=%v", c.name, err, c.ok)
			continue
		}
		if c.ok && ev.Tool != c.tool {
			t.Errorf("%s: tool %q, want %q", c.name, ev.Tool, c.tool)
		}
	}
}

// FuzzParseEvent: never panics; an accepted event always has a tool name
// and an object as tool_input.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","cwd":"/r","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/x"},"tool_response":{"content":"x"}}`,
		`{"tool_name":"","tool_input":{}}`, `{"tool_name":"x","tool_input":[]}`, `null`, ``, `{"a":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data)
		if err != nil {
			return
		}
		if ev.Tool == "" || len(ev.Input) == 0 || ev.Input[0] != '{' {
			t.Fatalf("accepted a malformed event: %q", data)
		}
	})
}

// PostToolUse of a secret-class read records digests of what it returned,
// never the content.
func TestOutcomeOfASecretReadRecordsDigests(t *testing.T) {
	root := t.TempDir()
	home := root + "/home/dev"
	env := airlockhome.Env{Home: home, User: "dev", Tmp: root + "/tmp", AirlockHome: root + "/airlock", Getenv: func(string) string { return "" }}
	ev := `{"session_id":"s","cwd":"` + home + `","hook_event_name":"PostToolUse","tool_name":"Read",` +
		`"tool_input":{"file_path":"~/.aws/credentials"},` +
		`"tool_response":{"type":"text","file":{"filePath":"` + home + `/.aws/credentials","content":"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}}}`
	var out, errb strings.Builder
	code := Run(Options{Stdin: strings.NewReader(ev), Stdout: &out, Stderr: &errb, Post: true,
		Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
	if code != ExitAllow {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// the outcome, then the mask of what the model is handed
	recs, err := audit.Tail(env.AirlockHome, 2)
	if err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	r := recs[0]
	if r.Event != "outcome" || r.Rule != "secrets.aws" || !strings.HasPrefix(r.Detail, "secret_digest=sha256:") {
		t.Fatalf("outcome record: %+v", r)
	}
	if recs[1].Event != "mask" || !strings.Contains(recs[1].Detail, "aws-secret-access-key:sha256:") {
		t.Fatalf("mask record: %+v", recs[1])
	}
	if strings.Contains(r.Detail+recs[1].Detail, "wJalr") || strings.Contains(out.String(), "wJalr") {
		t.Fatal("the secret itself was recorded or handed back")
	}
}
