//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAgentsHooksWiredByInit: after airlock init in a throwaway home, the
// real agents run the hooks it wrote. Codex's app-server lists both hooks
// as trusted (init recorded the trust; the test never uses the bypass
// flag), and airlock doctor, asking that same Codex, says its own tools
// are gated. Gemini CLI, driven through one tool-use turn against a fake
// model API on 127.0.0.1, runs its BeforeTool hook: airlock-hook records
// the call. Codex, in one turn against a fake Responses API, runs the
// trusted PreToolUse and PostToolUse hooks, and skips them once the trust
// is taken away (the control). Uninstall restores every file byte for
// byte.
func TestAgentsHooksWiredByInit(t *testing.T) {
	gemini := agentCLI(t, "@google/gemini-cli")
	codex := agentCLI(t, "@openai/codex")
	h := newAgentHome(t)
	originals := map[string][]byte{}
	for rel, body := range map[string][]byte{
		".codex/config.toml":    []byte("# mine\nmodel = \"gpt-5\"\n"),
		".gemini/settings.json": []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}}` + "\n"),
	} {
		originals[h.write(t, rel, body)] = body
	}
	out, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "init")
	if code != 0 {
		t.Fatalf("airlock init: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("airlock init:\n%s", out)
	hooksJSON := filepath.Join(h.home, ".codex", "hooks.json")
	for _, want := range []string{
		hooksJSON + ": hook wired (PreToolUse, PostToolUse: " + filepath.Join(bin, "airlock-hook") + " --agent codex)",
		filepath.Join(h.home, ".codex", "config.toml") + ": Codex trusts airlock-hook's hooks (recorded in hooks.state, as /hooks in Codex does: Codex skips a hook nobody trusted)",
		filepath.Join(h.home, ".gemini", "settings.json") + ": hook wired (BeforeTool, AfterTool: " + filepath.Join(bin, "airlock-hook") + " --agent gemini)",
	} {
		if !slices.Contains(strings.Split(out, "\n"), want) {
			t.Errorf("airlock init output lacks %q", want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	t.Run("codex lists the hooks trusted", func(t *testing.T) {
		start := time.Now()
		c := startAppServer(t, h, codex)
		c.call(t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "airlock-e2e", "version": "0"}})
		c.notify(t, "initialized")
		var list struct {
			Data []struct {
				Hooks []struct {
					Key, Command, TrustStatus, CurrentHash string
					Enabled                                bool
				}
			}
		}
		c.callInto(t, "hooks/list", map[string]any{"cwds": []string{h.proj}}, &list)
		c.close(t)
		t.Logf("codex app-server hooks/list in %v: %+v", time.Since(start).Round(time.Millisecond), list)
		got := map[string]string{}
		for _, d := range list.Data {
			for _, hk := range d.Hooks {
				if hk.Enabled {
					got[hk.Key] = hk.Command + " " + hk.TrustStatus
				}
			}
		}
		hook := filepath.Join(bin, "airlock-hook")
		for key, want := range map[string]string{
			hooksJSON + ":pre_tool_use:0:0":  hook + " --agent codex trusted",
			hooksJSON + ":post_tool_use:0:0": hook + " --agent codex --post trusted",
		} {
			if got[key] != want {
				t.Errorf("codex lists %s as %q, want %q (all: %v)", key, got[key], want, got)
			}
		}
		// doctor asks the same Codex
		env := append(h.env[:len(h.env):len(h.env)], "PATH="+filepath.Dir(codex)+string(os.PathListSeparator)+strings.TrimPrefix(h.env[0], "PATH="))
		out, errOut, _, _ := runIn(t, h.proj, env, filepath.Join(bin, "airlock"), "doctor", "--verbose")
		if !strings.Contains(out, "gated (Codex: trusted)") {
			t.Errorf("airlock doctor does not say Codex confirmed its trust:\n%s%s", out, errOut)
		}
	})

	t.Run("gemini runs its BeforeTool hook", func(t *testing.T) {
		api := newFakeGemini(t, "run_shell_command", map[string]any{"command": "echo hooked-by-gemini"})
		env := append(h.env[:len(h.env):len(h.env)], "GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL="+api.url,
			"GEMINI_CLI_TRUST_WORKSPACE=true")
		out, errOut, code, took := runIn(t, h.proj, env, gemini, "-p", "run it", "--output-format", "stream-json", "--yolo")
		t.Logf("requests:\n%s", api.log())
		t.Logf("gemini -p: exit %d in %v\nstdout:\n%s\nstderr:\n%s", code, took.Round(time.Millisecond), out, errOut)
		n := 0
		recs := readAudit(t, h.airlockHome)
		for _, r := range recs {
			t.Logf("audit: %+v", r)
			if r.Event == "decision" && r.Source == "hook" {
				n++
			}
		}
		outcome := slices.ContainsFunc(recs, func(r auditRecord) bool { return r.Event == "outcome" && r.Source == "hook" })
		if n == 0 || !outcome {
			t.Errorf("airlock-hook recorded %d decisions and outcome %v for Gemini's shell call: Gemini did not run the BeforeTool and AfterTool hooks init wrote\nrequests: %s", n, outcome, api.log())
		}
	})

	t.Run("codex runs its PreToolUse hook", func(t *testing.T) {
		// one turn: the model runs a shell command; what airlock-hook
		// recorded of it
		turn := func() (decided, outcome bool) {
			api := newFakeResponses(t, "exec_command", `{"cmd":"echo hooked-by-codex"}`)
			env := append(h.env[:len(h.env):len(h.env)], "FAKE_API_KEY=fake")
			before := len(readAudit(t, h.airlockHome))
			out, errOut, code, took := runIn(t, h.proj, env, codex, "exec", "--json", "--skip-git-repo-check",
				"-c", `model_provider="fake"`, "-c", `model="gpt-fake"`,
				"-c", `model_providers.fake={name="fake", base_url="`+api.url+`/v1", env_key="FAKE_API_KEY", wire_api="responses"}`,
				"--", "run it")
			t.Logf("codex exec: exit %d in %v\nrequests:\n%s\nstdout:\n%s\nstderr:\n%s", code, took.Round(time.Millisecond), api.log(), out, errOut)
			if !strings.Contains(out, "hooked-by-codex") {
				t.Fatalf("codex did not run the model's command: the turn proves nothing")
			}
			recs := readAudit(t, h.airlockHome)[before:]
			decided = slices.ContainsFunc(recs, func(r auditRecord) bool { return r.Event == "decision" && r.Source == "hook" })
			outcome = slices.ContainsFunc(recs, func(r auditRecord) bool { return r.Event == "outcome" && r.Source == "hook" })
			return decided, outcome
		}
		// control: without the trust init recorded, Codex skips the hook
		// (so the test can fail)
		cfg := filepath.Join(h.home, ".codex", "config.toml")
		trusted, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, originals[cfg], 0o600); err != nil {
			t.Fatal(err)
		}
		if d, o := turn(); d || o {
			t.Errorf("control: Codex ran an untrusted hook (decision %v, outcome %v): the trust is not what makes it run", d, o)
		}
		if err := os.WriteFile(cfg, trusted, 0o600); err != nil {
			t.Fatal(err)
		}
		if d, o := turn(); !d || !o {
			t.Errorf("airlock-hook recorded decision %v, outcome %v for Codex's shell call: Codex did not run the hooks init wrote and trusted", d, o)
		}
	})

	if v, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "verify"); code != 0 {
		t.Errorf("airlock verify: exit %d\n%s%s", code, v, errOut)
	}
	out, errOut, code, _ = runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "uninstall", "-y")
	if code != 0 {
		t.Fatalf("airlock uninstall -y: exit %d\n%s%s", code, out, errOut)
	}
	for path, want := range originals {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("uninstall did not restore %s byte for byte (%v):\n got %q\nwant %q", path, err, got, want)
		}
	}
	if _, err := os.Stat(hooksJSON); !os.IsNotExist(err) {
		t.Errorf("%s outlived uninstall (%v)", hooksJSON, err)
	}
}

// fakeGemini is Gemini's model API on 127.0.0.1: the routing request gets
// a JSON text, the first turn one function call, the next one text.
type fakeGemini struct {
	url  string
	mu   sync.Mutex
	reqs []string
}

func newFakeGemini(t *testing.T, tool string, args map[string]any) *fakeGemini {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGemini{url: "http://" + ln.Addr().String()}
	turns := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, time.Now().Format("15:04:05.000")+" "+r.Method+" "+r.URL.Path+" "+fmt.Sprint(len(body)))
		f.mu.Unlock()
		text := func(s string) map[string]any {
			return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": s}}}, "finishReason": "STOP"}},
				"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ":generateContent"):
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(text(`{"complexity_reasoning":"x","complexity_score":10}`))
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			f.mu.Lock()
			turns++
			n := turns
			f.mu.Unlock()
			ans := text("done")
			if n == 1 {
				ans = map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
					"parts": []any{map[string]any{"functionCall": map[string]any{"name": tool, "args": args}}}}, "finishReason": "STOP"}},
					"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
			}
			b, _ := json.Marshal(ans)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", b)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeGemini) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.reqs, "\n")
}

// newFakeResponses is OpenAI's Responses API on 127.0.0.1 for a Codex
// custom provider: the first turn one function call, the next one text.
func newFakeResponses(t *testing.T, tool, args string) *fakeGemini {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGemini{url: "http://" + ln.Addr().String()}
	turns := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, time.Now().Format("15:04:05.000")+" "+r.Method+" "+r.URL.Path+" "+fmt.Sprint(len(body)))
		if strings.HasSuffix(r.URL.Path, "/responses") {
			turns++
		}
		n := turns
		f.mu.Unlock()
		if !strings.HasSuffix(r.URL.Path, "/responses") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data": []}`)
			return
		}
		item := map[string]any{"type": "message", "role": "assistant", "id": "msg_2",
			"content": []any{map[string]any{"type": "output_text", "text": "done", "annotations": []any{}}}}
		if n == 1 {
			item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": tool, "arguments": args}
		}
		id := fmt.Sprintf("resp_%d", n)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": id}},
			{"type": "response.output_item.done", "output_index": 0, "item": item},
			{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}
