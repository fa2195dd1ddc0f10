//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// proxyFixture is a home, a workspace and an Airlock home for proxy runs.
type proxyFixture struct {
	corpus.Fixture
	env []string
}

func newProxyFixture(t testing.TB, extraEnv ...string) proxyFixture {
	t.Helper()
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ path, body string }{
		{filepath.Join(fx.Home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n"},
		{filepath.Join(fx.WS, "README.md"), "hello from the workspace\n"},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return proxyFixture{Fixture: fx, env: append(fx.Env(), extraEnv...)}
}

// proxied is the argv that runs server through airlock-mcp as NAME, in
// the fixture's workspace (the directory an agent starts servers in).
func (px proxyFixture) proxied(name string, server ...string) []string {
	return append([]string{"env", "-C", px.WS, filepath.Join(bin, "airlock-mcp"), "--name", name, "--"}, server...)
}

func (px proxyFixture) airlock(t testing.TB, args ...string) result {
	t.Helper()
	return run(t, px.env, nil, "airlock", args...)
}

func blockedText(res *mcp.CallToolResult) bool {
	return res.IsError && strings.HasPrefix(textOf(res), "Airlock blocked this call: ")
}

// auditEvents counts the records of each event in the fixture's log.
func (px proxyFixture) auditEvents(t testing.TB) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(px.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Event string }
		if json.Unmarshal([]byte(l), &r) == nil {
			n[r.Event]++
		}
	}
	return n
}

func TestMCPProxyCleanServer(t *testing.T) {
	px := newProxyFixture(t)
	logPath := filepath.Join(px.Root, "server.log")
	c := mcpClient(t, px.env, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean", "-log", logPath)...)...)

	// a call before any listing (the stateless protocol allows it): the
	// proxy lists the tools itself, pins them, then decides
	if res := callTool(t, c, "echo", map[string]any{"text": "hi"}); res.IsError || textOf(res) != "hi" {
		t.Fatalf("echo through the proxy: %+v", res)
	}
	tools, _ := listAllTools(t, c)
	if len(tools) != 4 {
		t.Fatalf("tools through the proxy: %v", toolNames(tools))
	}
	readme := filepath.Join(px.WS, "README.md")
	if res := callTool(t, c, "read_file", map[string]any{"path": readme}); res.IsError || !strings.Contains(textOf(res), "hello from the workspace") {
		t.Fatalf("workspace read: %+v", textOf(res))
	}
	cases := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"secret path", "read_file", map[string]any{"path": "~/.ssh/id_rsa"}, "ssh"},
		{"secret in a second argument", "echo", map[string]any{"text": "hi", "note": filepath.Join(px.Home, ".ssh", "id_rsa")}, "ssh"},
		{"secret in a nested argument", "echo", map[string]any{"text": "x", "opts": map[string]any{"files": []any{"~/.aws/credentials"}}}, "aws"},
		{"secret as a key", "echo", map[string]any{"text": "x", "~/.ssh/id_ed25519": true}, "ssh"},
		{"ghost argument", "read_file", map[string]any{"path": readme, "sidenote": "x"}, "sidenote"},
		{"wrong type", "add", map[string]any{"a": "two", "b": 3}, `"a"`},
		{"unknown tool", "run_command", map[string]any{"command": "id"}, "run_command"},
		{"metadata host", "fetch_url", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}, "169.254.169.254"},
	}
	for _, tc := range cases {
		res := callTool(t, c, tc.tool, tc.args)
		if !blockedText(res) || !strings.Contains(strings.ToLower(textOf(res)), strings.ToLower(tc.want)) {
			t.Errorf("%s: want a refusal naming %q, got isError=%v %q", tc.name, tc.want, res.IsError, textOf(res))
		}
	}
	c.Close()
	got, _ := os.ReadFile(logPath)
	for _, leak := range []string{".ssh", ".aws", "sidenote", "run_command", "169.254"} {
		if strings.Contains(string(got), leak) {
			t.Errorf("a refused call reached the server (%s)", leak)
		}
	}
	out := px.airlock(t, "pins")
	if out.code != 0 || !strings.Contains(out.stdout, "fake") || !strings.Contains(out.stdout, "pinned") {
		t.Errorf("airlock pins: %d %s %s", out.code, out.stdout, out.stderr)
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("audit chain after a proxy session: %s %s", v.stdout, v.stderr)
	}
	if ev := px.auditEvents(t); ev["decision"] < len(cases)+2 || ev["mcp_admit"] == 0 {
		t.Errorf("audit events: %v", ev)
	}
}

