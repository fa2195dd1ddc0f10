package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/profiles"
)

// TestLoadRefusesRepeatedKeys: a key written twice is refused at every
// level of the policy, naming both lines; before, the loader walked the
// top-level mapping itself and kept the last, so one appended `mode:
// observe` switched the gate off while `policy check` said ok.
func TestLoadRefusesRepeatedKeys(t *testing.T) {
	vars, _ := testVars(t)
	cases := []struct{ name, yml, want string }{
		{"mode appended", "mode: guard\ndefault: ask\nrules: []\nmode: observe\n",
			`test.yaml:4: key "mode" repeated (first at line 1); remove one`},
		{"default appended", "default: block\nrules: []\ndefault: allow\n",
			`test.yaml:3: key "default" repeated (first at line 1); remove one`},
		{"rules twice", "rules:\n  - {id: a, tool: Bash, action: block}\nrules: []\n",
			`test.yaml:3: key "rules" repeated (first at line 1); remove one`},
		{"action twice in a rule", "rules:\n  - id: a\n    tool: Bash\n    action: block\n    action: allow\n",
			`test.yaml:5: key "rules[0].action" repeated (first at line 4); remove one`},
		{"glob twice in a path", "rules:\n  - id: a\n    action: block\n    path:\n      glob: /etc/**\n      glob: /nowhere\n",
			`test.yaml:6: key "rules[0].path.glob" repeated (first at line 5); remove one`},
		{"escalate twice", "rules: []\nescalate:\n  high: block\n  high: allow\n",
			`test.yaml:4: key "escalate.high" repeated (first at line 3); remove one`},
		{"grant twice", "rules: []\ngrants:\n  - tool: Read\n    match: /tmp/**\n    match: /**\n",
			`test.yaml:5: key "grants[0].match" repeated (first at line 4); remove one`},
		{"host cap twice", "rules: []\negress:\n  max_bytes_out:\n    api.example.com: 1000\n    api.example.com: 100000000\n",
			`test.yaml:5: key "egress.max_bytes_out.api.example.com" repeated (first at line 4); remove one`},
		{"host cap in two spellings", "rules: []\negress:\n  max_bytes_out:\n    api.example.com: 1000\n    API.Example.com.: 100000000\n",
			`test.yaml:2: egress.max_bytes_out: "API.Example.com." and "api.example.com" are the same host: keep one`},
		{"quoted spelling", "mode: guard\nrules: []\n'mode': observe\n",
			`test.yaml:3: key "mode" repeated (first at line 1); remove one`},
		{"merge key", "rules:\n  - &r {id: a, tool: Bash, action: block}\n  - <<: *r\n    id: b\n    action: allow\n",
			`test.yaml:3: a merge key (<<) in "rules[1]"`},
		{"second document", "mode: guard\nrules: []\n---\nmode: observe\nrules: []\n",
			"test.yaml:3: a second YAML document starts here"},
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

var lineNumber = regexp.MustCompile(`line \d`)

// TestLoadYAMLErrorLine: a syntax error names the line to fix once, as
// FILE:LINE: message; before, it was often the line before and said
// "line N" a second time.
func TestLoadYAMLErrorLine(t *testing.T) {
	vars, _ := testVars(t)
	cases := []struct{ name, yml, want string }{
		{"tab", "mode: guard\nrules:\n\t- id: a\n", "test.yaml:3: not valid YAML: "},
		{"unclosed quote", "mode: guard\ndefault: \"ask\nrules: []\n", "test.yaml:2: not valid YAML: "},
		{"unclosed brace", "mode: guard\nrules: [\n  {id: a, tool: Bash\n", "test.yaml:3: not valid YAML: "},
		{"bad indentation", "mode: guard\nrules:\n  - id: a\n   tool: x\n", "test.yaml:4: not valid YAML: "},
		{"missing colon", "mode: guard\nrules:\n  - id: a\n    tool x\n    action: block\n", "test.yaml:4: not valid YAML: "},
		{"stray dash", "mode: guard\ndefault: ask\n- x\nrules: []\n", "test.yaml:3: not valid YAML: "},
		{"a value of the wrong kind", "rules:\n  - id: a\n    action: block\n    reason: [x]\n", "test.yaml:4: rules: cannot unmarshal !!seq into string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(c.yml), "test.yaml", "policy", vars)
			if err == nil {
				t.Fatal("loaded")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, c.want) {
				t.Fatalf("error %q does not start %q", msg, c.want)
			}
			if lineNumber.MatchString(msg) || strings.Contains(msg, `\n`) || strings.Contains(msg, "\n") {
				t.Errorf("error %q repeats a line or spans lines", msg)
			}
		})
	}
}

// TestOverlayRefusesRepeatedKeys: a repository overlay with a repeated key
// is refused (every call in the repository is blocked, as for any overlay
// that does not load), never read as its last value.
func TestOverlayRefusesRepeatedKeys(t *testing.T) {
	r := newOverlayRepo(t)
	write(t, r.overlay, "mode: enforce\nrules:\n  - id: no-prod\n    path: /srv/prod/**\n    action: block\n    action: allow\n")
	_, err := Load(r.opts)
	if err == nil || !strings.Contains(err.Error(), `:6: key "rules[0].action" repeated (first at line 5); remove one`) {
		t.Fatalf("Load = %v; want the repeated key refused", err)
	}
}

// TestEditRefusesRepeatedKeys: `airlock allow` checks its edit with the
// loader, so it never writes a grant into a policy whose keys repeat.
func TestEditRefusesRepeatedKeys(t *testing.T) {
	vars, _ := testVars(t)
	data := []byte("mode: guard\nrules: []\nmode: observe\n")
	out, err := AppendGrant(data, GrantSpec{Tool: "Read", Match: "/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckEdit(out, filepath.Join(os.TempDir(), "policy.yaml"), vars); err == nil || !strings.Contains(err.Error(), `key "mode" repeated`) {
		t.Fatalf("CheckEdit = %v; want the repeated key refused", err)
	}
}

// BenchmarkParseDefaultProfile is what every hook call pays to read the
// policy: the bundled default profile, parsed and compiled.
func BenchmarkParseDefaultProfile(b *testing.B) {
	data, err := profiles.Get("default")
	if err != nil {
		b.Fatal(err)
	}
	vars := Vars{Workspace: "/w", Home: "/h", Tmp: "/tmp", User: "u", AirlockHome: "/h/.airlock"}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parse(data, "profile:default", "profile", vars); err != nil {
			b.Fatal(err)
		}
	}
}
