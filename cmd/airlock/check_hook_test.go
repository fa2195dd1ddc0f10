package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/hook"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// TestCheckAgreesWithHook runs `airlock check --tool T --input S` and the
// hook on the event that carries the same tool_input text, and wants one
// answer from both: a tool_input the hook refuses as unreadable is a
// usage error (64) for check, never an allow; a readable one gets the
// same decision.
func TestCheckAgreesWithHook(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USER", "dev")
	t.Setenv("AIRLOCK_HOME", filepath.Join(home, ".airlock"))
	t.Setenv("AIRLOCK_POLICY", "")
	t.Setenv("AIRLOCK_PROFILE", "")
	t.Setenv("AIRLOCK_FAIL_OPEN", "")
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}

	const (
		malformed = "malformed"
		allow     = "allow"
		ask       = "ask"
		block     = "block"
	)
	cases := []struct {
		name, tool string
		input      *string // nil: no --input, no tool_input
		want       string
	}{
		{"not JSON", "Bash", ptr(`{bad`), malformed},
		{"array", "Bash", ptr(`[1]`), malformed},
		{"string", "Bash", ptr(`"ls"`), malformed},
		{"number", "Read", ptr(`1`), malformed},
		{"null", "Bash", ptr(`null`), malformed},
		{"empty", "Bash", ptr(``), malformed},
		{"trailing garbage", "Bash", ptr(`{"command":"ls"} x`), malformed},
		{"two objects", "Bash", ptr(`{"command":"ls"}{"command":"rm -rf /"}`), malformed},
		{"no input", "Bash", nil, malformed},
		{"empty object", "Read", ptr(`{}`), allow},
		{"workspace read", "Read", ptr(`{"file_path":"src/main.go"}`), allow},
		{"padded object", "Read", ptr(" \n{\"file_path\":\"src/main.go\"}\n "), allow},
		{"ssh key", "Read", ptr(`{"file_path":"~/.ssh/id_rsa"}`), block},
		{"write elsewhere", "Write", ptr(`{"file_path":"/srv/data/a.txt","content":"x"}`), ask},
		{"rm root", "Bash", ptr(`{"command":"rm -rf /"}`), block},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"airlock", "check", "--cwd", cwd, "--tool", tc.tool}
			event := `{"session_id":"s","cwd":"` + cwd + `","hook_event_name":"PreToolUse","tool_name":"` + tc.tool + `"`
			if tc.input != nil {
				args = append(args, "--input", *tc.input)
				event += `,"tool_input":` + *tc.input
			}
			event += "}"

			var out, hookOut, hookErr bytes.Buffer
			app := newApp()
			app.Writer, app.ErrWriter = &out, &out
			code, msg := 0, ""
			if err := app.Run(args); err != nil {
				var ee *exitError
				if !errors.As(err, &ee) {
					t.Fatalf("check: %v", err)
				}
				code, msg = ee.code, ee.msg
			}
			hc := hook.Run(hook.Options{Stdin: strings.NewReader(event), Stdout: &hookOut, Stderr: &hookErr,
				Getenv: os.Getenv, EnvFunc: airlockhome.FromOS})

			var hookSays string
			switch {
			case hc == hook.ExitBlock && strings.Contains(hookErr.String(), "unreadable hook event"):
				hookSays = malformed
			case hc == hook.ExitBlock:
				hookSays = block
			case hc == hook.ExitAllow && strings.Contains(hookOut.String(), `"permissionDecision":"ask"`):
				hookSays = ask
			case hc == hook.ExitAllow && hookOut.Len() == 0:
				hookSays = allow
			default:
				t.Fatalf("hook: exit %d, stdout %q, stderr %q", hc, hookOut.String(), hookErr.String())
			}
			checkSays := map[int]string{64: malformed, checkAllow: allow, checkAsk: ask, checkBlock: block}[code]
			if checkSays == "" {
				t.Fatalf("check: exit %d (%s)", code, msg)
			}
			if hookSays != tc.want || checkSays != tc.want {
				t.Fatalf("want %s from both; hook said %s (%s), check said %s (exit %d, %s)",
					tc.want, hookSays, strings.TrimSpace(hookErr.String()), checkSays, code, msg)
			}
			if tc.want == malformed && (!strings.Contains(msg, "--input") || !strings.Contains(msg, "JSON object")) {
				t.Fatalf("check's usage error names neither --input nor the shape wanted: %q", msg)
			}
		})
	}
}

func ptr(s string) *string { return &s }
