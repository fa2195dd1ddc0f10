package report

import "testing"

// TestHoldCandidates: a group a pins hold stopped is never offered a grant
// (the hold is decided before grants); it is a Hold with the pins fix.
func TestHoldCandidates(t *testing.T) {
	groups := []Gated{
		{Tool: "mcp__fs__add", Rule: "pins:held", Target: "add", Count: 3, Last: 1},
		{Tool: "mcp__a__b__c", Rule: "pins:unlisted", Target: "c", Count: 2, Last: 2},
		{Tool: "Write", Rule: "write-elsewhere", Target: "/srv/a", Count: 1, Last: 3},
	}
	cs := grantCandidates(groups, true, nil)
	want := []struct {
		grant string
		hold  bool
	}{
		{"airlock pins diff fs, then airlock pins approve fs (a hold: no grant lifts it)", true},
		{"airlock pins diff a__b, then airlock pins approve a__b (a hold: no grant lifts it)", true},
		{"airlock allow last", false},
	}
	if len(cs) != len(want) {
		t.Fatalf("got %d candidates, want %d: %+v", len(cs), len(want), cs)
	}
	for i, w := range want {
		if cs[i].Grant != w.grant || cs[i].Hold != w.hold {
			t.Errorf("candidate %d: %q hold=%v, want %q hold=%v", i, cs[i].Grant, cs[i].Hold, w.grant, w.hold)
		}
	}
	for _, tc := range []struct{ tool, server string }{
		{"mcp__fs__add", "fs"}, {"mcp__x", ""}, {"Bash", ""}, {"mcp____t", ""}, {"mcp__s__", "s"},
	} {
		if got := HoldServer(tc.tool); got != tc.server {
			t.Errorf("HoldServer(%q) = %q, want %q", tc.tool, got, tc.server)
		}
	}
	if fix, held := HoldFix("Bash", "pins:held"); !held || fix == "" {
		t.Errorf("a hold on a tool with no server: %q %v", fix, held)
	}
	if _, held := HoldFix("mcp__fs__add", "schema"); held {
		t.Error("schema is not a hold")
	}
}
