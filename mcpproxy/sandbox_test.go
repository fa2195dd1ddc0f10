package mcpproxy

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/sandbox"
)

func TestParseSandboxFlag(t *testing.T) {
	a, err := parseArgs([]string{"--name", "fs", "--sandbox", "--", "node", "x.js"})
	if err != nil || !a.sandbox || a.name != "fs" || len(a.argv) != 2 {
		t.Fatalf("%+v %v", a, err)
	}
	a, err = parseArgs([]string{"--name", "fs", "--", "node", "--sandbox"})
	if err != nil || a.sandbox {
		t.Fatalf("a --sandbox after -- is the server's: %+v %v", a, err)
	}
}

func TestSandboxOffLinux(t *testing.T) {
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		t.Skip("Linux and macOS have the sandbox")
	}
	var out, errb strings.Builder
	code := Main([]string{"--name", "fs", "--sandbox", "--", "true"}, strings.NewReader(""), &out, &errb)
	if code != exitConfig || !strings.Contains(errb.String(), "the kernel sandbox runs on Linux and macOS only") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

func TestGlobBase(t *testing.T) {
	for in, want := range map[string]string{
		"/w/data/**":       "/w/data",
		"/w/data":          "/w/data",
		"/w/*.md":          "/w",
		"/w/src/{a,b}/**":  "/w/src",
		"/**":              "/",
		"**/x":             "/",
		"/home/u/notes/a?": "/home/u/notes",
	} {
		if got := globBase(in); got != want {
			t.Errorf("globBase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageTree(t *testing.T) {
	for in, want := range map[string]string{
		"/r/.cache/npm/node_modules/@s/fs/dist/index.js":                 "/r/.cache/npm/node_modules",
		"/r/.cache/npm/node_modules/a/node_modules/b/index.js":           "/r/.cache/npm/node_modules",
		"/home/u/servers/mine/server.py":                                 "/home/u/servers/mine",
		"/home/u/.nvm/versions/node/v22/lib/node_modules/x/bin/serve.js": "/home/u/.nvm/versions/node/v22/lib/node_modules",
	} {
		if got := packageTree(in); got != want {
			t.Errorf("packageTree(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServerProfile(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	pkg := filepath.Join(root, "pkgs", "node_modules", "srv")
	for _, d := range []string{ws, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(pkg, "index.js")
	if err := os.WriteFile(script, []byte("//"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := policy.Vars{Workspace: ws, Home: root, Tmp: filepath.Join(root, "tmp"), User: "u", AirlockHome: filepath.Join(root, ".airlock")}
	g := &gate.Gate{Policy: &policy.Policy{Vars: vars}}
	o := Options{Name: "fs", Argv: []string{"sh", script}, Dir: ws, Gate: g}

	pr := serverProfile(o)
	want := []sandbox.Root{{Path: ws}, {Path: filepath.Join(root, "pkgs", "node_modules")}, {Path: vars.Tmp, Write: true}}
	if !sameRoots(pr.roots, want) || !pr.network || !strings.Contains(pr.source, "read-only") {
		t.Fatalf("no contract: %+v", pr)
	}

	if err := os.MkdirAll(vars.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vars.AirlockHome, contracts.FileName), []byte("servers:\n  fs:\n    fs: ['${workspace}/data/**', '${home}/notes/*.md']\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := contracts.Load(vars.AirlockHome, vars)
	if err != nil {
		t.Fatal(err)
	}
	g.Contracts = contracts.GateView{Set: set}
	pr = serverProfile(o)
	want = []sandbox.Root{{Path: filepath.Join(ws, "data"), Write: true}, {Path: filepath.Join(root, "notes"), Write: true}, {Path: filepath.Join(root, "pkgs", "node_modules")}, {Path: vars.Tmp, Write: true}}
	if !sameRoots(pr.roots, want) || pr.network || !strings.Contains(pr.source, "contract") {
		t.Fatalf("contract: %+v", pr)
	}
}

func sameRoots(a, b []sandbox.Root) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRunTreesSpareHome(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := filepath.Join(bin, "srv")
	if err := os.WriteFile(srv, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(home, "server.js")
	if err := os.WriteFile(script, []byte("//"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runTrees([]string{srv, script}, home, home)
	if len(got) != 3 || got[0] != bin || got[2] != home {
		t.Fatalf("runTrees: %q", got)
	}
	g := &gate.Gate{Policy: &policy.Policy{Vars: policy.Vars{Home: home}}}
	pr := serverProfile(Options{Name: "x", Argv: []string{srv, script}, Dir: home, Gate: g})
	for _, r := range pr.roots {
		if covers(r.Path, home) {
			t.Errorf("the home was granted: %+v", pr.roots)
		}
	}
	if len(pr.gaps) != 1 {
		t.Errorf("gaps: %q", pr.gaps)
	}
}
