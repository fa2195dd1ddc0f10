package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/tidwall/gjson"
)

// fixture is one recorded agent event (hook/testdata/agents/AGENT/*.json)
// and what Airlock must answer. {HOME} and {WS} in the event are the test
// home and its workspace.
type fixture struct {
	Source string          `json:"_source"` // the documentation page the event's shape was taken from
	Note   string          `json:"_note"`
	Post   bool            `json:"post"`   // run as a --post hook
	Answer string          `json:"askd"`   // "y" or "n": askd runs and a person answers; "": no askd
	Policy string          `json:"policy"` // policy.yaml in the Airlock home ("": none, the default profile)
	Event  json.RawMessage `json:"event"`  // the event, or a string (not JSON: unknown input)
	Want   want            `json:"want"`
}

type want struct {
	Decision string   `json:"decision"` // allow | ask | block, read in the agent's own format
	Exit     *int     `json:"exit"`
	Records  *int     `json:"records"` // decision records written
	Tools    []string `json:"tools"`   // canonical tools of the decision records, in order
	Tool     string   `json:"tool"`    // the first record's canonical tool
	Agent    string   `json:"agent"`   // the record's agent field
	Raw      string   `json:"raw"`     // the record's agent_tool
	Asked    string   `json:"asked"`   // the first decision record's asked
	Outcome  string   `json:"outcome"` // an outcome record's reason contains this ("-": none)
	Says     string   `json:"says"`    // the answer (stdout + stderr) contains this
	Targets  []string `json:"targets"` // record targets containing these (with {HOME})
}

// agentFixtures loads every fixture of one agent.
func agentFixtures(t *testing.T, a Agent) map[string]fixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "agents", string(a), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures for %s: %v", a, err)
	}
	out := map[string]fixture{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx fixture
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.HasPrefix(fx.Source, "https://") {
			t.Fatalf("%s: _source must cite the documentation page the event was taken from", f)
		}
		out[filepath.Base(f)] = fx
	}
	return out
}

// readAnswer reads an answer the way the agent does: its decision.
func readAnswer(a Agent, code int, stdout, stderr string) (string, error) {
	var j map[string]any
	if s := strings.TrimSpace(stdout); s != "" {
		if err := json.Unmarshal([]byte(s), &j); err != nil {
			return "", fmt.Errorf("stdout is not one JSON object: %q", stdout)
		}
	}
	hso, _ := j["hookSpecificOutput"].(map[string]any)
	switch a {
	case Claude:
		switch {
		case code == 2 && strings.HasPrefix(stderr, "Airlock blocked this call: "):
			return "block", nil
		case code == 0 && j == nil:
			return "allow", nil
		case code == 0 && hso["permissionDecision"] == "ask":
			return "ask", nil
		}
	case Codex:
		switch {
		case code == 2 && hso["permissionDecision"] == "deny" && strings.Contains(stderr, "Airlock blocked this call"):
			return "block", nil
		case code == 0 && j == nil:
			return "allow", nil
		}
	case Gemini:
		switch {
		case code == 2 && j["decision"] == "deny" && strings.Contains(stderr, "Airlock blocked this call"):
			return "block", nil
		case code == 0 && j == nil:
			return "allow", nil
		}
	case Cursor:
		switch p := j["permission"]; {
		case code == 2 && p == "deny" && j["agent_message"] != "":
			return "block", nil
		case code == 0 && p == "ask":
			return "ask", nil
		case code == 0 && p == "allow":
			return "allow", nil
		}
	case Windsurf:
		switch {
		case code == 2 && strings.HasPrefix(stderr, "Airlock blocked this call"):
			return "block", nil
		case code == 0:
			return "allow", nil
		}
	case Cline:
		switch c := j["cancel"]; {
		case code == 0 && c == true && j["errorMessage"] != "":
			return "block", nil
		case code == 0 && c == false:
			return "allow", nil
		}
	case Copilot:
		switch d := j["permissionDecision"]; {
		case code == 0 && j == nil:
			return "allow", nil
		case d == "deny" && j["permissionDecisionReason"] != "":
			return "block", nil
		case code == 0 && d == "ask":
			return "ask", nil
		}
	}
	return "", fmt.Errorf("%s would not read exit %d, stdout %q, stderr %q as a decision", a, code, stdout, stderr)
}