func TestMCPProxyPoisonedServerIsHeldUntilApproved(t *testing.T) {
	px := newProxyFixture(t)
	argv := px.proxied("fake", fakeMCPCmd(t, "-mode", "poisoned")...)
	c := mcpClient(t, px.env, argv...)
	listAllTools(t, c)
	res := callTool(t, c, "echo", map[string]any{"text": "hi"})
	if !blockedText(res) || !strings.Contains(textOf(res), "poisoned") {
		t.Fatalf("a server poisoned at first sight served a call: %q", textOf(res))
	}
	// the hook applies the same hold to Claude Code's mcp__fake__* calls
	hk := run(t, px.env, event(t, "mcp__fake__echo", `{"text":"hi"}`, px.WS), "airlock-hook")
	if hk.code != 2 || !strings.Contains(hk.stderr, "held") {
		t.Errorf("the hook let a held server's call through: exit %d %s", hk.code, hk.stderr)
	}
	if out := px.airlock(t, "pins", "approve", "fake"); out.code != 0 {
		t.Fatalf("pins approve: %s %s", out.stdout, out.stderr)
	}
	if res := callTool(t, c, "echo", map[string]any{"text": "hi"}); res.IsError {
		t.Fatalf("approved server still refused: %q", textOf(res))
	}
	if hk := run(t, px.env, event(t, "mcp__fake__echo", `{"text":"hi"}`, px.WS), "airlock-hook"); hk.code != 0 {
		t.Errorf("the hook still refuses an approved server: %s", hk.stderr)
	}
}

func TestMCPProxyRugPull(t *testing.T) {
	px := newProxyFixture(t)
	state := filepath.Join(px.Root, "rugpull.state")
	argv := px.proxied("fake", fakeMCPCmd(t, "-mode", "rugpull", "-state", state)...)

	first := mcpClient(t, px.env, argv...)
	listAllTools(t, first)
	if res := callTool(t, first, "echo", map[string]any{"text": "one"}); res.IsError {
		t.Fatalf("first start refused: %q", textOf(res))
	}
	first.Close()

	second := mcpClient(t, px.env, argv...)
	listAllTools(t, second)
	res := callTool(t, second, "read_file", map[string]any{"path": filepath.Join(px.WS, "README.md")})
	if !blockedText(res) || !strings.Contains(textOf(res), "run_command") || !strings.Contains(textOf(res), "echo") {
		t.Fatalf("rug pull: want a hold naming what changed, got %q", textOf(res))
	}
	diff := px.airlock(t, "pins", "diff", "fake")
	if diff.code != 0 || !strings.Contains(diff.stdout, "run_command") {
		t.Errorf("pins diff: %d %s %s", diff.code, diff.stdout, diff.stderr)
	}
	if out := px.airlock(t, "pins", "reject", "fake"); out.code != 0 {
		t.Fatalf("pins reject: %s", out.stderr)
	}
	if res := callTool(t, second, "echo", map[string]any{"text": "x"}); !blockedText(res) {
		t.Fatalf("reject released the hold: %q", textOf(res))
	}
	second.Close()

	// the changed toolset is served again: still held (rejected), until a
	// person forgets the pin and the next start pins afresh
	third := mcpClient(t, px.env, argv...)
	listAllTools(t, third)
	if res := callTool(t, third, "echo", map[string]any{"text": "x"}); !blockedText(res) {
		t.Fatalf("a rejected toolset was served: %q", textOf(res))
	}
	if out := px.airlock(t, "pins", "forget", "fake"); out.code != 0 {
		t.Fatalf("pins forget: %s", out.stderr)
	}
	third.Close()
}

