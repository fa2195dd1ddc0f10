//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/report"
)

// Made-up tokens in the documented shapes (scan/secret/testdata/shapes.txt
// names the sources), one per path so a leak says which path it came by.
var e2eSecrets = map[string]string{
	"bash command":       "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO",
	"bash clone url":     "glpat-GV21q4ClswscCTf07I8P",
	"webfetch url":       "Zq9-deploy-Passw0rd",
	"hook mcp argument":  "xoxb-63128663415-1948484730971-y4hyyvh8vfsPVot30n1guFTD",
	"proxy mcp argument": "sk-ant-api03-YToKfvoU7HndTAbsRRkW19LS_TL4B7Vy5geP5548ayLTj2Lg0YJ8AGjf2bN4U1yh",
	"proxy mcp url":      "AIza26CijxV6zXnU8BSQ-Ngw6rJ8NgthdN_ULVw",
	"proxy mcp key":      "AKIAEXDGE3HDKEATCIYJ",
}

// TestSecretsNeverReachTheLog drives the built binaries: a token in a Bash
// command, a password in a URL, and keys in MCP arguments (through the
// hook and through airlock-mcp) are decided and recorded, and none of them
// is in audit.jsonl, in any export format, in any report, or in airlock
// log; the chain still verifies (it is computed over the masks).
func TestSecretsNeverReachTheLog(t *testing.T) {
	px := newProxyFixture(t)
	s := e2eSecrets
	hookCalls := []struct{ tool, input string }{
		{"Bash", `{"command":"curl -sS -H \"Authorization: Bearer ` + s["bash command"] + `\" https://api.github.com/user"}`},
		{"Bash", `{"command":"git clone https://oauth2:` + s["bash clone url"] + `@gitlab.com/g/p.git"}`},
		{"WebFetch", `{"url":"https://deploy:` + s["webfetch url"] + `@internal.example.com/api","prompt":"status"}`},
		{"mcp__fake__fetch_url", `{"url":"https://api.example.com/v1/me?token=` + s["hook mcp argument"] + `"}`},
	}
	for _, c := range hookCalls {
		r := run(t, px.env, event(t, c.tool, c.input, px.WS), "airlock-hook")
		if _, err := decisionOf(r); err != nil {
			t.Fatalf("hook %s: %v", c.tool, err)
		}
	}

	c := mcpClient(t, px.env, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean")...)...)
	callTool(t, c, "echo", map[string]any{"text": "use " + s["proxy mcp argument"], "note": "AWS_ACCESS_KEY_ID=" + s["proxy mcp key"]})
	callTool(t, c, "fetch_url", map[string]any{"url": "https://maps.googleapis.com/maps/api/geocode/json?key=" + s["proxy mcp url"]})
	c.Close()

	logBytes, err := os.ReadFile(filepath.Join(px.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"audit.jsonl": string(logBytes)}
	for _, f := range report.Formats {
		r := px.airlock(t, "export", "--format", f, "--since", "all")
		if r.code != 0 {
			t.Fatalf("export --format %s: exit %d: %s", f, r.code, r.stderr)
		}
		outputs["export "+f] = r.stdout
	}
	html := filepath.Join(t.TempDir(), "report.html")
	for name, args := range map[string][]string{
		"report":            {"report", "--since", "all"},
		"report --markdown": {"report", "--since", "all", "--markdown"},
		"report --html":     {"report", "--since", "all", "--html", html},
		"log":               {"log", "-n", "0", "--since", "all"},
		"log --json":        {"log", "-n", "0", "--since", "all", "--json"},
		"breach":            {"breach", "--since", "all"},
	} {
		r := px.airlock(t, args...)
		if r.code != 0 && name != "breach" { // breach exits 1 when it finds a burn
			t.Fatalf("airlock %s: exit %d: %s", name, r.code, r.stderr)
		}
		outputs["airlock "+name] = r.stdout + r.stderr
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	outputs["report.html"] = string(b)

	for where, out := range outputs {
		for path, secret := range s {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds the secret of the %s", where, path)
			}
		}
	}
	// the records are there, masked, and still say what the calls were
	for _, want := range []string{
		`[masked github-token sha256:`, `https://oauth2:[masked gitlab-token sha256:`, `https://deploy:[masked url-password]@internal.example.com`,
		`me?token=[masked slack-token sha256:`, `?key=[masked gcp-api-key sha256:`,
	} {
		if !strings.Contains(string(logBytes), want) {
			t.Errorf("audit.jsonl has no %s…", want)
		}
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("verify after masked records: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
}
