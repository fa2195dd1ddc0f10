package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// auditEnv is a user's home under a managed directory of the test's
// holding managed (none when ""), and the policy loaded there with getenv.
func auditEnv(t *testing.T, managed string, getenv func(string) string) (home.Env, *policy.Policy) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	root := t.TempDir()
	md := filepath.Join(root, "managed")
	if err := os.Mkdir(md, 0o755); err != nil {
		t.Fatal(err)
	}
	if managed != "" {
		if err := os.WriteFile(filepath.Join(md, "managed.yaml"), []byte(managed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := home.SetManagedDirForTest(md)
	t.Cleanup(func() { home.SetManagedDirForTest(old) })
	env := home.Env{Home: filepath.Join(root, "home"), User: "dev", Tmp: os.TempDir(), AirlockHome: filepath.Join(root, "home", ".airlock"), Getenv: getenv}
	p, err := policy.LoadEnv(env, env.Home)
	if err != nil {
		t.Fatal(err)
	}
	return env, p
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func lastLine(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// audit.sign in the managed policy signs every record whatever AIRLOCK_SIGN
// says (unset, empty, another mode, not a mode); without the managed
// layer the same settings write unsigned records (the control).
func TestOpenLogSignsAsTheManagedPolicyRequires(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
	}{
		{"AIRLOCK_SIGN unset", nil},
		{"AIRLOCK_SIGN empty", map[string]string{"AIRLOCK_SIGN": ""}},
		{"AIRLOCK_SIGN=ed25519 without a key", map[string]string{"AIRLOCK_SIGN": "ed25519"}},
		{"AIRLOCK_SIGN=off", map[string]string{"AIRLOCK_SIGN": "off"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, p := auditEnv(t, "rules: []\naudit: {sign: hmac}\n", envOf(c.env))
			log, err := OpenLog(env.AirlockHome, p, env.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			if _, err := log.Append(audit.Record{Event: "decision", Source: "hook", Tool: "Read"}); err != nil {
				t.Fatal(err)
			}
			if l := lastLine(t, env.AirlockHome); !strings.Contains(l, `"alg":"hmac-sha256"`) {
				t.Errorf("the record is not signed: %s", l)
			}
			// verified as the managed policy says, with AIRLOCK_SIGN unset
			rep, err := audit.VerifyWith(env.AirlockHome, audit.VerifyOptions{Getenv: envOf(nil), Sign: p.ManagedAudit().Sign})
			if err != nil || rep.Status != audit.Intact || rep.Signing != "hmac-sha256" {
				t.Errorf("verify: %v, %+v", err, rep)
			}
		})
	}
	t.Run("control: unmanaged", func(t *testing.T) {
		env, p := auditEnv(t, "", envOf(map[string]string{"AIRLOCK_SIGN": ""}))
		log, err := OpenLog(env.AirlockHome, p, env.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		defer log.Close()
		if _, err := log.Append(audit.Record{Event: "decision", Source: "hook", Tool: "Read"}); err != nil {
			t.Fatal(err)
		}
		if l := lastLine(t, env.AirlockHome); strings.Contains(l, `"alg"`) {
			t.Errorf("signed without a requirement: %s", l)
		}
	})
}

// A requirement that cannot be met fails closed before the first record:
// ed25519 with no key (AIRLOCK_SIGN="" does not lift it), an anchor
// directory that is not there. The error names the managed file, the
// line and the fix; with the key given, it signs.
func TestOpenLogFailsClosedOnAnUnmetRequirement(t *testing.T) {
	for _, c := range []struct {
		name, managed string
		env           map[string]string
		want          []string
	}{
		{"ed25519 without a key", "rules: []\naudit:\n  sign: ed25519\n", map[string]string{"AIRLOCK_SIGN": ""},
			[]string{"managed.yaml line 3 (audit.sign: ed25519)", "set AIRLOCK_SIGN_KEY"}},
		{"ed25519 with an unreadable key", "rules: []\naudit:\n  sign: ed25519\n", map[string]string{"AIRLOCK_SIGN_KEY": "/nonexistent/key.pem"},
			[]string{"managed.yaml line 3 (audit.sign: ed25519)", "/nonexistent/key.pem"}},
		{"no anchor directory", "rules: []\naudit:\n  anchor_dir: /nonexistent/anchors\n", map[string]string{"AIRLOCK_ANCHOR_DIR": ""},
			[]string{"managed.yaml line 3 (audit.anchor_dir)", "/nonexistent/anchors", "ask your administrator to create it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, p := auditEnv(t, c.managed, envOf(c.env))
			log, err := OpenLog(env.AirlockHome, p, env.Getenv)
			if err == nil {
				log.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, ErrAuditRequirement) {
				t.Errorf("not an ErrAuditRequirement: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			if _, err := os.Stat(filepath.Join(env.AirlockHome, audit.LogFile)); err == nil {
				t.Error("a record was written")
			}
		})
	}
	t.Run("ed25519 with the key", func(t *testing.T) {
		keys := t.TempDir()
		priv, _, err := audit.GenerateEd25519(keys)
		if err != nil {
			t.Fatal(err)
		}
		env, p := auditEnv(t, "rules: []\naudit:\n  sign: ed25519\n", envOf(map[string]string{"AIRLOCK_SIGN_KEY": priv}))
		log, err := OpenLog(env.AirlockHome, p, env.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		defer log.Close()
		if _, err := log.Append(audit.Record{Event: "decision", Source: "hook", Tool: "Read"}); err != nil {
			t.Fatal(err)
		}
		if l := lastLine(t, env.AirlockHome); !strings.Contains(l, `"alg":"ed25519"`) {
			t.Errorf("the record is not signed: %s", l)
		}
	})
}

// Anchors go to the managed policy's directory, not to AIRLOCK_ANCHOR_DIR's.
func TestOpenLogAnchorsWhereTheManagedPolicySays(t *testing.T) {
	managedDir, userDir := t.TempDir(), t.TempDir()
	env, p := auditEnv(t, "rules: []\naudit:\n  anchor_dir: "+managedDir+"\n", envOf(map[string]string{"AIRLOCK_ANCHOR_DIR": userDir}))
	log, err := OpenLog(env.AirlockHome, p, env.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	rs := make([]audit.Record, 1001) // past the 1000th record: an anchor is due
	for i := range rs {
		rs[i] = audit.Record{Event: "decision", Source: "hook", Tool: "Read"}
	}
	if _, err := log.AppendAll(rs); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(managedDir, "*anchors*.jsonl")); len(m) != 1 {
		t.Errorf("no anchor in the managed directory: %v", m)
	}
	if u, _ := os.ReadDir(userDir); len(u) != 0 {
		t.Errorf("anchors in AIRLOCK_ANCHOR_DIR: %v", u)
	}
}
