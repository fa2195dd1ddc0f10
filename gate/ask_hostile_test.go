package gate

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/policy"
)

// DEFECT: the remembered-answer shape is built from c.Tool, the
// *normalised* name (pins.NormName maps every character outside
// [A-Za-z0-9_-] to "_"), not from the tool the server actually exposes
// (c.ServerTool). A person's "allow" for write_file(args) is silently
// reused for a different tool, write.file(args) — or for a non-tools
// method such as "resources/read" vs a tool "resources_read" with the same
// params — recorded as "remembered". ask.Shape promises "the same tool on
// the same server with byte-identical arguments".
// Correct: build the shape from the raw server tool / method name (e.g.
// ask.Shape(c.Source, c.Server, c.ServerTool-or-method, c.Input) plus
// c.Tool), and show the raw name in the prompt.
func TestHostileShapeCollidesOnNormalisedToolName(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	var prompts atomic.Int32
	ch, err := ask.New(ask.Options{Home: fx.AirlockHome,
		Getenv: func(k string) string { return map[string]string{"AIRLOCK_ASK_BACKEND": "desktop"}[k] },
		Desktop: func(context.Context, string, string, time.Duration) (ask.Answer, bool, error) {
			prompts.Add(1)
			return ask.Allow, true, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	gg := *g
	gg.Ask = ch
	in := []byte(`{"path":"` + fx.WS + `/out.txt"}`)
	for _, raw := range []string{"write_file", "write.file"} {
		res := gg.Decide(Call{Source: "mcp", Server: "fs", Tool: MCPName("fs", raw), ServerTool: raw, Input: in, Cwd: fx.WS})
		if res.Decision.Action != policy.Ask {
			t.Fatalf("%s: not an ask (%s); fixture changed", raw, res.Decision.Explain())
		}
		t.Logf("%s: %s asked=%s", raw, res.Effective, res.Asked)
	}
	if prompts.Load() != 2 {
		t.Fatalf("two different server tools (write_file, write.file) were settled by %d prompt(s): an answer for one was reused for the other", prompts.Load())
	}
}

// DEFECT: the block notification's "one command that fixes it" is
// "airlock allow last" for blocks no grant can lift: the gate consults
// grants *before* escalation and the project overlay, so a block that came
// from an escalated indicator or a repository overlay rule stays a block
// after the suggested grant is written (and `airlock allow` only refuses
// grants a forbid overrides, so it writes one that does nothing).
// Correct: blockNote maps FromEscalation and FromOverlay to a fix that
// works (e.g. "airlock report" / "edit the project policy").
func TestHostileBlockNoteSuggestsAGrantThatCannotHelp(t *testing.T) {
	for _, src := range []policy.Source{policy.FromEscalation, policy.FromOverlay, policy.FromManaged} {
		n := blockNote(Call{Source: "hook", Tool: "Bash"}, policy.Decision{Action: policy.Block, Source: src, Rule: "x", Reason: "y"})
		if strings.Contains(n.Fix, "allow last") {
			t.Errorf("a %s block suggests %q, a grant the gate consults before %s", src, n.Fix, src)
		}
	}
}

// REGRESSION (passes): a remembered allow never survives a hold, and an
// observe/guard policy never asks.
func TestHostileRememberedAllowDoesNotSurviveAHold(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	p := &person{answer: ask.Allow}
	ch, _ := ask.New(ask.Options{Home: fx.AirlockHome,
		Getenv: func(k string) string { return map[string]string{"AIRLOCK_ASK_BACKEND": "desktop"}[k] },
		Desktop: func(ctx context.Context, _, _ string, _ time.Duration) (ask.Answer, bool, error) {
			p.asked.Add(1)
			return ask.Allow, true, nil
		}})
	gg := *g
	gg.Ask = ch
	c := Call{Source: "mcp", Server: "fs", Tool: "mcp__fs__write_file", ServerTool: "write_file", Input: []byte(`{"path":"` + fx.WS + `/out.txt"}`), Cwd: fx.WS}
	if res := gg.Decide(c); res.Effective != policy.Allow {
		t.Fatalf("first: %s", res.Effective)
	}
	gg.Toolsets = holdAll{}
	if res := gg.Decide(c); res.Effective != policy.Block || res.Asked != "" {
		t.Fatalf("held after a remembered allow: %s asked=%q", res.Effective, res.Asked)
	}
	for _, prof := range []string{"yolo", "default"} {
		gp, fx := fixtureGate(t, prof)
		pp := &person{answer: ask.Deny}
		gp.Ask = pp
		gp.Decide(Call{Source: "mcp", Tool: "Read", Input: []byte(`{"file_path":"` + fx.WS + `/README.md"}`), Cwd: fx.WS})
		if pp.asked.Load() != 0 {
			t.Fatalf("%s asked about a call it allows", prof)
		}
	}
}
