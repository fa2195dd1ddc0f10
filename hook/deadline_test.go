package hook

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/flock"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

func TestDeadline(t *testing.T) {
	cases := []struct {
		env  string
		want time.Duration
		warn bool
	}{
		{"", DefaultDeadline, false},
		{"2s", 2 * time.Second, false},
		{"150ms", 150 * time.Millisecond, false},
		{"25s", 25 * time.Second, false},
		{"26s", DefaultDeadline, true}, // never past the margin
		{"1h", DefaultDeadline, true},
		{"0", DefaultDeadline, true},
		{"-1s", DefaultDeadline, true},
		{"soon", DefaultDeadline, true},
		{"10", DefaultDeadline, true}, // no unit
	}
	for _, c := range cases {
		d, warn := deadline(func(k string) string {
			if k == deadlineEnv {
				return c.env
			}
			return ""
		})
		if d != c.want || (warn != "") != c.warn {
			t.Errorf("%s=%q: %s, warning %q; want %s, warning %v", deadlineEnv, c.env, d, warn, c.want, c.warn)
		}
	}
	if DefaultDeadline > AgentTimeout-5*time.Second {
		t.Errorf("the default deadline %s leaves less than 5 s before the agent's %s timeout", DefaultDeadline, AgentTimeout)
	}
}

// stuckEnv is a home and environment whose deadline is short.
func stuckEnv(t *testing.T, extra map[string]string) (airlockhome.Env, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{deadlineEnv: "200ms"}
	for k, v := range extra {
		vars[k] = v
	}
	getenv := func(k string) string { return vars[k] }
	return airlockhome.Env{Home: home, User: "dev", Tmp: os.TempDir(), AirlockHome: filepath.Join(root, "airlock"), Getenv: getenv}, ws
}

func benignEvent(name, cwd string) string {
	return `{"session_id":"s","cwd":"` + cwd + `","hook_event_name":"` + name + `","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{}}`
}

