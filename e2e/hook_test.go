//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

// decisionOf reads the hook's answer the way Claude Code does.
func decisionOf(r result) (string, error) {
	switch r.code {
	case 2:
		if !strings.HasPrefix(r.stderr, "Airlock blocked this call: ") {
			return "", fmt.Errorf("exit 2 without the block message: %q", r.stderr)
		}
		return "block", nil
	case 0:
		out := strings.TrimSpace(r.stdout)
		if out == "" {
			return "allow", nil
		}
		var v struct {
			HookSpecificOutput struct {
				HookEventName      string `json:"hookEventName"`
				PermissionDecision string `json:"permissionDecision"`
				Reason             string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			return "", fmt.Errorf("stdout is not hook JSON: %q", out)
		}
		h := v.HookSpecificOutput
		if h.HookEventName != "PreToolUse" || h.PermissionDecision != "ask" || h.Reason == "" {
			return "", fmt.Errorf("unexpected hook JSON: %q", out)
		}
		return "ask", nil
	}
	return "", fmt.Errorf("exit %d (Claude Code would let this through): %s", r.code, r.stderr)
}

// TestHookBinaryCorpus runs every corpus case through the built
// airlock-hook, then checks the audit chain holds every decision.
func TestHookBinaryCorpus(t *testing.T) {
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpus.Case
	for _, f := range []string{"attacks.txt", "benign.txt"} {
		cs, err := fx.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	env := fx.Env()
	jobs := make(chan corpus.Case)
	var mu sync.Mutex
	passed := 0
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				r := run(t, env, event(t, c.Tool, c.Input, fx.WS), "airlock-hook")
				got, err := decisionOf(r)
				ok := err == nil && (got == c.Expect || (c.Expect == "ask+" && (got == "ask" || got == "block")))
				mu.Lock()
				if ok {
					passed++
				} else {
					t.Errorf("%s %s %s: want %s, got %s %v (stderr %q)", c.Name(), c.Tool, c.Input, c.Expect, got, err, r.stderr)
				}
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	t.Logf("airlock-hook binary: %d/%d corpus cases as expected", passed, len(cases))

	v := run(t, env, nil, "airlock", "verify")
	if v.code != 0 {
		t.Fatalf("airlock verify after the corpus: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	want := fmt.Sprintf("intact: %d records", len(cases)+2) // + audit_start and one gate_config
	if !strings.Contains(v.stdout, want) {
		t.Errorf("verify: want %q, got %q", want, v.stdout)
	}
}

// TestHookBinaryOversized: the generated oversized attacks, through the
// binary (stdin of over a megabyte included).
func TestHookBinaryOversized(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Oversized() {
		r := run(t, fx.Env(), event(t, c.Tool, c.Input, fx.WS), "airlock-hook")
		if r.code != 2 || !strings.Contains(r.stderr, c.Want) {
			t.Errorf("%s: exit %d, stderr %.200q; want exit 2 naming %q", c.Note, r.code, r.stderr, c.Want)
		}
	}
}

// TestHookFailsClosed: every internal failure is exit 2, the only code
// Claude Code treats as blocking, and names AIRLOCK_FAIL_OPEN.
func TestHookFailsClosed(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	benign := event(t, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(fx.WS, "README.md")), fx.WS)
	notDir := filepath.Join(fx.Root, "not-a-dir")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	brokenHome := filepath.Join(fx.Root, "broken-home")
	if err := os.MkdirAll(brokenHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(brokenHome, "policy.yaml"), []byte("mode: guard\nrules:\n  - id: x\n    acton: block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		env   []string
		stdin []byte
		args  []string
		want  int
	}{
		{"broken policy", []string{"AIRLOCK_HOME=" + brokenHome}, benign, nil, 2},
		{"broken policy, fail open", []string{"AIRLOCK_HOME=" + brokenHome, "AIRLOCK_FAIL_OPEN=1"}, benign, nil, 0},
		{"AIRLOCK_POLICY missing", []string{"AIRLOCK_POLICY=" + filepath.Join(fx.Root, "nope.yaml")}, benign, nil, 2},
		{"home is a file", []string{"AIRLOCK_HOME=" + notDir}, benign, nil, 2},
		{"home under a file", []string{"AIRLOCK_HOME=" + filepath.Join(notDir, "sub")}, benign, nil, 2},
		{"garbage stdin", nil, []byte("this is not json"), nil, 2},
		{"empty stdin", nil, nil, nil, 2},
		{"tool_input not an object", nil, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}`), nil, 2},
		{"no tool_name", nil, []byte(`{"hook_event_name":"PreToolUse","tool_input":{}}`), nil, 2},
		{"garbage PostToolUse never blocks", nil, []byte(`{"hook_event_name":"PostToolUse","tool_name":`), nil, 0},
		{"--post with garbage never blocks", nil, []byte("garbage"), []string{"--post"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append(fx.Env(), c.env...)
			r := run(t, env, c.stdin, "airlock-hook", c.args...)
			if r.code != c.want {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, c.want, r.stderr)
			}
			if c.want == 2 && !strings.Contains(r.stderr, "AIRLOCK_FAIL_OPEN=1") {
				t.Errorf("the refusal does not name AIRLOCK_FAIL_OPEN=1: %q", r.stderr)
			}
			if c.want == 2 && strings.Contains(r.stderr, "goroutine") {
				t.Errorf("a stack trace reached the user: %q", r.stderr)
			}
		})
	}
}

// TestHookBrokenPolicyNamesLine: the refusal says which file and line.
func TestHookBrokenPolicyNamesLine(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fx.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(fx.AirlockHome, "policy.yaml")
	if err := os.WriteFile(pol, []byte("mode: guard\ndefault: allow\nrules:\n  - id: x\n    tool: Bash\n    acton: block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, fx.Env(), event(t, "Bash", `{"command":"ls"}`, fx.WS), "airlock-hook")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	for _, want := range []string{pol + ":6", `"acton"`, `did you mean "action"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q does not contain %q", r.stderr, want)
		}
	}
}

// TestHookConcurrentAppendersKeepOneChain: 8 processes × 200 hook calls
// against one home leave one linear chain with an exact count.
func TestHookConcurrentAppendersKeepOneChain(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 1,600 processes; run without -short")
	}
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := fx.Env()
	const procs, calls = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				in := fmt.Sprintf(`{"file_path":%q}`, filepath.Join(fx.WS, fmt.Sprintf("f%d-%d.go", p, i)))
				r := run(t, env, event(t, "Read", in, fx.WS), "airlock-hook")
				if r.code != 0 {
					errs <- fmt.Errorf("writer %d call %d: exit %d: %s", p, i, r.code, r.stderr)
					return
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	v := run(t, env, nil, "airlock", "verify")
	if v.code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	want := fmt.Sprintf("intact: %d records", procs*calls+2) // + audit_start and one gate_config, however many processes saw the change
	if !strings.Contains(v.stdout, want) {
		t.Fatalf("verify: want %q, got %q", want, v.stdout)
	}
}

// TestHookBinaryClassCorpus runs the class corpora through the built
// airlock-hook: every case the in-process gate gets right (not listed in
// misses.tsv) the binary gets right too, and every listed one it misses
// too — the two doors decide alike.
func TestHookBinaryClassCorpus(t *testing.T) {
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	files, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	misses, err := corpus.Misses()
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpus.Case
	for _, f := range files {
		cs, err := fx.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d class cases", len(cases))
	}
	jobs := make(chan corpus.Case)
	var mu sync.Mutex
	agree := 0
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				env := fx.Env()
				if c.Profile != "" {
					env = append(env, "AIRLOCK_PROFILE="+c.Profile)
				}
				r := run(t, env, event(t, c.Tool, c.Input, fx.WS), "airlock-hook")
				got, err := decisionOf(r)
				ok := err == nil && (got == c.Expect || (c.Expect == "ask+" && (got == "ask" || got == "block")))
				missed := misses[c.MissKey()]
				mu.Lock()
				if ok == !missed {
					agree++
				} else {
					t.Errorf("%s %s %s: the hook says %s %v, the in-process gate %s (misses.tsv: %v)", c.Name(), c.Tool, c.Input, got, err, map[bool]string{true: "misses it", false: "gets it right"}[missed], missed)
				}
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	t.Logf("airlock-hook binary: %d/%d class cases decided as in process", agree, len(cases))
}
