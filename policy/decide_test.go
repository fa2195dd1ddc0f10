package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecideSlots: a caller's stages run in their places in the one order.
// A hold comes after the forbids and before the grants (a forbid decides
// before it, a grant cannot lift it); a contract comes after escalation
// and before the overlay (the overlay still tightens its answer); an unread
// call is refused in every mode but observe.
func TestDecideSlots(t *testing.T) {
	vars, ws := testVars(t)
	load := func(t *testing.T, mode string) *Policy {
		p := mustParse(t, "mode: "+mode+"\ndefault: ask\nrules: []\ngrants:\n  - {tool: mcp__s__t, match: '*', reason: mine}\n", vars)
		if mode == "observe" {
			return p // an overlay would raise the mode to its own (guard)
		}
		file := filepath.Join(t.TempDir(), ".airlock.yaml")
		ov := "rules:\n  - {id: repo.no-prod, text: '*prod*', action: block, reason: not prod}\n"
		if err := os.WriteFile(file, []byte(ov), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := p.applyOverlay([]byte(ov), file); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hold := Decision{Action: Block, Source: FromHold, Rule: "hold"}
	holds := func(called *bool) func(*Facts) (Decision, bool) {
		return func(*Facts) (Decision, bool) { *called = true; return hold, true }
	}
	contractAllows := func(_ *Facts, d Decision) (Decision, string) {
		return Decision{Action: Allow, Source: FromContract, Rule: "contract"}, "contract saw " + string(d.Source)
	}
	cases := []struct {
		name, mode, tool, input string
		hold, contract          bool
		wantSource              Source
		wantEffective           Action
		wantHoldCalled          bool
		wantNote                string
	}{
		{name: "forbid before hold", mode: "enforce", tool: "mcp__s__t", input: `{"path":"~/.ssh/id_rsa"}`, hold: true, wantSource: FromForbid, wantEffective: Block},
		{name: "hold before grants", mode: "enforce", tool: "mcp__s__t", input: `{"text":"hello"}`, hold: true, wantSource: FromHold, wantEffective: Block, wantHoldCalled: true},
		{name: "grant without hold", mode: "enforce", tool: "mcp__s__t", input: `{"text":"hello"}`, wantSource: fromGrant, wantEffective: Allow},
		{name: "contract after grants", mode: "enforce", tool: "mcp__s__t", input: `{"text":"hello"}`, contract: true, wantSource: FromContract, wantEffective: Allow, wantNote: "contract saw " + string(fromGrant)},
		{name: "overlay after contract", mode: "enforce", tool: "mcp__s__t", input: `{"text":"prod"}`, contract: true, wantSource: FromOverlay, wantEffective: Block, wantNote: "contract saw " + string(fromGrant)},
		{name: "budget, enforce", mode: "enforce", tool: "mcp__s__t", input: `{"text":"` + strings.Repeat("a", defaultBudget.MaxChars+1) + `"}`, hold: true, wantSource: FromBudget, wantEffective: Block},
		{name: "budget, guard", mode: "guard", tool: "mcp__s__t", input: `{"text":"` + strings.Repeat("a", defaultBudget.MaxChars+1) + `"}`, wantSource: FromBudget, wantEffective: Block},
		{name: "budget, observe", mode: "observe", tool: "mcp__s__t", input: `{"text":"` + strings.Repeat("a", defaultBudget.MaxChars+1) + `"}`, wantSource: FromBudget, wantEffective: Allow},
		{name: "ask stays an ask", mode: "enforce", tool: "Write", input: `{"file_path":"/srv/x","content":"y"}`, wantSource: FromDefault, wantEffective: Ask},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := load(t, tc.mode)
			var st Stages
			called := false
			if tc.hold {
				st.Hold = holds(&called)
			}
			if tc.contract {
				st.Contract = contractAllows
			}
			f := Classify(tc.tool, []byte(tc.input), CallEnv{Cwd: ws, Home: vars.Home})
			v := p.Decide(f, propertyNow, st)
			if v.Decision.Source != tc.wantSource || v.Effective != tc.wantEffective || called != tc.wantHoldCalled || v.Note != tc.wantNote {
				t.Errorf("got source %s effective %s hold called %v note %q (%s); want %s %s %v %q",
					v.Decision.Source, v.Effective, called, v.Note, v.Decision.Explain(), tc.wantSource, tc.wantEffective, tc.wantHoldCalled, tc.wantNote)
			}
		})
	}
}
