//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/sandbox"
)

// mcpSbxNeedKernel fails the test when the kernel has no Landlock, unless
// AIRLOCK_KERNEL_TESTS=optional: a sandbox test that skips looks exactly
// like one that passed.
func mcpSbxNeedKernel(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel sandbox is Linux-only")
	}
	if r := sandbox.Probe(); r.ABI < 1 {
		if os.Getenv("AIRLOCK_KERNEL_TESTS") == "optional" {
			t.Skipf("the kernel offers no Landlock (AIRLOCK_KERNEL_TESTS=optional)")
		}
		t.Fatalf("the kernel offers no Landlock; airlock-mcp --sandbox needs it (set AIRLOCK_KERNEL_TESTS=optional to skip)")
	}
}

// mcpSbxFixture is a proxy fixture whose temp dir is its own (the
// fixture's home lives under the system's, which the profile grants) and
// whose home holds a secret the policy does not know by name, with a
// symlink to it inside the workspace.
func mcpSbxFixture(t *testing.T) (px proxyFixture, secret, link string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	px = newProxyFixture(t, "TMPDIR="+tmp)
	secret = filepath.Join(px.Home, "notes", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("the launch code is 0000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(px.WS, "notes-link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	return px, secret, link
}

// sandboxed is the argv that runs server through airlock-mcp --sandbox.
func (px proxyFixture) sandboxed(name string, server ...string) []string {
	return append([]string{"env", "-C", px.WS, filepath.Join(bin, "airlock-mcp"), "--name", name, "--sandbox", "--"}, server...)
}

// TestMCPSandboxFilesystem runs the reference filesystem server under
// airlock-mcp --sandbox with the whole home as its own allowed root: the
// gate allows reading ~/notes/secret.txt (the policy has no rule against
// it, and the unsandboxed control proves it), the server would serve it,
// and the kernel refuses it, directly and through a symlink in the
// workspace. A workspace file still reads.
func TestMCPSandboxFilesystem(t *testing.T) {
	mcpSbxNeedKernel(t)
	npmDir(t)
	px, secret, link := mcpSbxFixture(t)
	readme := filepath.Join(px.WS, "README.md")
	const content = "launch code"

	// control: without the sandbox the gate and the server both let the
	// secret through, so what refuses it below is the kernel
	plain := mcpClient(t, px.env, px.proxied("fs", serverFilesystemCmd(t, px.Home)...)...)
	for _, path := range []string{secret, link} {
		if res := callTool(t, plain, "read_text_file", map[string]any{"path": path}); res.IsError || !strings.Contains(textOf(res), content) {
			t.Fatalf("unsandboxed control %s: the gate or the server refused it, the test proves nothing: %q", path, textOf(res))
		}
	}
	plain.Close()

	c := mcpClient(t, px.env, px.sandboxed("fs", serverFilesystemCmd(t, px.Home)...)...)
	if tools, _ := listAllTools(t, c); len(tools) < 10 {
		t.Fatalf("tools under the sandbox: %v", toolNames(tools))
	}
	if res := callTool(t, c, "read_text_file", map[string]any{"path": readme}); res.IsError || !strings.Contains(textOf(res), "hello from the workspace") {
		t.Fatalf("workspace read under the sandbox: %q\nstderr:\n%s", textOf(res), stderrOf(t, c))
	}
	for _, path := range []string{secret, link} {
		res := callTool(t, c, "read_text_file", map[string]any{"path": path})
		if !res.IsError || strings.Contains(textOf(res), content) {
			t.Errorf("read %s under the sandbox: want a tool error, got %q", path, textOf(res))
		}
		if blockedText(res) {
			t.Errorf("read %s: the gate refused it, not the kernel: %q", path, textOf(res))
		}
		if txt := textOf(res); !strings.Contains(txt, "EACCES") && !strings.Contains(strings.ToLower(txt), "permission denied") {
			t.Errorf("read %s: want the kernel's EACCES, got %q", path, txt)
		}
	}
	res := callTool(t, c, "read_multiple_files", map[string]any{"paths": []any{readme, secret}})
	if strings.Contains(textOf(res), content) || !strings.Contains(textOf(res), "hello from the workspace") {
		t.Errorf("read_multiple_files under the sandbox: %q", textOf(res))
	}
	// read-only: the workspace cannot be written without a contract
	res = callTool(t, c, "write_file", map[string]any{"path": filepath.Join(px.WS, "new.txt"), "content": "x"})
	if _, err := os.Stat(filepath.Join(px.WS, "new.txt")); err == nil || !res.IsError {
		t.Errorf("write into the read-only workspace: %q", textOf(res))
	}
	c.Close()

	errOut := stderrOf(t, c)
	for _, want := range []string{"airlock-mcp fs: sandbox on — Landlock ABI", "profile:  no enforced contract: the workspace read-only"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the banner lacks %q:\n%s", want, errOut)
		}
	}
	recs := mcpSbxRecords(t, px)
	if n := mcpSbxCount(recs, "sandbox_start"); n != 1 {
		t.Errorf("sandbox_start records: %d, want 1", n)
	}
	if n := mcpSbxCount(recs, "sandbox_end"); n != 1 {
		t.Errorf("sandbox_end records: %d, want 1", n)
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("verify: %s", v.stdout)
	}
}

// TestMCPSandboxContract: with a contract enforced for the server its fs
// is the kernel's too: the contract's tree reads and writes (the
// workspace-only profile is read-only), and with no net no TCP connect is
// granted.
func TestMCPSandboxContract(t *testing.T) {
	mcpSbxNeedKernel(t)
	npmDir(t)
	px, _, _ := mcpSbxFixture(t)
	data := filepath.Join(px.WS, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "a.txt"), []byte("inside the contract\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	contract := "servers:\n  fs:\n    tools: ['*']\n    fs: ['${workspace}/data/**']\n"
	if err := os.WriteFile(filepath.Join(px.AirlockHome, "contracts.yaml"), []byte(contract), 0o600); err != nil {
		t.Fatal(err)
	}
	// the kernel grants data/ read-write: without a contract the
	// workspace is read-only
	c := mcpClient(t, px.env, px.sandboxed("fs", serverFilesystemCmd(t, data)...)...)
	if res := callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(data, "a.txt")}); res.IsError || !strings.Contains(textOf(res), "inside the contract") {
		t.Fatalf("read inside the contract: %q\nstderr:\n%s", textOf(res), stderrOf(t, c))
	}
	out := filepath.Join(data, "b.txt")
	if res := callTool(t, c, "write_file", map[string]any{"path": out, "content": "written"}); res.IsError {
		t.Errorf("write inside the contract: %q", textOf(res))
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "written" {
		t.Errorf("write inside the contract: %q %v", b, err)
	}
	c.Close()
	if errOut := stderrOf(t, c); !strings.Contains(errOut, `profile:  the contract for "fs"`) || !strings.Contains(errOut, "network:  TCP connect and bind refused") && !strings.Contains(errOut, "network:  NOT restricted") {
		t.Errorf("banner:\n%s", errOut)
	}
}

func mcpSbxRecords(t *testing.T, px proxyFixture) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(px.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err == nil {
			out = append(out, r)
		}
	}
	return out
}

func mcpSbxCount(recs []map[string]any, event string) int {
	n := 0
	for _, r := range recs {
		if r["event"] == event {
			n++
		}
	}
	return n
}
