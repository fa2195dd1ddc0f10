//go:build unix

package e2e

import (
	"bytes"
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

// BenchmarkSpawnTrue is the yardstick: /bin/true spawned the same way,
// with the same event on stdin.
func BenchmarkSpawnTrue(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatalf("no true on PATH: %v", err)
	}
	spawnLoop(b, truePath)
}

// BenchmarkSpawnEmptyGo is the floor for any Go program here: a static
// binary whose main does nothing.
func BenchmarkSpawnEmptyGo(b *testing.B) {
	spawnLoop(b, filepath.Join(bin, "empty-go"))
}

func spawnLoop(b *testing.B, path string) {
	ev := event(b, "Read", `{"file_path":"/tmp/x"}`, "/tmp")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(path)
		cmd.Stdin = bytes.NewReader(ev)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
