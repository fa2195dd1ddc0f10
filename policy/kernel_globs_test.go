package policy

import (
	"slices"
	"testing"
)

// Globs hands a pattern-matching sandbox (macOS Seatbelt) the same rules
// the Linux walk asks Denied about: variables expanded, braces expanded,
// exceptions and accesses kept.
func TestKernelGlobsAreTheKernelRules(t *testing.T) {
	p, err := LoadProfile("default", Vars{Workspace: "/w", Home: "/h", Tmp: "/t", User: "dev", AirlockHome: "/h/state"})
	if err != nil {
		t.Fatal(err)
	}
	k := p.KernelPaths()
	byRule := map[string]KernelGlob{}
	for _, g := range k.Globs() {
		byRule[g.Rule] = g
	}
	home, ok := byRule["gate.airlock-home"]
	if !ok || !home.Read || !home.Write || !slices.Contains(home.Globs, "/h/state/**") {
		t.Fatalf("gate.airlock-home as globs: %+v", home)
	}
	ssh := byRule["secrets.ssh"]
	if !ssh.Read || !slices.Contains(ssh.Except, "**/*.pub") {
		t.Fatalf("secrets.ssh as globs: %+v", ssh)
	}
	if hook := byRule["persist.shell-rc"]; hook.Read || !hook.Write {
		t.Fatalf("persist.shell-rc denies writes only: %+v", hook)
	}
	// every rule the walk applies is there
	if len(byRule) != len(k.rules) {
		t.Errorf("%d rules as globs, the walk has %d", len(byRule), len(k.rules))
	}
}
