package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentairlock/airlock/policy"
)

// The launch overhead of the sandbox (DESIGN.md's target: ≤ 10 ms added
// for a workspace of 10,000 files): walk, ruleset, restriction, fork and
// exec, against exec'ing /bin/true alone.

func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSandboxTrue10kWorkspace(b *testing.B) {
	benchLaunch(b, benchWorkspace(b, false))
}

// With a .env at the workspace root the walk cannot grant the workspace
// whole: it splits it into its children.
func BenchmarkSandboxTrue10kWorkspaceWithSecret(b *testing.B) {
	benchLaunch(b, benchWorkspace(b, true))
}

// The walk and the ruleset alone.
func BenchmarkPrepare10kWorkspace(b *testing.B) {
	o := benchWorkspace(b, false)
	for b.Loop() {
		plan, err := Prepare(o)
		if err != nil {
			b.Fatal(err)
		}
		plan.Close()
	}
}

func benchLaunch(b *testing.B, o Options) {
	for b.Loop() {
		plan, err := Prepare(o)
		if err != nil {
			b.Fatal(err)
		}
		status, err := plan.Run()
		plan.Close()
		if err != nil || status != 0 {
			b.Fatalf("status %d, err %v", status, err)
		}
	}
}

// benchWorkspace makes 100 directories of 100 files under a fake home.
func benchWorkspace(b *testing.B, secret bool) Options {
	if kernelABI() == 0 {
		b.Skip("no Landlock")
	}
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home, ws, tmp := root+"/home", root+"/home/proj", root+"/tmp"
	for _, d := range []string{ws + "/.git", tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for d := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if secret {
		if err := os.WriteFile(ws+"/.env", []byte("T=1"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	p, err := policy.LoadProfile("default", policy.Vars{Workspace: ws, Home: home, Tmp: tmp, User: "dev", AirlockHome: home + "/.airlock"})
	if err != nil {
		b.Fatal(err)
	}
	return Options{Argv: []string{"/bin/true"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Policy: p}
}
