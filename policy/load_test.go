package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testVars is a home with a workspace repository inside it.
func testVars(t testing.TB) (Vars, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home", "dev")
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return Vars{Workspace: ws, Home: home, Tmp: "/tmp", User: "dev", AirlockHome: filepath.Join(root, "airlock")}, ws
}

func mustParse(t testing.TB, yml string, vars Vars) *Policy {
	t.Helper()
	p, err := parse([]byte(yml), "test.yaml", "policy", vars)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

func TestLoadRejectsWithFileLineAndFix(t *testing.T) {
	vars, _ := testVars(t)
	cases := []struct{ name, yml, want string }{
		{"empty", "", "test.yaml: the file is empty"},
		{"braces", "{}", "no `rules:` key"},
		{"mode only", "mode: guard\n", "no `rules:` key"},
		{"top-level list", "- a\n- b\n", "must be a mapping"},
		{"bad mode", "mode: strict\nrules: []\n", `test.yaml:1: mode: "strict" is not a mode: write observe, guard or enforce`},
		{"bad default", "default: maybe\nrules: []\n", `test.yaml:1: default: "maybe" is not an action`},
		{"bad action", "rules:\n  - id: a\n    action: nuke\n", `"nuke" is not an action: write allow, ask or block`},
		{"no action", "rules:\n  - id: a\n    tool: Bash\n", "has no action"},
		{"no id", "rules:\n  - tool: Bash\n    action: block\n", "test.yaml:2: rule has no id"},
		{"dup id", "rules:\n  - {id: a, action: block}\n  - {id: a, action: allow}\n", `rule id "a" is used twice`},
		{"typo top", "mdoe: guard\nrules: []\n", `test.yaml:1: unknown key "mdoe" in the policy: did you mean "mode"?`},
		{"typo rule", "rules:\n  - id: a\n    acton: block\n", `test.yaml:3: unknown key "acton" in a rule: did you mean "action"?`},
		{"typo path", "rules:\n  - id: a\n    action: block\n    path: {glbo: ['/x']}\n", `unknown key "glbo" in path: did you mean "glob"?`},
		{"bad access", "rules:\n  - id: a\n    action: block\n    path: {glob: ['/x'], access: [delete]}\n", `"delete" is not an access`},
		{"unknown var", "rules:\n  - id: a\n    action: block\n    path: '${repo}/x'\n", "unknown variable ${repo}"},
		{"bad signal", "rules:\n  - id: a\n    action: block\n    signal: evil\n", `unknown signal "evil"`},
		{"override no reason", "rules: []\noverrides:\n  - forbid: secrets.ssh\n", `test.yaml:3: override of "secrets.ssh" has no reason`},
		{"override unknown", "rules: []\noverrides:\n  - forbid: secrets.nope\n    reason: x\n", `override names "secrets.nope", which is not a built-in forbid`},
		{"user forbids", "rules: []\nforbids: []\n", "forbids: is for Airlock's built-in list only"},
		{"escalate key", "rules: []\nescalate: {critical: block}\n", `unknown key "critical" in escalate`},
		{"grant no tool", "rules: []\ngrants:\n  - match: x\n", "grant has no tool"},
		{"yaml syntax", "rules: [\n", "not valid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(c.yml), "test.yaml", "policy", vars)
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestBundledProfilesLoad(t *testing.T) {
	vars, _ := testVars(t)
	for _, name := range []string{"yolo", "default", "paranoid"} {
		p, err := LoadProfile(name, vars)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(p.Forbids) < 40 {
			t.Errorf("%s: only %d forbids", name, len(p.Forbids))
		}
	}
}

func TestGrantExpiry(t *testing.T) {
	vars, ws := testVars(t)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		expires string
		applies bool
	}{
		{"", true}, {"2999-01-01", true}, {"2026-11-29", true}, {"2026-11-28", false},
		{"2020-01-01", false}, {"not-a-date", false}, {"9999-99-99", false}, {"2026-13-01", false}, {"soon", false},
	} {
		yml := "mode: enforce\ndefault: ask\nrules: []\ngrants:\n  - {tool: Read, match: '${workspace}/fixtures/**', reason: r"
		if c.expires != "" {
			yml += ", expires: '" + c.expires + "'"
		}
		yml += "}\n"
		p := mustParse(t, yml, vars)
		f := Classify("Read", []byte(`{"file_path":"`+ws+`/fixtures/a.json"}`), CallEnv{Cwd: ws, Home: vars.Home})
		_, ok := p.CheckGrants(f, now)
		if ok != c.applies {
			t.Errorf("expires %q: grant applies = %v, want %v", c.expires, ok, c.applies)
		}
	}
}

func TestGrantNeverLiftsForbid(t *testing.T) {
	vars, ws := testVars(t)
	p := mustParse(t, "mode: enforce\ndefault: allow\nrules: []\ngrants:\n  - {tool: '*', reason: everything}\n", vars)
	for _, in := range []string{
		`{"a":"~/.ssh/id_rsa"}`,
		`{"b":{"c":{"d":["rm -rf /"]}},"command":"rm -rf /"}`,
		`{"url":"https://webhook.site/x"}`,
		`{"n":[{"u":"http://169.254.169.254/latest"}]}`,
		`{"~/.aws/credentials":"value"}`,
	} {
		f := Classify("mcp__x__do", []byte(in), CallEnv{Cwd: ws, Home: vars.Home})
		if d, ok := p.CheckForbids(f); !ok || d.Action != Block {
			t.Errorf("%s: forbid did not fire before the wildcard grant", in)
		}
	}
}

func TestOverrideRelaxesOnlyNamedForbid(t *testing.T) {
	vars, ws := testVars(t)
	p := mustParse(t, "mode: enforce\ndefault: allow\nrules: []\noverrides:\n  - {forbid: secrets.dotenv, reason: test values only}\n", vars)
	env := f(ws, vars.Home)
	if _, ok := p.CheckForbids(Classify("Read", []byte(`{"file_path":"`+ws+`/.env"}`), env)); ok {
		t.Error("secrets.dotenv still fires after its override")
	}
	if _, ok := p.CheckForbids(Classify("Read", []byte(`{"file_path":"~/.ssh/id_rsa"}`), env)); !ok {
		t.Error("an override of secrets.dotenv relaxed secrets.ssh too")
	}
}

func f(ws, home string) CallEnv { return CallEnv{Cwd: ws, Home: home} }

func TestWorkspaceNeverHomeOrRoot(t *testing.T) {
	vars, ws := testVars(t)
	if err := os.MkdirAll(filepath.Join(vars.Home, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindWorkspace(ws, vars.Home); got != ws {
		t.Errorf("FindWorkspace(ws) = %q, want %q", got, ws)
	}
	other := filepath.Join(vars.Home, "notes")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindWorkspace(other, vars.Home); got != "" {
		t.Errorf("`git init ~` made home the workspace: %q", got)
	}
	if got := FindWorkspace("/", vars.Home); got != "" {
		t.Errorf("root became a workspace: %q", got)
	}
}
