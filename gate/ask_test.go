package gate

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// person is a fake ask channel that counts the questions put to it.
type person struct {
	answer ask.Answer
	asked  atomic.Int32
	last   ask.Request
}

func (p *person) Ask(_ context.Context, r ask.Request) ask.Outcome {
	p.asked.Add(1)
	p.last = r
	return ask.Outcome{Answer: p.answer, Asked: audit.AskedHuman, Detail: "a person answered via test"}
}

type records struct{ got []audit.Record }

func (r *records) Append(rec audit.Record) (audit.Record, error) {
	r.got = append(r.got, rec)
	return rec, nil
}

type holdAll struct{}

func (holdAll) Check(server, tool string, _ []byte, _ bool) (policy.Decision, bool) {
	return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "mcp.held", Reason: "held"}, true
}

func TestAskReachesAPersonOnlyForAnAsk(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	key := filepath.Join(fx.Home, ".ssh", "id_rsa")
	for _, tc := range []struct {
		name   string
		tool   string
		input  string
		hold   bool
		answer ask.Answer
		want   policy.Action
		asks   int32
	}{
		{name: "ask approved", tool: "mcp__fs__write_file", input: `{"path":"` + fx.WS + `/out.txt"}`, answer: ask.Allow, want: policy.Allow, asks: 1},
		{name: "ask refused", tool: "mcp__fs__write_file", input: `{"path":"` + fx.WS + `/out.txt"}`, answer: ask.Deny, want: policy.Block, asks: 1},
		{name: "nobody answers: ask_fallback block", tool: "mcp__fs__write_file", input: `{"path":"` + fx.WS + `/o.txt"}`, answer: ask.Fallback, want: policy.Block, asks: 1},
		{name: "forbid never asks", tool: "mcp__fs__read_file", input: `{"path":"` + key + `"}`, answer: ask.Allow, want: policy.Block, asks: 0},
		{name: "forbid in a nested value never asks", tool: "mcp__fs__search", input: `{"opts":{"paths":["` + key + `"]}}`, answer: ask.Allow, want: policy.Block, asks: 0},
		{name: "hold never asks", tool: "mcp__fs__write_file", input: `{"path":"` + fx.WS + `/out.txt"}`, hold: true, answer: ask.Allow, want: policy.Block, asks: 0},
		{name: "allowed never asks", tool: "Read", input: `{"file_path":"` + fx.WS + `/README.md"}`, answer: ask.Deny, want: policy.Allow, asks: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &person{answer: tc.answer}
			rec := &records{}
			gg := *g
			gg.Ask, gg.Log = p, rec
			if tc.hold {
				gg.Toolsets = holdAll{}
			}
			res := gg.Decide(Call{Source: "mcp", Tool: tc.tool, Input: []byte(tc.input), Cwd: fx.WS})
			if res.Effective != tc.want || p.asked.Load() != tc.asks {
				t.Fatalf("%s after %d asks (%s), want %s after %d", res.Effective, p.asked.Load(), res.Decision.Explain(), tc.want, tc.asks)
			}
			r := rec.got[len(rec.got)-1]
			if tc.asks == 0 {
				if r.Asked != "" {
					t.Fatalf("record says asked=%q for a call nobody was asked about", r.Asked)
				}
				return
			}
			if r.Asked != audit.AskedHuman || r.Decision != "ask" || r.Effective != tc.want.String() {
				t.Fatalf("record %+v", r)
			}
			if p.last.Tool != tc.tool || p.last.Shape == "" || p.last.Rule == "" {
				t.Fatalf("question %+v", p.last)
			}
		})
	}
}

// An attended caller (the hook: Claude Code prompts) is never put to the
// ask channel, and nothing changes without a channel.
func TestAttendedAndChannelless(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	in := []byte(`{"path":"` + fx.WS + `/out.txt"}`)
	p := &person{answer: ask.Deny}
	gg := *g
	gg.Ask = p
	if res := gg.Decide(Call{Source: "hook", Tool: "mcp__fs__write_file", Input: in, Cwd: fx.WS, Attended: true}); res.Effective != policy.Ask || p.asked.Load() != 0 {
		t.Fatalf("attended: %s, %d asks", res.Effective, p.asked.Load())
	}
	rec := &records{}
	gg = *g
	gg.Log = rec
	res := gg.Decide(Call{Source: "mcp", Tool: "mcp__fs__write_file", Input: in, Cwd: fx.WS})
	if res.Effective != policy.Block || rec.got[0].Asked != audit.AskedUnattended || !strings.Contains(rec.got[0].Detail, "ask_fallback made it block") {
		t.Fatalf("%s %+v", res.Effective, rec.got[0])
	}
}

// The real channel: --yes is recorded as automatic; a person's answer is
// remembered for the same call shape and never for another.
func TestChannelInTheGate(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	in := []byte(`{"file_path":"/srv/notes/todo.txt","content":"x"}`)
	// default: a write outside the workspace asks
	if _, err := askChannel(g.Policy, fx.AirlockHome, true); err != nil {
		t.Fatalf("--yes under default: %v", err)
	}
	auto, _ := askChannel(g.Policy, fx.AirlockHome, true)
	rec := &records{}
	gg := *g
	gg.Ask, gg.Log = auto, rec
	if res := gg.Decide(Call{Source: "mcp", Tool: "Write", Input: in, Cwd: fx.WS}); res.Effective != policy.Allow || rec.got[0].Asked != audit.AskedAutomatic {
		t.Fatalf("--yes: %s %+v", res.Effective, rec.got[0])
	}

	var prompts atomic.Int32
	ch, err := ask.New(ask.Options{Home: fx.AirlockHome,
		Getenv: func(k string) string { return map[string]string{"AIRLOCK_ASK_BACKEND": "desktop"}[k] },
		Desktop: func(context.Context, string, string, time.Duration) (ask.Answer, bool, error) {
			prompts.Add(1)
			return ask.Deny, true, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	rec = &records{}
	gg.Ask, gg.Log = ch, rec
	for i := 0; i < 3; i++ {
		if res := gg.Decide(Call{Source: "mcp", Server: "fs", Tool: "Write", Input: in, Cwd: fx.WS}); res.Effective != policy.Block {
			t.Fatalf("retry %d: %s", i, res.Effective)
		}
	}
	if prompts.Load() != 1 || rec.got[0].Asked != audit.AskedHuman || rec.got[1].Asked != audit.AskedRemembered || rec.got[2].Asked != audit.AskedRemembered {
		t.Fatalf("%d prompts; asked %q %q %q", prompts.Load(), rec.got[0].Asked, rec.got[1].Asked, rec.got[2].Asked)
	}
	other := []byte(`{"file_path":"/srv/notes/other.txt","content":"x"}`)
	gg.Decide(Call{Source: "mcp", Server: "fs", Tool: "Write", Input: other, Cwd: fx.WS})
	if prompts.Load() != 2 {
		t.Fatalf("another call shape reused an answer")
	}

	// paranoid refuses --yes: its ask_fallback is block
	gp, _ := fixtureGate(t, "paranoid")
	if _, err := askChannel(gp.Policy, fx.AirlockHome, true); err == nil || !strings.Contains(err.Error(), "ask_fallback is block") {
		t.Fatalf("--yes under paranoid: %v", err)
	}
}

// askChannel is what a caller with no prompt of its own opens (airlock-mcp,
// airlock run): the --yes check, then the channel.
func askChannel(p *policy.Policy, home string, yes bool) (*ask.Channel, error) {
	if err := CheckAskYes(p, yes); err != nil {
		return nil, err
	}
	return ask.New(ask.Options{Home: home, Auto: yes})
}