func TestMCPProxyRugPullApproved(t *testing.T) {
	px := newProxyFixture(t)
	state := filepath.Join(px.Root, "rugpull.state")
	argv := px.proxied("fake", fakeMCPCmd(t, "-mode", "rugpull", "-state", state)...)
	first := mcpClient(t, px.env, argv...)
	listAllTools(t, first)
	first.Close()
	second := mcpClient(t, px.env, argv...)
	listAllTools(t, second)
	if res := callTool(t, second, "echo", map[string]any{"text": "x"}); !blockedText(res) {
		t.Fatalf("not held: %q", textOf(res))
	}
	if out := px.airlock(t, "pins", "approve", "fake"); out.code != 0 {
		t.Fatalf("pins approve: %s", out.stderr)
	}
	// the new description is poisoned-looking but a person approved it
	if res := callTool(t, second, "run_command", map[string]any{"command": "true"}); res.IsError {
		t.Fatalf("approved toolset refused: %q", textOf(res))
	}
}

func TestMCPProxyPagedListing(t *testing.T) {
	px := newProxyFixture(t)
	c := mcpClient(t, px.env, px.proxied("paged", fakeMCPCmd(t, "-mode", "paged")...)...)
	// the poisoned page is not shown: the listing ends before it
	tools, _ := listAllTools(t, c)
	for _, tl := range tools {
		if tl.Name == "lookup" {
			t.Fatalf("the poisoned tool on page 2 reached the client: %v", toolNames(tools))
		}
	}
	if res := callTool(t, c, "echo", map[string]any{"text": "x"}); !blockedText(res) || !strings.Contains(textOf(res), "lookup") {
		t.Fatalf("a poisoned tool on page 2 did not hold the toolset: %q", textOf(res))
	}
	clean := mcpClient(t, px.env, px.proxied("paged-clean", fakeMCPCmd(t, "-mode", "paged-clean")...)...)
	tools, pages := listAllTools(t, clean)
	if pages < 3 || len(tools) != 5 {
		t.Fatalf("paged listing through the proxy: %d tools on %d pages", len(tools), pages)
	}
	if res := callTool(t, clean, "echo", map[string]any{"text": "x"}); res.IsError {
		t.Fatalf("a clean paged server was held: %q", textOf(res))
	}
}

func TestMCPProxyRawProtocol(t *testing.T) {
	px := newProxyFixture(t)
	logPath := filepath.Join(px.Root, "server.log")
	r := rawStdio(t, px.env, px.proxied("raw", fakeMCPCmd(t, "-mode", "unsolicited", "-legacy", "-log", logPath)...)...)
	// Claude Code's probe before initialize: string id, error expected
	r.send(t, `{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{}}`)
	if l := r.recv(t); idOf(l) != `"server-discover-probe-1"` || !strings.Contains(l, "error") {
		t.Fatalf("server/discover: %s", l)
	}
	r.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if l := r.recv(t); idOf(l) != "0" {
		t.Fatalf("initialize: %s", l)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// the server's unsolicited answers (999, "ghost") never reach us
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if l := r.recv(t); idOf(l) != "1" {
		t.Fatalf("the client got a response it never asked for: %s", l)
	}
	// a batch (2025-03-26): one element refused by the proxy, the other
	// forwarded (mcp-go's server no longer answers batches, so what
	// reached it is read from its log)
	r.send(t, `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"~/.ssh/id_rsa"}}}]`)
	var arr []json.RawMessage
	if l := r.recv(t); json.Unmarshal([]byte(l), &arr) != nil || len(arr) != 1 || idOf(string(arr[0])) != "3" || !strings.Contains(string(arr[0]), "Airlock blocked this call") {
		t.Fatalf("batch refusal: %s", l)
	}
	// not JSON to us: answered, never forwarded
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":NaN}}}`)
	if l := r.recv(t); !strings.Contains(l, "-32700") {
		t.Fatalf("malformed line: %s", l)
	}
	r.stdin.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("the proxy did not exit cleanly when the client closed stdin: %v", err)
	}
	got, _ := os.ReadFile(logPath)
	if !strings.Contains(string(got), `"text":"ok"`) || strings.Contains(string(got), "id_rsa") || strings.Contains(string(got), "NaN") {
		t.Errorf("what reached the server:\n%s", got)
	}
	if n := px.auditEvents(t)["mcp_unsolicited"]; n != 2 {
		t.Errorf("want 2 mcp_unsolicited records, got %d", n)
	}
}

