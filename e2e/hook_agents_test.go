//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

// agentFixture is the part of hook/testdata/agents/AGENT/*.json this test
// reads (hook/agents_test.go reads all of it in process).
type agentFixture struct {
	Policy string          `json:"policy"`
	Askd   string          `json:"askd"`
	Event  json.RawMessage `json:"event"`
	Want   struct {
		Decision string `json:"decision"`
	} `json:"want"`
}

// refused reads an agent's answer as refusing or not, the way it does:
// exit 2 for most; Cline's cancel and Copilot's permissionDecision on
// stdout; Cursor's permission with exit 2.
func refused(agent string, r result) bool {
	var j map[string]any
	_ = json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &j)
	switch agent {
	case "cline":
		return r.code == 0 && j["cancel"] == true
	case "copilot":
		return j["permissionDecision"] == "deny"
	case "cursor":
		return r.code == 2 && j["permission"] == "deny"
	}
	return r.code == 2 && strings.Contains(r.stderr, "Airlock blocked this call")
}

// TestHookBinaryAgents runs the built airlock-hook with --agent NAME on
// every agent's recorded fixtures that need no ask daemon, and checks
// that each block and allow is read as such in the agent's format, that
// the records name the agent, and that the chain is intact afterwards.
func TestHookBinaryAgents(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "hook", "testdata", "agents"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadDir(root)
	if err != nil || len(dirs) < 7 {
		t.Fatalf("agent fixtures: %v (%d)", err, len(dirs))
	}
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := fx.Env()
	ran := 0
	for _, d := range dirs {
		agent := d.Name()
		files, _ := filepath.Glob(filepath.Join(root, agent, "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c agentFixture
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if c.Askd != "" || c.Policy != "" || (c.Want.Decision != "allow" && c.Want.Decision != "block") {
				continue
			}
			ev := string(c.Event)
			var s string
			if json.Unmarshal(c.Event, &s) == nil {
				ev = s
			}
			ev = strings.NewReplacer("{HOME}", fx.Home, "{WS}", fx.WS).Replace(ev)
			r := run(t, append(env, "AIRLOCK_ASK_BACKEND=fallback"), []byte(ev), "airlock-hook", "--agent", agent)
			if got := refused(agent, r); got != (c.Want.Decision == "block") {
				t.Errorf("%s/%s: refused=%v, want %s (exit %d, stdout %q, stderr %q)", agent, filepath.Base(f), got, c.Want.Decision, r.code, r.stdout, r.stderr)
			}
			ran++
		}
	}
	if ran < 40 {
		t.Fatalf("only %d fixtures ran", ran)
	}
	v := run(t, env, nil, "airlock", "verify")
	if v.code != 0 || !strings.Contains(v.stdout, "intact") {
		t.Fatalf("airlock verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	log, err := os.ReadFile(filepath.Join(fx.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"codex", "gemini", "cursor", "windsurf", "cline", "copilot"} {
		if !strings.Contains(string(log), `"agent":"`+a+`"`) {
			t.Errorf("no record names agent %s", a)
		}
	}
	t.Logf("%d agent fixtures through the binary", ran)
}

// TestHookBinaryAgentFlag: no --agent is Claude Code (hooks wired before
// adapters keep working); an unknown agent is refused in the format every
// agent reads as a refusal or an error.
func TestHookBinaryAgentFlag(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := event(t, "Read", `{"file_path":"`+fx.Home+`/.ssh/id_rsa"}`, fx.WS)
	for _, args := range [][]string{nil, {"--agent", "claude"}, {"--agent=claude"}} {
		r := run(t, fx.Env(), secret, "airlock-hook", args...)
		if d, err := decisionOf(r); err != nil || d != "block" {
			t.Errorf("airlock-hook %v on a key read: %s %v", args, d, err)
		}
	}
	for _, args := range [][]string{{"--agent", "vim"}, {"--agent"}} {
		r := run(t, fx.Env(), event(t, "Bash", `{"command":"ls"}`, fx.WS), "airlock-hook", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown agent") {
			t.Errorf("airlock-hook %v: exit %d, stderr %q; want exit 2 naming the unknown agent", args, r.code, r.stderr)
		}
	}
}
