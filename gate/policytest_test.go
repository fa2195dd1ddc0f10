package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/profiles"
)

// TestBundledProfilesPassTheirTests: each bundled profile's own tests and
// every built-in forbid's examples pass under it, in the corpus fixture's
// workspace (a repository in a home that holds the usual secrets).
func TestBundledProfilesPassTheirTests(t *testing.T) {
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range profiles.Names {
		g := fixtureProfileGate(t, fx, name)
		data, err := profiles.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		own, err := policy.Tests(data, "profiles/"+name+".yaml", g.Policy.Vars)
		if err != nil {
			t.Fatal(err)
		}
		if len(own) == 0 {
			t.Errorf("profile %s ships no tests", name)
		}
		forbids, err := policy.ForbidTests(g.Policy.Vars)
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, tc := range append(own, forbids...) {
			o := g.RunTest(tc, fx.WS)
			if o.Skipped != "" {
				t.Errorf("%s: %s:%d %s did not run: %s", name, tc.File, tc.Line, tc.Describe(), o.Skipped)
				continue
			}
			ran++
			if !o.Pass {
				t.Errorf("%s: %s:%d %s: want %s (rule %q, forbid %q), got %s by %s: %s", name, tc.File, tc.Line, tc.Describe(),
					tc.Expect, tc.Rule, tc.Forbid, o.Decision.Action, o.Decision.Rule, o.Decision.Reason)
			}
		}
		t.Logf("%s: %d tests and forbid examples ran", name, ran)
	}
}

// RunTest must be able to fail: a test expecting the opposite of what the
// policy decides fails, and so does one naming another rule; a forbid's
// example fails when the forbid is not what stops it, and is skipped
// (never passed) when the policy overrides the forbid.
func TestRunTestCanFail(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	mk := func(yaml string) []policy.Test {
		tests, err := policy.Tests([]byte(yaml), "t.yaml", g.Policy.Vars)
		if err != nil {
			t.Fatal(err)
		}
		return tests
	}
	for _, tc := range mk("rules: []\ntests:\n  - bash: \"cat ~/.ssh/id_rsa\"\n    expect: allow\n  - bash: \"cat ~/.ssh/id_rsa\"\n    expect: block\n    rule: secrets.aws\n  - bash: ls\n    expect: block\n") {
		if o := g.RunTest(tc, fx.WS); o.Pass || o.Skipped != "" {
			t.Errorf("%s (expect %s, rule %q) passed: %+v", tc.Describe(), tc.Expect, tc.Rule, o.Decision)
		}
	}
	ex := mk("forbids:\n  - id: secrets.ssh\n    tests:\n      - bash: ls\n      - bash: \"cat ~/.ssh/id_rsa\"\n        expect: allow\n")
	for _, tc := range ex {
		if o := g.RunTest(tc, fx.WS); o.Pass {
			t.Errorf("forbid example %s (expect %s) passed: %+v", tc.Describe(), tc.Expect, o.Decision)
		}
	}
	over := *g.Policy
	over.Overrides = map[string]string{"secrets.ssh": "test"}
	og := *g
	og.Policy = &over
	if o := og.RunTest(ex[0], fx.WS); o.Pass || o.Skipped == "" {
		t.Errorf("an overridden forbid's example ran: %+v", o)
	}
}

// A forbid's example passes only for the forbid's own reason: a look-alike
// (expect allow) that another forbid stops first still fails when the
// forbid would stop it too, and a rule of the policy that shares the
// forbid's id is not the forbid.
func TestRunTestForbidForTheRightReason(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	mk := func(p *policy.Policy, yaml string) []policy.Test {
		tests, err := policy.Tests([]byte(yaml), "t.yaml", p.Vars)
		if err != nil {
			t.Fatal(err)
		}
		return tests
	}
	// destroy.truncate stops it first; gate.managed-policy would stop it too
	look := mk(g.Policy, "forbids:\n  - id: gate.managed-policy\n    tests:\n      - bash: \"sudo cp /dev/null /etc/airlock/managed.yaml\"\n        expect: allow\n")
	if o := g.RunTest(look[0], fx.WS); o.Pass {
		t.Errorf("a look-alike the forbid stops passed because another forbid stopped it first: %+v", o.Decision)
	}
	// and a true look-alike another forbid stops still passes
	ok := mk(g.Policy, "forbids:\n  - id: gate.managed-policy\n    tests:\n      - bash: \"cat ~/.ssh/id_rsa /etc/airlock/managed.yaml\"\n        expect: allow\n")
	if o := g.RunTest(ok[0], fx.WS); !o.Pass {
		t.Errorf("a read of the managed file, stopped by secrets.ssh, failed as gate.managed-policy's look-alike: %+v", o.Decision)
	}

	file := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(file, []byte("mode: enforce\ndefault: allow\nrules:\n  - id: secrets.ssh\n    tool: Bash\n    command: {program: ls}\n    action: block\n    reason: a rule named as the forbid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := policy.LoadFile(file, g.Policy.Vars)
	if err != nil {
		t.Fatal(err)
	}
	rg := &Gate{Policy: p, Env: g.Env}
	ex := mk(p, "forbids:\n  - id: secrets.ssh\n    tests:\n      - bash: ls\n")
	if o := rg.RunTest(ex[0], fx.WS); o.Pass {
		t.Errorf("a forbid's example passed on a rule that shares the forbid's id: %+v", o.Decision)
	}
}
