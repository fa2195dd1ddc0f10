//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

// TestHookLoopDetector drives the built airlock-hook through the bundled
// loop detector: the same call 20 times in a session passes, the 21st asks
// (default) or is refused (paranoid) with the count in the reason and in
// its record; different calls, however many, never do; another session's
// count is its own; and BashOutput, which polls with the same arguments,
// is not counted.
func TestHookLoopDetector(t *testing.T) {
	for _, tc := range []struct{ profile, want string }{{"default", "ask"}, {"paranoid", "block"}} {
		t.Run(tc.profile, func(t *testing.T) {
			fx, err := corpus.NewFixture(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env := append(fx.Env(), "AIRLOCK_PROFILE="+tc.profile)
			pre := func(session, tool, input string) result {
				var ev map[string]any
				_ = json.Unmarshal(event(t, tool, input, fx.WS), &ev)
				ev["session_id"] = session
				b, _ := json.Marshal(ev)
				return run(t, env, b, "airlock-hook")
			}
			same := `{"file_path":"` + filepath.Join(fx.WS, "main.go") + `"}`
			for i := 1; i <= 20; i++ {
				if got, err := decisionOf(pre("s-loop", "Read", same)); err != nil || got != "allow" {
					t.Fatalf("identical call %d: %s %v, want allow", i, got, err)
				}
			}
			r := pre("s-loop", "Read", same)
			got, err := decisionOf(r)
			if err != nil || got != tc.want {
				t.Fatalf("the 21st identical call: %s %v (%s%s), want %s", got, err, r.stdout, r.stderr, tc.want)
			}
			if !strings.Contains(r.stdout+r.stderr, "the same call 21 times in 2m (loop: "+tc.want+" after 20)") {
				t.Errorf("the answer lacks the count: %s%s", r.stdout, r.stderr)
			}
			// different calls never: 30 reads of 30 files
			for i := range 30 {
				in := fmt.Sprintf(`{"file_path":%q}`, filepath.Join(fx.WS, fmt.Sprintf("f%d.go", i)))
				if got, err := decisionOf(pre("s-distinct", "Read", in)); err != nil || got != "allow" {
					t.Fatalf("distinct call %d: %s %v, want allow", i, got, err)
				}
			}
			if got, _ := decisionOf(pre("s-other", "Read", same)); got != "allow" {
				t.Errorf("another session's first call: %s", got)
			}
			lr := run(t, env, nil, "airlock", "log", "-n", "40", "--json")
			if lr.code != 0 || !strings.Contains(lr.stdout, `"rule":"limits.loop"`) || !strings.Contains(lr.stdout, "the same call 21 times in 2m") {
				t.Errorf("the record lacks the loop:\n%s%s", lr.stdout, lr.stderr)
			}
			if lt := run(t, env, nil, "airlock", "log", "-n", "40"); !strings.Contains(lt.stdout, "limits.loop") {
				t.Errorf("airlock log does not show the loop:\n%s", lt.stdout)
			}
		})
	}
	t.Run("BashOutput polls", func(t *testing.T) {
		fx, err := corpus.NewFixture(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		env := append(fx.Env(), "AIRLOCK_PROFILE=paranoid")
		ev := event(t, "BashOutput", `{"bash_id":"bash_1"}`, fx.WS)
		for i := 1; i <= 25; i++ {
			r := run(t, env, ev, "airlock-hook")
			if strings.Contains(r.stdout+r.stderr, "limits.loop") || strings.Contains(r.stdout+r.stderr, "the same call") {
				t.Fatalf("poll %d counted as a loop: %s%s", i, r.stdout, r.stderr)
			}
		}
	})
}

// TestMCPProxyLimits: the proxy counts per client connection and per
// server in memory. A loop of the same tools/call is refused after its
// repeat (ask, and no person answers under ask_fallback block), and the
// server's per-minute cap refuses the calls past it, each with its count
// in the answer and the record; calls before either pass.
func TestMCPProxyLimits(t *testing.T) {
	px := newProxyFixture(t)
	if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	pol := "mode: enforce\ndefault: allow\nask_fallback: block\nloop: {repeat: 5, window: 1m, action: ask}\n" +
		"limits:\n  - {tool: \"mcp__notes__*\", per_minute: 8, per: server, action: block}\nrules: []\n"
	if err := os.WriteFile(filepath.Join(px.AirlockHome, "policy.yaml"), []byte(pol), 0o600); err != nil {
		t.Fatal(err)
	}
	notesDef := `{"name":"read_note","description":"Read a note.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`
	r, _ := scripted(t, px, "notes", map[string]any{"tools": []json.RawMessage{raw(notesDef)},
		"results": map[string]json.RawMessage{"read_note": raw(`{"content":[{"type":"text","text":"a note"}]}`)}})
	r.ask(t, "1", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	call := func(id int, note string) string {
		a, _ := r.ask(t, fmt.Sprint(id), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_note","arguments":{"id":%q}}}`, id, note))
		return a.Raw
	}
	for id := 2; id <= 6; id++ {
		if a := call(id, "n1"); strings.Contains(a, "Airlock blocked") {
			t.Fatalf("identical call %d refused: %s", id-1, a)
		}
	}
	if a := call(7, "n1"); !strings.Contains(a, "Airlock blocked") || !strings.Contains(a, "the same call 6 times in 1m (loop: ask after 5)") {
		t.Fatalf("the 6th identical call: %s", a)
	}
	// the server has had 6 calls: two different ones pass, the 9th is past the cap
	for id, note := range map[int]string{8: "n2", 9: "n3"} {
		if a := call(id, note); strings.Contains(a, "Airlock blocked") {
			t.Fatalf("call %d (%s) refused: %s", id, note, a)
		}
	}
	if a := call(10, "n4"); !strings.Contains(a, "Airlock blocked") || !strings.Contains(a, "9 calls of mcp__notes__* in 1m to this server (limits: block above 8 a minute)") {
		t.Fatalf("the 9th call to the server: %s", a)
	}
	var rules []string
	for _, x := range auditRecords(t, px) {
		if x.Get("event").Str == "decision" && strings.HasPrefix(x.Get("rule").Str, "limits.") {
			rules = append(rules, x.Get("rule").Str+":"+x.Get("effective").Str)
		}
	}
	if strings.Join(rules, " ") != "limits.loop:block limits.server:block" {
		t.Errorf("limit records %v, want the loop's and the cap's, both refused", rules)
	}
}