// testHome is a home with a workspace, and an Airlock home short enough
// for askd's socket path.
func testHome(t *testing.T, vars map[string]string) (airlockhome.Env, string) {
	t.Helper()
	root, err := os.MkdirTemp("", "al-hook-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home := filepath.Join(root, "h")
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return vars[k] }
	return airlockhome.Env{Home: home, User: "dev", Tmp: os.TempDir(), AirlockHome: filepath.Join(root, "a"), Getenv: getenv}, ws
}

// answeringWriter is askd's screen: when a question is on it, the person
// types the answer.
type answeringWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	answer string
	in     io.Writer
}

func (w *answeringWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(string(p), "Allow this call?") {
		go func() { _, _ = io.WriteString(w.in, w.answer+"\n") }()
	}
	return len(p), nil
}

func (w *answeringWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// askdListening: askd's address is bound — an abstract name in
// /proc/net/unix on Linux, the socket file elsewhere.
func askdListening(airlockHome string) bool {
	addr := ask.SocketAddress(airlockHome)
	if strings.HasPrefix(addr, "@") {
		b, err := os.ReadFile("/proc/net/unix")
		return err == nil && strings.Contains(string(b), addr)
	}
	fi, err := os.Lstat(addr)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// startAskd runs airlock askd on the home, answering every question.
func startAskd(t *testing.T, airlockHome, answer string) *answeringWriter {
	t.Helper()
	pr, pw := io.Pipe()
	out := &answeringWriter{answer: answer, in: pw}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&ask.Daemon{Home: airlockHome, In: pr, Out: out}).Serve(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if askdListening(airlockHome) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("askd did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Cleanup(func() {
		cancel()
		pw.Close()
		<-done
	})
	return out
}

func expand(s string, env airlockhome.Env, ws string) string {
	return strings.NewReplacer("{HOME}", env.Home, "{WS}", ws).Replace(s)
}

// runFixture runs one fixture through RunWithin, as the binary does.
func runFixture(t *testing.T, a Agent, fx fixture) (code int, stdout, stderr string, recs []audit.Record, env airlockhome.Env) {
	t.Helper()
	vars := map[string]string{"AIRLOCK_ASK_BACKEND": "fallback", "AIRLOCK_ASK_REMEMBER": "0"}
	if fx.Answer != "" {
		vars["AIRLOCK_ASK_BACKEND"] = "socket,fallback"
	}
	env, ws := testHome(t, vars)
	if fx.Answer != "" {
		startAskd(t, env.AirlockHome, fx.Answer)
	}
	if fx.Policy != "" {
		if err := os.WriteFile(filepath.Join(env.AirlockHome, "policy.yaml"), []byte(fx.Policy), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	event := string(fx.Event)
	var s string
	if json.Unmarshal(fx.Event, &s) == nil {
		event = s // a string: the raw bytes the agent sent
	}
	event = expand(event, env, ws)
	var out, errb strings.Builder
	code = RunWithin(Options{Stdin: strings.NewReader(event), Stdout: &out, Stderr: &errb, Post: fx.Post, Agent: a,
		Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
	recs, err := audit.Tail(env.AirlockHome, 100)
	if err != nil && !os.IsNotExist(err) {
		t.Logf("audit tail: %v", err)
	}
	return code, out.String(), errb.String(), recs, env
}

func TestAgentFixtures(t *testing.T) {
	for _, a := range Agents {
		fixtures := agentFixtures(t, a)
		names := make([]string, 0, len(fixtures))
		for n := range fixtures {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			fx := fixtures[name]
			t.Run(string(a)+"/"+name, func(t *testing.T) {
				code, stdout, stderr, recs, env := runFixture(t, a, fx)
				w := fx.Want
				if w.Exit != nil && code != *w.Exit {
					t.Errorf("exit %d, want %d (stderr %q)", code, *w.Exit, stderr)
				}
				if w.Decision != "" {
					got, err := readAnswer(a, code, stdout, stderr)
					if err != nil || got != w.Decision {
						t.Fatalf("%s answered %q (%v), want %s; stderr %q", a, got, err, w.Decision, stderr)
					}
				}
				if w.Says != "" && !strings.Contains(stdout+stderr, w.Says) {
					t.Errorf("the answer does not say %q: stdout %q stderr %q", w.Says, stdout, stderr)
				}
				var decisions, outcomes []audit.Record
				for _, r := range recs {
					switch r.Event {
					case "decision":
						decisions = append(decisions, r)
					case "outcome":
						outcomes = append(outcomes, r)
					}
				}
				if w.Records != nil && len(decisions) != *w.Records {
					t.Errorf("%d decision records, want %d: %+v (stderr %q)", len(decisions), *w.Records, decisions, stderr)
				}
				if len(w.Tools) > 0 {
					var got []string
					for _, r := range decisions {
						got = append(got, r.Tool)
					}
					if strings.Join(got, ",") != strings.Join(w.Tools, ",") {
						t.Errorf("decision tools %v, want %v", got, w.Tools)
					}
				}
				first := audit.Record{}
				switch {
				case len(decisions) > 0:
					first = decisions[0]
				case len(outcomes) > 0:
					first = outcomes[0]
				}
				if w.Tool != "" && first.Tool != w.Tool {
					t.Errorf("record tool %q, want %q: %+v", first.Tool, w.Tool, first)
				}
				if w.Agent != "" && first.Agent != w.Agent {
					t.Errorf("record agent %q, want %q", first.Agent, w.Agent)
				}
				if w.Raw != "" && first.AgentTool != w.Raw {
					t.Errorf("record agent_tool %q, want %q", first.AgentTool, w.Raw)
				}
				if w.Asked != "" && first.Asked != w.Asked {
					t.Errorf("record asked %q, want %q (%+v)", first.Asked, w.Asked, first)
				}
				switch {
				case w.Outcome == "":
				case w.Outcome == "-" && len(outcomes) > 0:
					t.Errorf("an outcome was recorded: %+v", outcomes)
				case w.Outcome != "-" && (len(outcomes) != 1 || !strings.Contains(outcomes[0].Reason+"|"+outcomes[0].Effective, w.Outcome)):
					t.Errorf("outcomes %+v, want one saying %q", outcomes, w.Outcome)
				}
				for _, tg := range w.Targets {
					tg = expand(tg, env, "")
					found := false
					for _, r := range decisions {
						found = found || strings.Contains(r.Target, tg)
					}
					if !found {
						t.Errorf("no decision record targets %q: %+v", tg, decisions)
					}
				}
			})
		}
	}
}

// TestEveryAgentHasTheRequiredFixtures: each agent's fixtures cover an
// allow, a block, an ask (or its translation) and unknown input.
func TestEveryAgentHasTheRequiredFixtures(t *testing.T) {
	for _, a := range Agents {
		seen := map[string]bool{}
		for _, fx := range agentFixtures(t, a) {
			if fx.Want.Outcome != "" && fx.Want.Outcome != "-" {
				seen["post"] = true
				continue
			}
			if fx.Want.Records != nil && *fx.Want.Records == 0 && fx.Want.Decision == "block" {
				seen["unknown"] = true
			}
			if fx.Want.Asked != "" || fx.Want.Decision == "ask" {
				seen["ask"] = true
			}
			seen[fx.Want.Decision] = true
		}
		for _, k := range []string{"allow", "block", "ask", "unknown", "post"} {
			if !seen[k] {
				t.Errorf("%s has no %s fixture", a, k)
			}
		}
	}
}

func mustParse(t *testing.T, s string) gjson.Result {
	t.Helper()
	if !gjson.Valid(s) {
		t.Fatalf("not JSON: %s", s)
	}
	return gjson.Parse(s)
}

// TestTruncatedPostEventNeverBlocks: a post event cut short is still
// known by its name, and passes, in every agent's protocol.
func TestTruncatedPostEventNeverBlocks(t *testing.T) {
	for a, ev := range map[Agent]string{
		Claude:   `{"hook_event_name":"PostToolUse","tool_name":`,
		Codex:    `{"hook_event_name":"PostToolUse","tool_name":`,
		Gemini:   `{"hook_event_name":"AfterTool","tool_name":`,
		Cursor:   `{"hook_event_name":"postToolUse","tool_name":`,
		Windsurf: `{"agent_action_name":"post_run_command","tool_info":`,
		Cline:    `{"hookName":"PostToolUse","postToolUse":`,
		Copilot:  `{"hook_event_name":"PostToolUse","toolName":`,
	} {
		env, _ := testHome(t, nil)
		code, out, errs := runIn(env, a, ev)
		if code != ExitAllow || !strings.Contains(errs, "(not blocking)") {
			t.Errorf("%s: a truncated post event: exit %d, stdout %q, stderr %q", a, code, out, errs)
		}
		// Cursor reads no permission from a post event
		if got, err := readAnswer(a, code, out, errs); a != Cursor && (err != nil || got != "allow") {
			t.Errorf("%s reads %q (%v)", a, got, err)
		}
	}
}
