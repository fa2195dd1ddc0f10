//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/agentairlock/airlock/internal/flock"
)

// runGuarded runs the built airlock-hook, killing it after guard: a hook
// that needs the guard has hung, which the agent would turn into an allow.
func runGuarded(t *testing.T, env []string, stdin []byte, guard time.Duration) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "airlock-hook"))
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("airlock-hook still running after %s (killed): Claude Code would have let the call through; stderr %q", guard, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestHookBinaryDeniesPastItsDeadline: with the audit lock held by
// another process the decision cannot be recorded and waits; the built
// hook refuses by its deadline, in Claude Code's format, and exits.
func TestHookBinaryDeniesPastItsDeadline(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fx.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	lf, err := os.OpenFile(filepath.Join(fx.AirlockHome, audit.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		t.Fatal(err)
	}
	defer flock.Unlock(lf) //nolint:errcheck // closing releases it too
	env := append(fx.Env(), "AIRLOCK_HOOK_DEADLINE=1s")
	r := runGuarded(t, env, event(t, "Bash", `{"command":"ls"}`, fx.WS), 20*time.Second)
	if d, err := decisionOf(r); err != nil || d != "block" {
		t.Fatalf("decision %q (%v), want block; exit %d stderr %q", d, err, r.code, r.stderr)
	}
	for _, want := range []string{"did not decide within 1s", "AIRLOCK_FAIL_OPEN=1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q does not contain %q", r.stderr, want)
		}
	}
}

// TestHookBinaryRefusesUnboundedOverlays: an overlay that would hang the
// hook or exhaust its memory (a FIFO, a link to /dev/zero or to the
// hook's own stdout) or a link out of the repository is refused at once,
// naming the file: every call in the repository is blocked.
func TestHookBinaryRefusesUnboundedOverlays(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, overlay string)
	}{
		{"FIFO", func(t *testing.T, overlay string) {
			if err := syscall.Mkfifo(overlay, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"link to /dev/zero", func(t *testing.T, overlay string) { mustLink(t, "/dev/zero", overlay) }},
		{"link to /proc/self/fd/1", func(t *testing.T, overlay string) { mustLink(t, "/proc/self/fd/1", overlay) }},
		{"link to /etc/passwd", func(t *testing.T, overlay string) { mustLink(t, "/etc/passwd", overlay) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx, err := corpus.NewFixture(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			overlay := filepath.Join(fx.WS, ".airlock", "policy.yaml")
			if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
				t.Fatal(err)
			}
			c.make(t, overlay)
			// no deadline override: the refusal must come from the bounds
			r := runGuarded(t, fx.Env(), event(t, "Bash", `{"command":"ls"}`, fx.WS), 20*time.Second)
			if d, err := decisionOf(r); err != nil || d != "block" {
				t.Fatalf("decision %q (%v), want block; exit %d stderr %q", d, err, r.code, r.stderr)
			}
			for _, want := range []string{overlay, "blocks every call", "remove it"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q does not contain %q", r.stderr, want)
				}
			}
			if strings.Contains(r.stderr, "root:x:0") {
				t.Errorf("a file outside the repository reached stderr: %q", r.stderr)
			}
		})
	}
}

func mustLink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