func TestMCPProxyLargeResultAndSampling(t *testing.T) {
	px := newProxyFixture(t)
	c := mcpClient(t, px.env, px.proxied("big", fakeMCPCmd(t, "-mode", "big")...)...)
	listAllTools(t, c)
	res := callTool(t, c, "big", map[string]any{})
	if res.IsError || len(textOf(res)) != 10<<20 {
		t.Fatalf("10 MB result: isError=%v, %d bytes", res.IsError, len(textOf(res)))
	}

	var sampled sync.WaitGroup
	sampled.Add(1)
	s := samplerFunc(func() { sampled.Done() })
	sc := mcpClientWith(t, px.env, []client.ClientOption{client.WithSamplingHandler(s)}, px.proxied("sample", fakeMCPCmd(t, "-mode", "sample")...)...)
	listAllTools(t, sc)
	res = callTool(t, sc, "ask_llm", map[string]any{"prompt": "hi"})
	if res.IsError || !strings.Contains(textOf(res), "sampled through the proxy") {
		t.Fatalf("sampling through the proxy (colliding ids): %q", textOf(res))
	}
	sampled.Wait()
}

type samplerFunc func()

func (f samplerFunc) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	f()
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled through the proxy")},
		Model:           "e2e", StopReason: "endTurn",
	}, nil
}

func TestMCPProxyLifecycle(t *testing.T) {
	px := newProxyFixture(t, "AIRLOCK_MCP_GRACE=300ms")
	t.Run("crash mid-call", func(t *testing.T) {
		c := mcpClient(t, px.env, px.proxied("crash", fakeMCPCmd(t, "-mode", "crash")...)...)
		listAllTools(t, c)
		if _, err := tryCallTool(t, c, "crash", map[string]any{}); err == nil {
			t.Fatal("a call to a server that died answered")
		}
		cmd := processOf(t, c)
		if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
			t.Fatalf("the proxy did not exit with the server's status 3: %v %v", err, cmd.ProcessState)
		}
	})
	t.Run("SIGTERM ignored, then killed", func(t *testing.T) {
		r := rawStdio(t, px.env, px.proxied("stubborn", fakeMCPCmd(t, "-mode", "ignoreterm", "-legacy")...)...)
		r.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		r.recv(t)
		start := time.Now()
		if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the proxy did not end a server that ignores SIGTERM")
		}
		if code := r.cmd.ProcessState.ExitCode(); code != 128+9 && code != -1 {
			t.Errorf("exit %d, want the killed server's 137", code)
		}
		if time.Since(start) < 250*time.Millisecond {
			t.Errorf("killed before the grace period")
		}
	})
	t.Run("stdin closed", func(t *testing.T) {
		r := rawStdio(t, px.env, px.proxied("eof", fakeMCPCmd(t, "-mode", "clean", "-legacy")...)...)
		r.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		r.recv(t)
		r.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("exit after EOF: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the proxy did not shut the server down when the client closed stdin")
		}
	})
}

