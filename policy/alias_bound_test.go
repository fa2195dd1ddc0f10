package policy

import (
	"fmt"
	"strings"
	"testing"
)

// aliasBomb is a policy of written size about 7×items+50×rules bytes whose
// YAML aliases make every rule carry the first rule's list of items.
func aliasBomb(items, rules int) string {
	var s strings.Builder
	s.WriteString("rules:\n  - {id: r0, tool: Bash, action: block, text: &p [" + strings.TrimSuffix(strings.Repeat("x,", items), ",") + "]}\n")
	for i := 1; i < rules; i++ {
		fmt.Fprintf(&s, "  - {id: r%d, tool: Bash, action: block, text: *p}\n", i)
	}
	return s.String()
}

// DEFECT (found in review of issue 14): the overlay's byte bound did not
// bound its cost, because YAML aliases repeat a node without repeating its
// text: an overlay of 145 KB (under the 256 KiB bound) whose 2,000 rules
// each alias one list of 20,000 strings took 14 s and allocated 11 GB per
// hook call, past the hook's deadline — every call in the repository
// refused, slowly, and the machine's memory with it. Aliases may add a
// bounded number of nodes to what a file spells out; past it the file is
// refused like one past its size.
func TestAliasExpansionIsBounded(t *testing.T) {
	r := newOverlayRepo(t)
	bomb := aliasBomb(4000, 400) // 29 KB written, 1.6 million strings decoded
	if len(bomb) > maxOverlayBytes {
		t.Fatalf("the bomb is %d bytes, past the size bound: it tests nothing", len(bomb))
	}
	write(t, r.overlay, bomb)
	p, err := Load(r.opts)
	if err == nil {
		t.Fatalf("loaded an alias bomb (%d rules in the overlay)", len(p.Overlay.Rules))
	}
	for _, want := range []string{r.overlay, "aliases", "write the lists out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}

	// the user's own policy is bounded the same way
	if _, err := parse([]byte(bomb), "policy.yaml", "user", Vars{}); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Errorf("the user's policy: %v, want a refusal naming the aliases", err)
	}

	// modest reuse of an anchor still loads, and a cycle is refused, not followed
	for name, c := range map[string]struct {
		yml string
		ok  bool
	}{
		"a list reused by a few rules": {aliasBomb(50, 20), true},
		"an alias of a scalar":         {"mode: &m enforce\nrules: []\ndefault: block\nask_fallback: *m\n", false}, // loads or is refused for its value, never hangs
		"a cycle":                      {"rules: &r [*r]\n", false},
		"a nested cycle":               {"rules:\n  - &r {id: a, tool: Bash, action: block, text: [*r]}\n", false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse([]byte(c.yml), "policy.yaml", "user", Vars{})
			if c.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}
