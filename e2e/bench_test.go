//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	// a file of its own per call: the same call over and over is a loop
	// (policy.Limits), which asks from the 21st
	evs := make([][]byte, 64)
	for i := range evs {
		evs[i] = event(b, "Read", `{"file_path":"`+filepath.Join(fx.WS, fmt.Sprintf("f%d.go", i))+`"}`, fx.WS)
	}
	env := fx.Env()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := run(b, env, evs[i%len(evs)], "airlock-hook")
		if r.code != 0 {
			b.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
}

// BenchmarkHookPostToolResult is the whole airlock-hook process for a
// PostToolUse event of an MCP tool: its result read for injection (taint)
// and for secrets (the mask), in a fresh process each time, as an agent
// runs it. result-10KB carries 10 KB of Go source (scan/secret's benign
// source.go.txt); result-tiny the same event with "ok": the difference of
// the two is what reading a 10 KB result adds (budget: 1 ms, issue 20).
// read-10KB and read-tiny are the same for Claude Code's native Read (its
// FileReadOutput shape), whose result is read for secrets too.
func BenchmarkHookPostToolResult(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "scan", "secret", "testdata", "benign", "source.go.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, tool, text string }{{"result-10KB", "mcp__notes__read_note", string(src)}, {"result-tiny", "mcp__notes__read_note", "ok"},
		{"read-10KB", "Read", string(src)}, {"read-tiny", "Read", "ok"}} {
		b.Run(c.name, func(b *testing.B) {
			fx, err := corpus.NewFixture(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			var result any = []any{map[string]any{"type": "text", "text": c.text}}
			input := map[string]any{"id": "1"}
			if c.tool == "Read" {
				p := filepath.Join(fx.WS, "source.go")
				result = map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": c.text,
					"numLines": strings.Count(c.text, "\n") + 1, "startLine": 1, "totalLines": strings.Count(c.text, "\n") + 1}}
				input = map[string]any{"file_path": p}
			}
			resp, err := json.Marshal(result)
			if err != nil {
				b.Fatal(err)
			}
			ev, err := json.Marshal(map[string]any{"session_id": "e2e-bench", "transcript_path": "/dev/null", "cwd": fx.WS,
				"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": c.tool,
				"tool_input": input, "tool_response": json.RawMessage(resp), "tool_use_id": "toolu_e2e"})
			if err != nil {
				b.Fatal(err)
			}
			env := fx.Env()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := run(b, env, ev, "airlock-hook")
				if r.code != 0 || r.stdout != "" {
					// a benign result is neither warned about nor replaced
					b.Fatalf("exit %d: %q %s", r.code, r.stdout, r.stderr)
				}
			}
		})
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
