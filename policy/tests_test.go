package policy

import (
	"strings"
	"testing"
)

func TestTestsDecode(t *testing.T) {
	vars := Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp", User: "dev"}
	data := []byte(`rules: []
tests:
  - bash: "cat ~/.ssh/id_rsa"
    expect: block
  - name: a listing
    bash: 'echo ${HOME} ${1:-x}'
    expect: allow
  - tool: Read
    input: {file_path: "${workspace}/main.go", nested: ["${home}/x"]}
    expect: allow
    rule: read-workspace
    cwd: "${workspace}/sub"
  - fetch: https://example.com/
    expect: ask
`)
	tests, err := Tests(data, "p.yaml", vars)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line                  int
		tool, input, describe string
		expect                Action
		rule, cwd             string
	}{
		{3, "Bash", `{"command":"cat ~/.ssh/id_rsa"}`, "bash: cat ~/.ssh/id_rsa", Block, "", ""},
		{5, "Bash", `{"command":"echo ${HOME} ${1:-x}"}`, "a listing", Allow, "", ""},
		{8, "Read", `{"file_path":"/home/dev/proj/main.go","nested":["/home/dev/x"]}`, `Read {"file_path":"/home/dev/proj/main.go","nested":["/home/dev/x"]}`, Allow, "read-workspace", "/home/dev/proj/sub"},
		{13, "WebFetch", `{"url":"https://example.com/"}`, "fetch: https://example.com/", Ask, "", ""},
	}
	if len(tests) != len(want) {
		t.Fatalf("got %d tests, want %d: %+v", len(tests), len(want), tests)
	}
	for i, w := range want {
		g := tests[i]
		if g.Line != w.line || g.Tool != w.tool || string(g.Input) != w.input || g.Describe() != w.describe ||
			g.Expect != w.expect || g.Rule != w.rule || g.Cwd != w.cwd || g.File != "p.yaml" || g.Skip != "" {
			t.Errorf("test %d: got %+v (input %s, describe %q), want %+v", i, g, g.Input, g.Describe(), w)
		}
	}
}

func TestTestsProblemsNameTheLine(t *testing.T) {
	data := []byte(`rules: []
tests:
  - bash: ls
  - bash: ls
    expct: allow
  - bash: ls
    read: /x
    expect: allow
  - expect: block
  - bash: ls
    expect: maybe
  - tool: Bash
    input: "ls"
    expect: allow
  - bash: ""
    expect: allow
`)
	_, err := Tests(data, "p.yaml", Vars{Home: "/home/dev"})
	if err == nil {
		t.Fatal("a file with broken tests loaded")
	}
	for _, want := range []string{
		`p.yaml:3: a test says what the policy must decide: write expect: allow, ask or block`,
		`p.yaml:5: unknown key "expct" in a test: did you mean "expect"?`,
		`p.yaml:6: a test is one call`,
		`p.yaml:9: a test names its call`,
		`p.yaml:11: expect: "maybe" is not an action`,
		`p.yaml:12: input: write the tool's arguments as a mapping`,
		`p.yaml:15: bash: write the command as one string`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}

// A test naming ${workspace} where there is none is not run (and says
// why), never run against a path that lost its first half.
func TestTestsWithoutWorkspaceAreSkipped(t *testing.T) {
	tests, err := Tests([]byte("rules: []\ntests:\n  - read: \"${workspace}/main.go\"\n    expect: allow\n  - read: \"${home}/x\"\n    expect: allow\n"), "p.yaml", Vars{Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) != 2 || !strings.Contains(tests[0].Skip, "${workspace} has no value here") || tests[1].Skip != "" {
		t.Fatalf("got %+v", tests)
	}
}

// Every built-in forbid carries an example it stops (its own action, the
// forbid as the rule), so the list documents and tests itself.
func TestEveryForbidHasAnExample(t *testing.T) {
	tests, err := ForbidTests(Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp", User: "dev", AirlockHome: "/home/dev/.airlock"})
	if err != nil {
		t.Fatal(err)
	}
	stops := map[string]int{}
	for _, tc := range tests {
		if tc.Forbid == "" || tc.File != "profiles/forbids.yaml" {
			t.Errorf("%d: a forbid example without its forbid: %+v", tc.Line, tc)
		}
		if tc.Expect != Allow {
			if tc.Rule != tc.Forbid {
				t.Errorf("%d: example of %s expects rule %q", tc.Line, tc.Forbid, tc.Rule)
			}
			stops[tc.Forbid]++
		}
	}
	ids, err := ForbidIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if stops[id[0]] == 0 {
			t.Errorf("forbid %s has no example it stops: add a tests: entry under it in profiles/forbids.yaml", id[0])
		}
	}
}

// The hook never needs a policy's tests, and a policy with them loads
// as one without.
func TestPolicyWithTestsLoads(t *testing.T) {
	vars := Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp", User: "dev"}
	a, err := parse([]byte("rules: []\n"), "a.yaml", "policy", vars)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parse([]byte("rules: []\ntests:\n  - bash: ls\n    expect: allow\n"), "b.yaml", "policy", vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rules) != len(b.Rules) || len(a.Forbids) != len(b.Forbids) {
		t.Fatalf("tests: changed what loaded: %d/%d rules, %d/%d forbids", len(a.Rules), len(b.Rules), len(a.Forbids), len(b.Forbids))
	}
	if _, err := parse([]byte("rules: []\ntests: 3\n"), "c.yaml", "policy", vars); err != nil {
		t.Fatalf("a malformed tests: stopped the policy loading (Tests reports it, policy check and policy test fail on it): %v", err)
	}
}
