//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentsRealClientsRemote: each real agent's config names a remote
// server (server-everything's streamable HTTP mode on loopback); airlock
// init rewrites each into airlock-mcp --url, the agents connect through
// the bridge (Claude Code's and Gemini CLI's mcp list, then one turn each
// against a fake model API: the model calls a remote tool and reads its
// answer, then a call with a key's path whose refusal it reads as the
// tool's result; Codex's app-server lists the tools and calls one, and a
// refused call comes back as the tool result the model reads), and
// uninstall restores every file byte for byte.
func TestAgentsRealClientsRemote(t *testing.T) {
	claude := agentCLI(t, "@anthropic-ai/claude-code")
	gemini := agentCLI(t, "@google/gemini-cli")
	codex := agentCLI(t, "@openai/codex")
	h := newAgentHome(t)
	srv := startEverythingHTTP(t, "streamableHttp")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", srv.port)

	originals := map[string][]byte{}
	for rel, body := range map[string]string{
		".claude/settings.json": `{"enableAllProjectMcpServers": true}` + "\n",
		"proj/.mcp.json":        `{"mcpServers": {"claude-ev": {"type": "http", "url": "` + url + `"}}}` + "\n",
		".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": {"gemini-ev": {"httpUrl": "` + url + `"}}}` + "\n",
		".codex/config.toml":    "[mcp_servers.codex-ev]\nurl = \"" + url + "\"\n",
	} {
		originals[h.write(t, rel, []byte(body))] = []byte(body)
	}
	h.write(t, ".ssh/id_rsa", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n"))

	out, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "init")
	if code != 0 {
		t.Fatalf("airlock init: exit %d\n%s%s", code, out, errOut)
	}
	initLines := strings.Split(out, "\n")
	for cfg, name := range map[string]string{
		filepath.Join(h.proj, ".mcp.json"):                "claude-ev",
		filepath.Join(h.home, ".gemini", "settings.json"): "gemini-ev",
		filepath.Join(h.home, ".codex", "config.toml"):    "codex-ev",
	} {
		if want := cfg + ": " + name + ": wrapped (remote " + url + ", through airlock-mcp --url)"; !slices.Contains(initLines, want) {
			t.Errorf("airlock init output lacks %q:\n%s", want, out)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	listed := func(name string) string {
		return filepath.Join(bin, "airlock-mcp") + " --name " + name + " --url " + url
	}
	started := func(t *testing.T, name string) {
		t.Helper()
		for _, r := range readAudit(t, h.airlockHome) {
			if r.Event == "mcp_start" && strings.HasPrefix(r.Session, "mcp-"+name+"-") && strings.Contains(r.Detail, "remote "+url) {
				return
			}
		}
		t.Errorf("no mcp_start of %s naming the remote %s", name, url)
	}

	t.Run("claude", func(t *testing.T) {
		env := append(h.env[:len(h.env):len(h.env)], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
		out, errOut, code, _ := runIn(t, h.proj, env, claude, "mcp", "list")
		if code != 0 {
			t.Errorf("claude mcp list: exit %d, stderr:\n%s", code, errOut)
		}
		s := wrappedServer{name: "claude-ev"}
		checkListing(t, "claude", out, []wrappedServer{s}, func(wrappedServer) []string {
			return []string{"claude-ev: " + listed("claude-ev") + " - ✓ Connected", "claude-ev: " + listed("claude-ev") + " - ✔ Connected"}
		})
		started(t, "claude-ev")
		remoteTurn(t, claudeTurn, h, "mcp__claude-ev__", "claude")
	})

	t.Run("gemini", func(t *testing.T) {
		env := append(h.env[:len(h.env):len(h.env)], "GEMINI_CLI_TRUST_WORKSPACE=true")
		out, errOut, code, _ := runIn(t, h.proj, env, gemini, "mcp", "list")
		if code != 0 {
			t.Errorf("gemini mcp list: exit %d", code)
		}
		out += errOut
		s := wrappedServer{name: "gemini-ev"}
		checkListing(t, "gemini", out, []wrappedServer{s}, func(wrappedServer) []string {
			return []string{"✓ gemini-ev: " + listed("gemini-ev") + " (stdio) - Connected"}
		})
		started(t, "gemini-ev")
		remoteTurn(t, geminiTurn, h, "mcp_gemini-ev_", "gemini")
	})

	t.Run("codex", func(t *testing.T) {
		start := time.Now()
		c := startAppServer(t, h, codex)
		c.call(t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "airlock-e2e", "version": "0"}})
		c.notify(t, "initialized")
		var status struct {
			Data []struct {
				Name       string
				Tools      map[string]json.RawMessage
				ToolsError *string
			}
		}
		c.callInto(t, "mcpServerStatus/list", map[string]any{}, &status)
		if len(status.Data) != 1 || status.Data[0].Name != "codex-ev" || status.Data[0].ToolsError != nil || status.Data[0].Tools["echo"] == nil {
			t.Fatalf("mcpServerStatus/list: %+v", status)
		}
		var thread struct{ Thread struct{ ID string } }
		c.callInto(t, "thread/start", map[string]any{"cwd": h.proj, "ephemeral": true}, &thread)
		type toolResult struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
		call := func(tool string, args map[string]any) toolResult {
			var res toolResult
			c.callInto(t, "mcpServer/tool/call", map[string]any{"server": "codex-ev", "threadId": thread.Thread.ID, "tool": tool, "arguments": args}, &res)
			return res
		}
		if res := call("echo", map[string]any{"message": "hi from codex"}); res.IsError || len(res.Content) == 0 || res.Content[0].Text != "Echo: hi from codex" {
			t.Errorf("echo through codex and the bridge: %+v", res)
		}
		key := "file://" + filepath.Join(h.home, ".ssh", "id_rsa")
		if res := call("gzip-file-as-resource", map[string]any{"name": "k.gz", "data": key, "outputType": "resource"}); !res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "Airlock blocked this call") {
			t.Errorf("a secret path through codex and the bridge was not refused: %+v", res)
		}
		c.close(t)
		t.Logf("codex app-server through the bridge: status, thread and two tool calls in %v", time.Since(start).Round(time.Millisecond))
		started(t, "codex-ev")
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
			t.Errorf("uninstall did not restore %s byte for byte: %q, %v", path, got, err)
		}
	}
}

// remoteTurn: the real agent's model (a fake API) calls the wrapped
// remote server's echo, whose answer reaches the model, then its
// gzip-file-as-resource with a key's path, refused: the refusal reaches
// the model as the tool's result.
func remoteTurn(t *testing.T, turn func(*testing.T, agentHome, []toolCall) *fakeModel, h agentHome, prefix, agent string) {
	t.Helper()
	key := "file://" + filepath.Join(h.home, ".ssh", "id_rsa")
	m := turn(t, h, []toolCall{
		{prefix + "echo", map[string]any{"message": "hi from " + agent}},
		{prefix + "gzip-file-as-resource", map[string]any{"name": "k.gz", "data": key, "outputType": "resource"}},
	})
	if !m.carrying("Echo: hi from " + agent) {
		t.Errorf("%s: the remote echo's answer did not reach the model (last request %s)", agent, lastTail(m))
	}
	if !m.carrying("Airlock blocked this call") {
		t.Errorf("%s: the refusal of a key's path did not reach the model (last request %s)", agent, lastTail(m))
	}
	if m.carrying("not a real key") {
		t.Errorf("%s: the key reached the model", agent)
	}
}
