package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

// BenchmarkHookProcess is the whole airlock-hook process for one benign
// Read: spawn, load the policy, decide, append to the audit chain, exit.
// Compare with BenchmarkSpawnTrue from the same run (target: ≤ 3×).
func BenchmarkHookProcess(b *testing.B) {
	fx, err := corpus.NewFixture(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ev := event(b, "Read", `{"file_path":"`+filepath.Join(fx.WS, "main.go")+`"}`, fx.WS)
	env := fx.Env()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := run(b, env, ev, "airlock-hook")
		if r.code != 0 {
			b.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
}

// BenchmarkSpawnTrue is the floor: spawning /bin/true the same way.
func BenchmarkSpawnTrue(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatalf("no true on PATH: %v", err)
	}
	for i := 0; i < b.N; i++ {
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
	}
}