// TestHookAnswersByTheDeadlineWhenStuck: a decision that cannot finish
// (a read that never returns, the audit lock held by another process)
// is refused in Claude Code's format once the deadline passes; a --post
// hook and AIRLOCK_FAIL_OPEN=1 pass instead, as for any failure.
func TestHookAnswersByTheDeadlineWhenStuck(t *testing.T) {
	type stuck struct {
		name string
		// stall makes the decision hang: it returns the event's stdin and
		// what releases the hang
		stall func(t *testing.T, env airlockhome.Env, ws, event string) (io.Reader, func())
	}
	stalls := []stuck{
		{"stdin never ends", func(t *testing.T, env airlockhome.Env, ws, event string) (io.Reader, func()) {
			r, w := io.Pipe()
			go func() { _, _ = w.Write([]byte(event[:10])) }() // a partial event, then nothing
			return r, func() { _ = w.Close() }
		}},
		{"audit lock held", func(t *testing.T, env airlockhome.Env, ws, event string) (io.Reader, func()) {
			if err := os.MkdirAll(env.AirlockHome, 0o700); err != nil {
				t.Fatal(err)
			}
			lf, err := os.OpenFile(filepath.Join(env.AirlockHome, audit.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if err := flock.Lock(lf); err != nil {
				t.Fatal(err)
			}
			return strings.NewReader(event), func() { _ = flock.Unlock(lf); _ = lf.Close() }
		}},
	}
	answers := []struct {
		name  string
		event string
		post  bool
		env   map[string]string
		want  int
		msg   string
	}{
		{"PreToolUse", "PreToolUse", false, nil, ExitBlock, "Airlock blocked this call: airlock-hook did not decide within 200ms"},
		{"fail open", "PreToolUse", false, map[string]string{"AIRLOCK_FAIL_OPEN": "1"}, ExitAllow, "(not blocking)"},
		{"--post", "PostToolUse", true, nil, ExitAllow, "(not blocking)"},
	}
	for _, s := range stalls {
		for _, a := range answers {
			t.Run(s.name+", "+a.name, func(t *testing.T) {
				env, ws := stuckEnv(t, a.env)
				in, release := s.stall(t, env, ws, benignEvent(a.event, ws))
				var out, errb strings.Builder
				code, finished := runWithin(Options{Stdin: in, Stdout: &out, Stderr: &errb, Post: a.post,
					Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
				// the abandoned decision ends once released, before the
				// home is removed
				release()
				<-finished
				if s.name == "stdin never ends" && !a.post {
					// nothing held the log: the refusal is recorded
					checkDeadlineRecord(t, env.AirlockHome, a.env["AIRLOCK_FAIL_OPEN"] == "1")
				}
				if code != a.want {
					t.Fatalf("exit %d, want %d; stderr %q", code, a.want, errb.String())
				}
				if !strings.Contains(errb.String(), a.msg) {
					t.Errorf("stderr %q does not contain %q", errb.String(), a.msg)
				}
				if strings.Count(errb.String(), "\n") != 1 || out.Len() != 0 {
					t.Errorf("want exactly one answer line on stderr and nothing on stdout; stderr %q, stdout %q", errb.String(), out.String())
				}
			})
		}
	}
}

func checkDeadlineRecord(t *testing.T, home string, failOpen bool) {
	t.Helper()
	recs, err := audit.Tail(home, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "block"
	if failOpen {
		want = "allow"
	}
	for _, r := range recs {
		if r.Event == "hook_error" && r.Rule == "hook-deadline" && r.Decision == "block" && r.Effective == want &&
			strings.Contains(r.Reason, "did not decide within") {
			return
		}
	}
	t.Errorf("no hook_error record of the refusal (effective %s): %+v", want, recs)
}

// TestHookWithinDeadlineAnswersAsRun: a call that decides in time gets
// exactly Run's answer, output included.
func TestHookWithinDeadlineAnswersAsRun(t *testing.T) {
	env, ws := stuckEnv(t, map[string]string{deadlineEnv: "20s"})
	cases := []struct {
		name, input string
		want        int
		stderr      string
	}{
		{"allow", `{"command":"ls"}`, ExitAllow, ""},
		{"block", `{"command":"cat ~/.ssh/id_rsa"}`, ExitBlock, "Airlock blocked this call: Bash"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":` + c.input + `}`
			var out, errb strings.Builder
			code := RunWithin(Options{Stdin: strings.NewReader(ev), Stdout: &out, Stderr: &errb,
				Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
			if code != c.want || !strings.HasPrefix(errb.String(), c.stderr) || (c.stderr == "") != (errb.Len() == 0) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, errb.String(), c.want, c.stderr)
			}
		})
	}
}

// TestHookRefusalMasksSecrets: the refusal the agent reads names the call's
// target with its secrets masked, as the record does.
func TestHookRefusalMasksSecrets(t *testing.T) {
	env, ws := stuckEnv(t, map[string]string{deadlineEnv: "20s"})
	token := "xoxb-63128663415-1948484730971-y4hyyvh8vfsPVot30n1guFTD"
	ev := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://api.example.com/v1/me?token=` + token + `","prompt":"x"}}`
	var out, errb strings.Builder
	code := RunWithin(Options{Stdin: strings.NewReader(ev), Stdout: &out, Stderr: &errb,
		Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
	if code != ExitBlock || !strings.Contains(errb.String(), "[masked slack-token") || strings.Contains(errb.String()+out.String(), token) {
		t.Fatalf("exit %d, stderr %q, stdout %q: want a block that names the target masked", code, errb.String(), out.String())
	}
}

// TestTimeoutsNest: for every agent the hook's deadline comes before the
// timeout init writes (or the agent's fixed one), and an ask on the
// channel ends before the deadline; an agent that asks on
// the channel gives a person the channel's full default (60 s).
func TestTimeoutsNest(t *testing.T) {
	for _, a := range Agents {
		h := TimeoutOf(a)
		d := h.Deadline()
		limit := h.Timeout
		if limit == 0 {
			limit = h.Default
		}
		if limit == 0 {
			limit = AgentTimeout
		}
		if d <= 0 || d > limit-5*time.Second {
			t.Errorf("%s: deadline %s, timeout %s: less than 5 s apart", a, d, limit)
		}
		if h.Timeout != 0 && (h.Unit == "" || h.Field == "") {
			t.Errorf("%s: a timeout to write without its unit and field", a)
		}
		got, _ := deadlineFor(a, func(string) string { return "" })
		if got != d {
			t.Errorf("%s: deadlineFor %s, want %s", a, got, d)
		}
		by := askDeadline(Options{Agent: a, Getenv: func(string) string { return "" }})
		if left := time.Until(by); left <= 0 || left >= d {
			t.Errorf("%s: an ask ends %s from now, deadline %s", a, left, d)
		}
		if !adapterFor(a).asks(&Event{Agent: a}) && h.Timeout != 0 && time.Until(by) < 60*time.Second {
			t.Errorf("%s asks on the channel and writes its timeout, but a person gets %s, less than the channel's 60 s", a, time.Until(by))
		}
	}
	if TimeoutOf(Claude).Timeout != AgentTimeout {
		t.Errorf("Claude Code's timeout is not AgentTimeout (setup.HookTimeout is held to it)")
	}
}
