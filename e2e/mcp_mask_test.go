//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPProxyMasksSecretsInResults: what the real npm servers hand back
// is read before the client sees it — server-everything's environment
// tool with a GITHUB_TOKEN in its environment, and server-filesystem
// reading a workspace file that holds an AWS key pair. Each secret is
// masked, the record names the rule and never the secret, and a control
// run straight to the server (no proxy) shows the secret would have
// reached the model.
func TestMCPProxyMasksSecretsInResults(t *testing.T) {
	npmDir(t)
	const token = "ghp_R9xZ2mQ7vL4kT1wY8nB3cF6hJ0dS5aE2gU7i"
	const akid, aksecret = "AKIAZ4Q7XN2MVB5KL3RT", "k9Jv2Lq8Rt5Wx1Zc7Nb4Mh6Pd3Fs0Gy8Ua2Ke5Io"
	px := newProxyFixture(t, "GITHUB_TOKEN="+token)
	keys := filepath.Join(px.WS, "infra-notes.txt")
	if err := os.WriteFile(keys, []byte("AWS_ACCESS_KEY_ID="+akid+"\nAWS_SECRET_ACCESS_KEY="+aksecret+"\nREGION=eu-west-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auditHas := func(t *testing.T, rule string) {
		t.Helper()
		found := false
		for _, rec := range auditRecords(t, px) {
			if strings.Contains(rec.Raw, token) || strings.Contains(rec.Raw, aksecret) || strings.Contains(rec.Raw, akid) {
				t.Fatalf("a record holds the secret: %s", rec.Raw)
			}
			if rec.Get("event").Str == "mcp_result" && strings.Contains(rec.Get("reason").Str, rule) {
				found = true
			}
		}
		if !found {
			t.Errorf("no mcp_result record names %q", rule)
		}
	}

	t.Run("server-everything get-env", func(t *testing.T) {
		direct := mcpClient(t, px.env, serverEverythingCmd(t)...)
		if res := callTool(t, direct, "get-env", map[string]any{}); !strings.Contains(textOf(res), token) {
			t.Fatalf("control: the server's environment tool does not return GITHUB_TOKEN, so the test cannot fail: %.300q", textOf(res))
		}
		c := mcpClient(t, px.env, px.proxied("everything", serverEverythingCmd(t)...)...)
		listAllTools(t, c)
		text := textOf(callTool(t, c, "get-env", map[string]any{}))
		if strings.Contains(text, token) || strings.Contains(text, token[4:]) {
			t.Fatalf("the token reached the client: %.400q", text)
		}
		if !strings.Contains(text, "GITHUB_TOKEN") || !strings.Contains(text, "secrets in it (keys, tokens) are masked") {
			t.Fatalf("the answer lost more than the secret, or says nothing: %.400q", text)
		}
		auditHas(t, "github")
	})

	t.Run("server-filesystem reads a key pair", func(t *testing.T) {
		direct := mcpClient(t, px.env, serverFilesystemCmd(t, px.Home)...)
		if res := callTool(t, direct, "read_text_file", map[string]any{"path": keys}); !strings.Contains(textOf(res), aksecret) {
			t.Fatalf("control: the file does not come back whole without the proxy: %q", textOf(res))
		}
		c := mcpClient(t, px.env, px.proxied("filesystem", serverFilesystemCmd(t, px.Home)...)...)
		listAllTools(t, c)
		text := textOf(callTool(t, c, "read_text_file", map[string]any{"path": keys}))
		if strings.Contains(text, aksecret) || strings.Contains(text, akid) {
			t.Fatalf("the key pair reached the client: %q", text)
		}
		if !strings.Contains(text, "REGION=eu-west-1") {
			t.Fatalf("the rest of the file did not: %q", text)
		}
		auditHas(t, "aws")
	})
}
