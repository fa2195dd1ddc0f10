package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// TestHookRefusesABenignCallItCannotRecord: a Read the policy allows is
// refused when its decision cannot be written, with the cause and the fix
// on stderr; AIRLOCK_FAIL_OPEN=1 lets it through and says so. Before, the
// hook allowed it and warned.
func TestHookRefusesABenignCallItCannotRecord(t *testing.T) {
	for _, c := range []struct {
		name     string
		failOpen bool
		code     int
		says     []string
	}{
		{"fail closed", false, ExitBlock, []string{"Airlock blocked this call", "audit log", "cannot be written", "AIRLOCK_FAIL_OPEN=1"}},
		{"fail open", true, ExitAllow, []string{"let through unrecorded because AIRLOCK_FAIL_OPEN=1", "cannot be written"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home", "dev")
			ws := filepath.Join(home, "proj")
			if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				if k == gate.FailOpenEnv && c.failOpen {
					return "1"
				}
				return ""
			}
			env := airlockhome.Env{Home: home, User: "dev", Tmp: filepath.Join(root, "tmp"), AirlockHome: filepath.Join(root, "airlock"), Getenv: getenv}
			// the log is a directory: every append fails
			if err := os.MkdirAll(filepath.Join(env.AirlockHome, audit.LogFile), 0o700); err != nil {
				t.Fatal(err)
			}
			ev := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + ws + `/main.go"}}`
			var out, errb strings.Builder
			code := Run(Options{Stdin: strings.NewReader(ev), Stdout: &out, Stderr: &errb,
				Getenv: getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }})
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errb.String())
			}
			for _, s := range c.says {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q: %s", s, errb.String())
				}
			}
		})
	}
}
