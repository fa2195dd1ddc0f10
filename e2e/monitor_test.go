//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/corpus"
)

// tmuxPane drives one program in a detached tmux session on a private
// server, the way a person at a 120x40 terminal would.
type tmuxPane struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
}

func newTmuxPane(t *testing.T, env []string) *tmuxPane {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("AIRLOCK_TMUX_TESTS") == "optional" {
			t.Skipf("tmux not found and AIRLOCK_TMUX_TESTS=optional: %v", err)
		}
		t.Fatalf("tmux not found (install tmux, or set AIRLOCK_TMUX_TESTS=optional to skip): %v", err)
	}
	p := &tmuxPane{t: t, tmux: tmux, sock: fmt.Sprintf("airlock-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), env: env}
	t.Cleanup(func() { _, _ = p.cmd("kill-server") })
	return p
}

func (p *tmuxPane) cmd(args ...string) (string, error) {
	c := exec.Command(p.tmux, append([]string{"-L", p.sock, "-f", os.DevNull}, args...)...)
	c.Env = append(p.env, "TERM=xterm-256color")
	out, err := c.CombinedOutput()
	return string(out), err
}

func (p *tmuxPane) must(args ...string) string {
	p.t.Helper()
	out, err := p.cmd(args...)
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (p *tmuxPane) capture() string {
	p.t.Helper()
	return p.must("capture-pane", "-p", "-t", "board")
}

// waitFor polls the screen (tmux has no event to wait on) for up to ten
// seconds until ok accepts it, and fails naming what it waited for.
func (p *tmuxPane) waitFor(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	screen := ""
	for time.Now().Before(deadline) {
		if screen = p.capture(); ok(screen) {
			return screen
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("waited 10 s for %s; the screen is:\n%s", what, screen)
	return ""
}

func containsAll(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestMonitorBoardFollowsLiveDecisions runs `airlock monitor` in a real
// terminal (tmux) while the built airlock-hook decides calls, with the log
// rotating every few records: the board must show each new decision and
// its count, keep the chain intact across the rotations, filter blocks on
// b, open the whole record on Enter and go back on Esc, flag a call that
// ran only because of observe mode, and exit cleanly on q.
func TestMonitorBoardFollowsLiveDecisions(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(fx.Env(), "AIRLOCK_AUDIT_MAX_MB=0.002") // about 2 KB: a rotation every few records
	decide := func(tool, input, want string) {
		t.Helper()
		got, err := decisionOf(run(t, env, event(t, tool, input, fx.WS), "airlock-hook"))
		if err != nil || got != want {
			t.Fatalf("%s %s: got %s (%v), want %s", tool, input, got, err, want)
		}
	}
	decide("Bash", `{"command":"ls -la"}`, "allow")

	pane := newTmuxPane(t, env)
	exitFile := filepath.Join(fx.Root, "monitor.exit")
	var sh strings.Builder
	sh.WriteString("env")
	for _, kv := range env {
		sh.WriteString(" " + shellQuote(kv))
	}
	fmt.Fprintf(&sh, " %s monitor; echo \"exit $?\" > %s", shellQuote(filepath.Join(bin, "airlock")), shellQuote(exitFile))
	pane.must("new-session", "-d", "-s", "board", "-x", "120", "-y", "40", sh.String())

	pane.waitFor("the board with the first decision", containsAll(
		"allow 1   ask 0   block 0   hold 0", "chain ok (3 records)", "ls -la", "showing all", "q quit"))

	decide("Read", `{"file_path":"~/.ssh/id_rsa"}`, "block")
	for i := range 6 {
		decide("Bash", fmt.Sprintf(`{"command":"echo live-%d"}`, i), "allow")
	}
	screen := pane.waitFor("the new decisions and counts", containsAll(
		"allow 7   ask 0   block 1   hold 0", "secrets.ssh", "/.ssh/id_rsa", "echo live-5", "chain ok ("))
	if segs, _ := filepath.Glob(filepath.Join(fx.AirlockHome, "audit-*.jsonl")); len(segs) == 0 {
		t.Fatalf("the log never rotated, so the test did not cover following a rotation")
	}
	if strings.Contains(screen, "BROKEN") {
		t.Fatalf("the chain broke across rotations:\n%s", screen)
	}

	pane.must("send-keys", "-t", "board", "b")
	pane.waitFor("only blocks listed, the home shown as ~", func(s string) bool {
		return containsAll("showing blocks", "~/.ssh/id_rsa")(s) && !strings.Contains(s, "echo live-") && !strings.Contains(s, "ls -la")
	})

	// Enter opens the record under the cursor (the newest block), whole:
	// the exact path, every field; Esc goes back to the list
	pane.must("send-keys", "-t", "board", "Enter")
	pane.waitFor("the whole record", containsAll("result: block", "rule", "secrets.ssh",
		fx.Home+"/.ssh/id_rsa", "args_digest", "prev", "esc or q back"))
	pane.must("send-keys", "-t", "board", "Escape")
	pane.waitFor("the list again", containsAll("showing blocks", "TIME(UTC)", "~/.ssh/id_rsa"))

	// observe mode lets a secret read run: flagged on the list, in the
	// counts, by its own filter and in the record
	if r := run(t, env, nil, "airlock", "profile", "yolo"); r.code != 0 {
		t.Fatalf("airlock profile yolo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	decide("Read", `{"file_path":"~/.aws/credentials"}`, "allow")
	pane.must("send-keys", "-t", "board", "o")
	pane.waitFor("the observe-only run", func(s string) bool {
		return containsAll("showing observe-only runs", "observe:block", "~/.aws/credentials", "(1 only by observe)")(s) &&
			!strings.Contains(s, "id_rsa")
	})
	pane.must("send-keys", "-t", "board", "Enter")
	pane.waitFor("the observed record", containsAll("result: observe:block", "OBSERVE MODE: this call ran only because of observe mode",
		"observe", fx.Home+"/.aws/credentials"))
	pane.must("send-keys", "-t", "board", "q") // back to the list, not out
	pane.waitFor("the list after q in a record", containsAll("showing observe-only runs", "TIME(UTC)"))

	pane.must("send-keys", "-t", "board", "q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(exitFile)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			if got := strings.TrimSpace(string(b)); got != "exit 0" {
				t.Fatalf("airlock monitor quit with %q, want exit 0", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("airlock monitor still running 10 s after q; the screen is:\n%s", pane.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
