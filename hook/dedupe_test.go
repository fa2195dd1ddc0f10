package hook

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/audit"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// cursorEvent is one preToolUse as Cursor sends it to both its own
// hooks.json and the hook wired as Claude Code's.
func cursorEvent(ws, command, toolUse string) string {
	return `{"conversation_id":"conv-9","generation_id":"gen-9","cursor_version":"1.7.2","hook_event_name":"preToolUse",` +
		`"workspace_roots":["` + ws + `"],"cwd":"` + ws + `","tool_use_id":"` + toolUse + `","tool_name":"Shell","tool_input":{"command":"` + command + `"}}`
}

func runIn(env airlockhome.Env, a Agent, event string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = RunWithin(Options{Stdin: strings.NewReader(event), Stdout: &out, Stderr: &errb, Agent: a,
		Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
	return code, out.String(), errb.String()
}

func decisions(t *testing.T, env airlockhome.Env) []audit.Record {
	t.Helper()
	recs, err := audit.Tail(env.AirlockHome, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	for _, r := range recs {
		if r.Event == "decision" {
			out = append(out, r)
		}
	}
	return out
}

// TestCursorCallGatedTwiceIsRecordedAndAskedOnce: Cursor runs the same
// call through its own hook file and Claude Code's; the call is recorded
// once and a person is asked once, and both hooks give the same answer,
// in turn and at once.
func TestCursorCallGatedTwiceIsRecordedAndAskedOnce(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		name := "in turn"
		if concurrent {
			name = "at once"
		}
		t.Run(name, func(t *testing.T) {
			env, ws := testHome(t, map[string]string{"AIRLOCK_ASK_BACKEND": "socket", "AIRLOCK_ASK_REMEMBER": "0"})
			screen := startAskd(t, env.AirlockHome, "y")
			ev := cursorEvent(ws, "git push --force origin main", "tool-7")
			codes := make([]int, 2)
			outs, errs := make([]string, 2), make([]string, 2)
			var wg sync.WaitGroup
			for i, a := range []Agent{Cursor, Claude} {
				if !concurrent {
					codes[i], outs[i], errs[i] = runIn(env, a, ev)
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i], outs[i], errs[i] = runIn(env, a, ev)
				}()
			}
			wg.Wait()
			if got, err := readAnswer(Cursor, codes[0], outs[0], errs[0]); err != nil || got != "allow" {
				t.Errorf("Cursor's own hook answered %q %v (%q)", got, err, outs[0])
			}
			if got, err := readAnswer(Claude, codes[1], outs[1], errs[1]); err != nil || got != "allow" {
				t.Errorf("the hook wired as Claude Code's answered %q %v (%q)", got, err, outs[1])
			}
			ds := decisions(t, env)
			if len(ds) != 1 || ds[0].Asked != audit.AskedHuman {
				t.Fatalf("want one decision record, asked by a person: %+v", ds)
			}
			if n := strings.Count(screen.String(), "Allow this call?"); n != 1 {
				t.Fatalf("askd asked %d times:\n%s", n, screen.String())
			}
		})
	}
}

// TestCursorDistinctCallsAreEachRecorded: another tool_use_id is another
// call, even with the same command.
func TestCursorDistinctCallsAreEachRecorded(t *testing.T) {
	env, ws := testHome(t, nil)
	for _, id := range []string{"a", "b"} {
		if code, out, errs := runIn(env, Cursor, cursorEvent(ws, "ls", id)); code != 0 {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
	}
	if ds := decisions(t, env); len(ds) != 2 {
		t.Fatalf("two calls, %d records", len(ds))
	}
}

// TestDuplicateNeverAllowsWhatItRefuses: a claim file saying allow does
// not let a call through that the policy refuses: the second hook
// decides for itself and only an ask takes the first one's answer.
func TestDuplicateNeverAllowsWhatItRefuses(t *testing.T) {
	env, ws := testHome(t, nil)
	ev := cursorEvent(ws, "cat ~/.ssh/id_rsa", "x")
	parsed, err := parseCursor(mustParse(t, ev))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(env.AirlockHome+"/"+dedupeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env.AirlockHome+"/"+dedupeDir+"/"+parsed.Dedupe, []byte("allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runIn(env, Cursor, ev)
	if got, err := readAnswer(Cursor, code, out, errs); err != nil || got != "block" {
		t.Fatalf("a planted allow let a key read through: %q %v %q", got, err, out)
	}
}