// TestMCPProxyTwoProcessesOneServer is Codex's habit: two proxies for the
// same server at once. Both admit the same pin; neither loses it.
func TestMCPProxyTwoProcessesOneServer(t *testing.T) {
	px := newProxyFixture(t)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := mcpClient(t, px.env, px.proxied("twin", fakeMCPCmd(t, "-mode", "clean")...)...)
			for j := 0; j < 20; j++ {
				if res := callTool(t, c, "echo", map[string]any{"text": fmt.Sprint(j)}); res.IsError {
					t.Errorf("twin call refused: %q", textOf(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	if out := px.airlock(t, "pins"); !strings.Contains(out.stdout, "twin") || strings.Contains(out.stdout, "held") {
		t.Errorf("pins after two processes: %s", out.stdout)
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("verify: %s", v.stdout)
	}
}

func TestMCPProxyContracts(t *testing.T) {
	px := newProxyFixture(t)
	outside := filepath.Join(px.Root, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "data.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(px.WS, "link")); err != nil {
		t.Fatal(err)
	}
	contract := `servers:
  fake:
    enforced: true
    tools: [echo, read_file, fetch_url]
    fs: ["${workspace}/**"]
    net: []
    shell: false
    default: block
`
	if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(px.AirlockHome, "contracts.yaml"), []byte(contract), 0o600); err != nil {
		t.Fatal(err)
	}
	c := mcpClient(t, px.env, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean")...)...)
	listAllTools(t, c)
	if res := callTool(t, c, "read_file", map[string]any{"path": filepath.Join(px.WS, "README.md")}); res.IsError {
		t.Fatalf("read inside the contract: %q", textOf(res))
	}
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"dot-dot", "read_file", map[string]any{"path": px.WS + "/../../../outside/data.txt"}},
		{"percent-encoded dot-dot", "read_file", map[string]any{"path": px.WS + "/%2e%2e/%2e%2e/%2e%2e/outside/data.txt"}},
		{"symlink out of the workspace", "read_file", map[string]any{"path": filepath.Join(px.WS, "link", "data.txt")}},
		{"tool outside the contract", "add", map[string]any{"a": 1, "b": 2}},
		{"host outside the contract", "fetch_url", map[string]any{"url": "https://example.com/x"}},
	} {
		if res := callTool(t, c, tc.tool, tc.args); !blockedText(res) || !strings.Contains(textOf(res), "contract") {
			t.Errorf("%s: want a contract refusal, got %q", tc.name, textOf(res))
		}
	}
	// a URL in text the tool only echoes is a mention, not a destination
	if res := callTool(t, c, "echo", map[string]any{"text": "see https://example.com/x"}); blockedText(res) {
		t.Errorf("a URL in echoed text was refused: %q", textOf(res))
	}
	// the hook holds Claude Code's own mcp__fake__* calls to the same contract
	for _, tc := range []struct {
		tool, input string
		code        int
	}{
		{"mcp__fake__add", `{"a":1,"b":2}`, 2},
		{"mcp__fake__read_file", `{"path":"` + px.WS + `/../../../outside/data.txt"}`, 2},
		{"mcp__fake__read_file", `{"path":"` + filepath.Join(px.WS, "README.md") + `"}`, 0},
	} {
		hk := run(t, px.env, event(t, tc.tool, tc.input, px.WS), "airlock-hook")
		if hk.code != tc.code || (tc.code == 2 && !strings.Contains(hk.stderr, "contract")) {
			t.Errorf("hook %s %s: exit %d (want %d) %s", tc.tool, tc.input, hk.code, tc.code, hk.stderr)
		}
	}
}

// TestMCPProxyObservePromote records a footprint in observe mode and turns
// it into an enforced contract.
func TestMCPProxyObservePromote(t *testing.T) {
	px := newProxyFixture(t, "AIRLOCK_MODE=observe")
	c := mcpClient(t, px.env, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean")...)...)
	listAllTools(t, c)
	for i := 0; i < 3; i++ {
		f := filepath.Join(px.WS, "docs", fmt.Sprintf("f%d.txt", i))
		callTool(t, c, "read_file", map[string]any{"path": f})
	}
	callTool(t, c, "echo", map[string]any{"text": "hi"})
	c.Close()
	if out := px.airlock(t, "contracts", "show", "fake"); out.code != 0 || !strings.Contains(out.stdout, "read_file") {
		t.Fatalf("contracts show: %d %s %s", out.code, out.stdout, out.stderr)
	}
	out := px.airlock(t, "contracts", "promote", "fake")
	if out.code != 0 || !strings.Contains(out.stdout, "docs/**") {
		t.Fatalf("contracts promote: %d %s %s", out.code, out.stdout, out.stderr)
	}
	// enforced now (mode back to the default profile's guard)
	px2 := px
	px2.env = px.Env()
	c2 := mcpClient(t, px2.env, px2.proxied("fake", fakeMCPCmd(t, "-mode", "clean")...)...)
	if res := callTool(t, c2, "read_file", map[string]any{"path": filepath.Join(px.WS, "docs", "f1.txt")}); blockedText(res) {
		t.Errorf("an observed read is refused after promote: %q", textOf(res))
	}
	if res := callTool(t, c2, "read_file", map[string]any{"path": filepath.Join(px.WS, "README.md")}); !blockedText(res) {
		t.Errorf("a read outside the promoted contract went through: %q", textOf(res))
	}
}
