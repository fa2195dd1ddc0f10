package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// managedEnv is a user's home with a policy.yaml (or none) and a managed
// directory of the test's; it returns Load's options.
func managedEnv(t *testing.T, userPolicy, managedPolicy string) Options {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ah := filepath.Join(home, ".airlock")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{ah, filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if userPolicy != "" {
		if err := os.WriteFile(filepath.Join(ah, "policy.yaml"), []byte(userPolicy), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	md := filepath.Join(root, "managed")
	if err := os.Mkdir(md, 0o755); err != nil {
		t.Fatal(err)
	}
	if managedPolicy != "" {
		if err := os.WriteFile(filepath.Join(md, "managed.yaml"), []byte(managedPolicy), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := airlockhome.SetManagedDirForTest(md)
	t.Cleanup(func() { airlockhome.SetManagedDirForTest(old) })
	return Options{Cwd: ws, Home: home, User: "dev", Tmp: os.TempDir(), AirlockHome: ah, Getenv: func(string) string { return "" }}
}

func decideIn(t *testing.T, p *Policy, o Options, tool, input string) Decision {
	t.Helper()
	f := Classify(tool, []byte(input), CallEnv{Cwd: o.Cwd, Home: o.Home, User: o.User})
	return p.Decide(f, time.Now(), Stages{}).Decision
}

const yoloUser = "mode: observe\ndefault: allow\nask_fallback: allow\nrules:\n  - id: curl-ok\n    tool: Bash\n    command: {program: curl}\n    action: allow\n    reason: mine\ngrants:\n  - tool: Bash\n    commands: [\"terraform apply *\"]\n    reason: mine\noverrides:\n  - forbid: secrets.dotenv\n    reason: test values only\n"

func TestManagedFloorsAndRules(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	o := managedEnv(t, yoloUser, `mode: enforce
default: ask
ask_fallback: block
rules:
  - id: no-curl
    tool: Bash
    command: {program: curl}
    action: block
    reason: curl goes through the proxy here
forbids:
  - id: org.prod-db
    reason: the production database is not for agents
    command: {program: psql, args: ["*prod*"]}
lock_forbids: [secrets.dotenv]
no_grants: [Bash]
`)
	o.Getenv = func(k string) string {
		if k == "AIRLOCK_MODE" {
			return "observe"
		}
		return ""
	}
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != Enforce || p.Default != Ask || p.AskFallback != Block {
		t.Errorf("floors: mode %s default %s ask_fallback %s; want enforce, ask, block (AIRLOCK_MODE=observe under them)", p.Mode, p.Default, p.AskFallback)
	}
	if !strings.HasSuffix(p.ManagedFile(), "managed.yaml") || p.Files[0].Role != "managed" || !strings.HasPrefix(p.Files[0].Digest, "") || p.Files[0].Digest == "" {
		t.Errorf("the managed file is not named first among the files: %+v", p.Files)
	}
	for _, c := range []struct{ tool, input, action, rule string }{
		{"Bash", `{"command":"curl -fsS https://example.com/"}`, "block", "no-curl"}, // the user's allow rule loses
		{"Bash", `{"command":"psql -h prod-db.internal"}`, "block", "org.prod-db"},   // a managed forbid
		{"Read", `{"file_path":"` + o.Cwd + `/.env"}`, "block", "secrets.dotenv"},    // locked: the override is ignored
		{"Bash", `{"command":"terraform apply tfplan"}`, "ask", "default"},           // no_grants: the user's grant does not apply
		{"Read", `{"file_path":"` + o.Cwd + `/main.go"}`, "ask", "default"},          // the default's floor
	} {
		d := decideIn(t, p, o, c.tool, c.input)
		if d.Action.String() != c.action || d.Rule != c.rule {
			t.Errorf("%s %s: got %s by %s (%s), want %s by %s", c.tool, c.input, d.Action, d.Rule, d.Reason, c.action, c.rule)
		}
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "your override of secrets.dotenv") {
		t.Errorf("the ignored override is not said: %q", p.Warnings)
	}
}

// The user's policy without the managed layer decides those calls the
// other way: the test above can fail.
func TestManagedControl(t *testing.T) {
	o := managedEnv(t, yoloUser, "")
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.ManagedFile() != "" || p.Mode != Observe {
		t.Fatalf("an unmanaged machine: managed %q, mode %s", p.ManagedFile(), p.Mode)
	}
	if d := decideIn(t, p, o, "Bash", `{"command":"curl -fsS https://example.com/"}`); d.Action != Allow {
		t.Errorf("curl: %s by %s", d.Action, d.Rule)
	}
	if d := decideIn(t, p, o, "Bash", `{"command":"terraform apply tfplan"}`); d.Action != Allow || !strings.HasPrefix(d.Rule, "grant:") {
		t.Errorf("the grant: %s by %s", d.Action, d.Rule)
	}
}

// A managed file that is not the administrator's alone, one that does not
// load, and a required one that is missing all fail closed, naming why.
func TestManagedFailsClosed(t *testing.T) {
	cases := []struct {
		name, managed string
		prep          func(t *testing.T, dir string)
		want          string
	}{
		{"marker without the file", "", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "managed.required"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is required on this machine"},
		{"writable by others", "rules: []\n", func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "managed.yaml"), 0o666); err != nil {
				t.Fatal(err)
			}
		}, "writable by others than root"},
		{"a directory others can write", "rules: []\n", func(t *testing.T, dir string) {
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}, "holds the managed policy and is writable by others"},
		{"a link", "", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "x.yaml")
			if err := os.WriteFile(other, []byte("rules: []\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, filepath.Join(dir, "managed.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"an allow rule", "rules:\n  - id: a\n    tool: Bash\n    action: allow\n    reason: x\n", nil, `a managed rule can only ask or block`},
		{"grants", "rules: []\ngrants:\n  - tool: Bash\n    match: \"*\"\n    reason: x\n", nil, "a managed policy grants nothing"},
		{"an unknown lock", "rules: []\nlock_forbids: [secrets.nope]\n", nil, `lock_forbids names "secrets.nope"`},
		{"a typo", "rules: []\nlock_forbid: all\n", nil, `unknown key "lock_forbid"`},
	}
	if os.Getuid() == 0 {
		cases = append(cases, struct {
			name, managed string
			prep          func(t *testing.T, dir string)
			want          string
		}{"owned by a user", "rules: []\n", func(t *testing.T, dir string) {
			if err := os.Chown(filepath.Join(dir, "managed.yaml"), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "not root"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := managedEnv(t, "", c.managed)
			if c.prep != nil {
				c.prep(t, airlockhome.ManagedDir())
			}
			_, err := Load(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// The user's policy cannot use the managed layer's keys.
func TestManagedKeysAreTheManagedPolicys(t *testing.T) {
	_, err := parse([]byte("rules: []\nlock_forbids: all\nno_grants: [Bash]\n"), "p.yaml", "policy", Vars{Home: "/home/dev"})
	if err == nil || !strings.Contains(err.Error(), "lock_forbids: is for the managed policy only") || !strings.Contains(err.Error(), "no_grants: is for the managed policy only") {
		t.Fatalf("got %v", err)
	}
}

// On a managed machine AIRLOCK_FAIL_OPEN=1 lets nothing through.
func TestFailOpenRefusedWhenManaged(t *testing.T) {
	on := func(k string) string {
		if k == "AIRLOCK_FAIL_OPEN" {
			return "1"
		}
		return ""
	}
	managedEnv(t, "", "")
	if !airlockhome.FailOpen(on) {
		t.Fatal("an unmanaged machine refused AIRLOCK_FAIL_OPEN=1")
	}
	if err := os.WriteFile(airlockhome.ManagedMarker(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if airlockhome.FailOpen(on) {
		t.Fatal("AIRLOCK_FAIL_OPEN=1 honoured on a managed machine")
	}
}

// What the managed file says is enforced or refused, never accepted and
// dropped: a forbid that allows (it would answer before the built-in
// forbids and the user's rules, a loosening), indicators (the layer has no
// place for them), and an egress cap, which is a floor the user's policy
// cannot raise.
func TestManagedNothingAcceptedAndDropped(t *testing.T) {
	for _, c := range []struct{ name, managed, want string }{
		{"an allowing forbid", "rules: []\nforbids:\n  - id: org.ok\n    tool: Bash\n    action: allow\n    reason: x\n", `forbid "org.ok": a managed forbid can only ask or block`},
		{"indicators", "rules: []\nindicators:\n  - id: org.x\n    severity: high\n    text: [\"x\"]\n    reason: x\n", "indicators: a managed policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := managedEnv(t, "", c.managed)
			if _, err := Load(o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	t.Run("egress cap", func(t *testing.T) {
		o := managedEnv(t, "rules: []\negress:\n  max_bytes_out: {api.example.com: 9000, other.example: 10}\n",
			"rules: []\negress:\n  max_bytes_out: {api.example.com: 100, new.example: 5}\n")
		p, err := Load(o)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"api.example.com": 100, "other.example": 10, "new.example": 5}
		for h, n := range want {
			if p.MaxBytesOut[h] != n {
				t.Errorf("max_bytes_out[%s] = %d, want %d (%v)", h, p.MaxBytesOut[h], n, p.MaxBytesOut)
			}
		}
	})
}

// AIRLOCK_MODE below the managed floor does not set the mode, and the
// policy does not say it did.
func TestManagedFloorOverAirlockMode(t *testing.T) {
	o := managedEnv(t, "", "mode: guard\nrules: []\n")
	o.Getenv = func(k string) string {
		if k == "AIRLOCK_MODE" {
			return "observe"
		}
		return ""
	}
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != Guard || p.ModeFromEnv != "" {
		t.Errorf("mode %s, ModeFromEnv %q: want guard, set by the managed floor and not by AIRLOCK_MODE", p.Mode, p.ModeFromEnv)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "AIRLOCK_MODE=observe is below") {
		t.Errorf("the refused AIRLOCK_MODE is not said: %q", p.Warnings)
	}
}

// lock_forbids: all locks every forbid a user's override can name: the
// binaries record's forbid too, which the user's list holds beyond the
// built-ins; and a lock may name it.
func TestManagedLockAllCoversTheRecordedForbids(t *testing.T) {
	for _, lock := range []string{"all", "[gate.binaries-recorded]"} {
		t.Run(lock, func(t *testing.T) {
			o := managedEnv(t, "rules: []\noverrides:\n  - forbid: gate.binaries-recorded\n    reason: I rebuild airlock here\n", "rules: []\nlock_forbids: "+lock+"\n")
			bin := filepath.Join(o.Home, "tools", "gatekeeper") // a name only the record knows
			if err := os.WriteFile(filepath.Join(o.AirlockHome, BinariesFile), BinariesRecord(bin), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := Load(o)
			if err != nil {
				t.Fatal(err)
			}
			if d := decideIn(t, p, o, "Write", `{"file_path":"`+bin+`","content":"x"}`); d.Action != Block || d.Rule != "gate.binaries-recorded" {
				t.Errorf("a write to a recorded binary under lock_forbids %s: %s by %s", lock, d.Action, d.Rule)
			}
			if !strings.Contains(strings.Join(p.Warnings, "\n"), "your override of gate.binaries-recorded") {
				t.Errorf("the ignored override is not said: %q", p.Warnings)
			}
		})
	}
}

// export: the managed policy's forward targets, checked for their shape;
// the user's policy cannot name them.
func TestManagedExport(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	o := managedEnv(t, "rules: []\n", "rules: []\nexport:\n  - relp://siem.example.com:2514\n  - otlp+https://otel.example.com:4318\n")
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ManagedExport(); !slices.Equal(got, []string{"relp://siem.example.com:2514", "otlp+https://otel.example.com:4318"}) {
		t.Errorf("ManagedExport = %q", got)
	}
	bad := managedEnv(t, "rules: []\n", "rules: []\nexport: [\"syslog.example.com:514\", \"http://x:1\"]\n")
	_, err = Load(bad)
	if err == nil || !strings.Contains(err.Error(), `export: "syslog.example.com:514" is not a receiver URL`) || !strings.Contains(err.Error(), `"http://x:1"`) {
		t.Errorf("bad export targets: %v", err)
	}
	if _, err := parse([]byte("rules: []\nexport: [relp://x:1]\n"), "p.yaml", "policy", Vars{Home: "/home/dev"}); err == nil || !strings.Contains(err.Error(), "export: is for the managed policy only") {
		t.Errorf("export in the user's policy: %v", err)
	}
	unmanaged := managedEnv(t, "rules: []\n", "")
	if p, err := Load(unmanaged); err != nil || p.ManagedExport() != nil {
		t.Errorf("an unmanaged machine: %v, %q", err, p.ManagedExport())
	}
}

// A repository's overlay (.airlock/policy.yaml in the workspace) only
// tightens: under a managed policy, its attempts to loosen (an allow rule
// for what the managed policy blocks, a lower mode and default, an override
// of a locked forbid, a grant for a no_grants tool) change nothing, while
// its own block still applies.
func TestManagedRepoOverlayOnlyTightens(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	o := managedEnv(t, "", "mode: enforce\ndefault: ask\nrules:\n  - id: no-curl\n    tool: Bash\n    command: {program: curl}\n    action: block\n    reason: org\nlock_forbids: [secrets.dotenv]\nno_grants: [Bash]\n")
	overlay := "mode: observe\ndefault: allow\nrules:\n" +
		"  - id: repo-curl\n    tool: Bash\n    command: {program: curl}\n    action: allow\n    reason: loosen\n" +
		"  - id: repo-no-make\n    tool: Bash\n    command: {program: make}\n    action: block\n    reason: tighten\n" +
		"overrides:\n  - forbid: secrets.dotenv\n    reason: loosen\n" +
		"grants:\n  - tool: Bash\n    commands: [\"terraform apply *\"]\n    reason: loosen\n"
	if err := os.MkdirAll(filepath.Join(o.Cwd, ".airlock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.Cwd, ".airlock", "policy.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(o)
	if err != nil {
		t.Logf("overlay refused: %v", err)
		// an overlay that tries to loosen may be refused outright, which
		// is tightening too; it must name the overlay
		if !strings.Contains(err.Error(), filepath.Join(".airlock", "policy.yaml")) {
			t.Fatalf("refused without naming the overlay: %v", err)
		}
		return
	}
	if p.Mode != Enforce || p.Default != Ask {
		t.Errorf("the overlay lowered the floors: mode %s default %s", p.Mode, p.Default)
	}
	for _, c := range []struct{ tool, input, action string }{
		{"Bash", `{"command":"curl -fsS https://example.com/"}`, "block"},
		{"Read", `{"file_path":"` + o.Cwd + `/.env"}`, "block"},
		{"Bash", `{"command":"terraform apply tfplan"}`, "ask"},
		{"Bash", `{"command":"make all"}`, "block"},
		{"Read", `{"file_path":"` + o.Cwd + `/main.go"}`, "ask"},
	} {
		if d := decideIn(t, p, o, c.tool, c.input); d.Action.String() != c.action {
			t.Errorf("%s %s: %s by %s (%s), want %s", c.tool, c.input, d.Action, d.Rule, d.Reason, c.action)
		}
	}
}
