package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/calls"
	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/agentairlock/airlock/policy"
)

// failingCounter is a counter whose state cannot be trusted.
type failingCounter struct{ err error }

func (f failingCounter) Tally(_ string, c calls.Call, _ []calls.Window) (calls.Tally, error) {
	if errors.Is(f.err, calls.ErrReset) {
		return calls.List{c}, f.err
	}
	return nil, f.err
}

// TestGateCountsASessionsCalls: the gate counts through the real store, a
// session's 21st identical call asks (default) or is refused (paranoid),
// the block notice says no grant lifts it, and a call without a session
// counts nothing.
func TestGateCountsASessionsCalls(t *testing.T) {
	for _, tc := range []struct {
		profile string
		want    policy.Action
	}{{"default", policy.Ask}, {"paranoid", policy.Block}} {
		g, fx := fixtureGate(t, tc.profile)
		if err := os.MkdirAll(fx.AirlockHome, 0o700); err != nil { // as audit.Open makes it
			t.Fatal(err)
		}
		g.Calls = calls.Open(fx.AirlockHome, nil)
		c := Call{Source: "hook", Tool: "Read", Input: []byte(`{"file_path":"` + filepath.Join(fx.WS, "main.go") + `"}`), Cwd: fx.WS, Session: "loop-" + tc.profile, Attended: true}
		for i := 1; i <= 20; i++ {
			if res := g.Decide(c); res.Effective != policy.Allow {
				t.Fatalf("%s: call %d: %s %s", tc.profile, i, res.Effective, res.Decision.Explain())
			}
		}
		res := g.Decide(c)
		if res.Effective != tc.want || res.Decision.Rule != policy.LoopRule || res.Decision.Reason != fmt.Sprintf("the same call 21 times in 2m (loop: %s after 20)", tc.want) {
			t.Errorf("%s: the 21st: %s %s", tc.profile, res.Effective, res.Decision.Explain())
		}
		if n := blockNote(c, res.Decision); !strings.Contains(n.Fix, "none by a grant") {
			t.Errorf("%s: the notice's fix %q", tc.profile, n.Fix)
		}
		c.Session = ""
		for range 25 {
			if res := g.Decide(c); res.Decision.Source == policy.FromLimit {
				t.Fatalf("%s: a call with no session was counted: %s", tc.profile, res.Decision.Explain())
			}
		}
	}
}

// TestGateBrokenCountsAskOnce: a counter that could not be read gives the
// call the strictest limit's action with the reason (never a silent
// pass, never a silent block); one that started over says so too.
func TestGateBrokenCountsAskOnce(t *testing.T) {
	for _, err := range []error{errors.New("lock the call counts: permission denied"), fmt.Errorf("%w: 1 line(s) do not parse", calls.ErrReset)} {
		g, fx := fixtureGate(t, "default")
		g.Calls = failingCounter{err}
		res := g.Decide(Call{Source: "hook", Tool: "Read", Input: []byte(`{"file_path":"` + filepath.Join(fx.WS, "a.go") + `"}`), Cwd: fx.WS, Session: "s1", Attended: true})
		if res.Effective != policy.Ask || res.Decision.Rule != policy.StateRule || !strings.Contains(res.Decision.Reason, err.Error()) {
			t.Errorf("%v: %s %s", err, res.Effective, res.Decision.Explain())
		}
	}
}

// TestLimitsStateIsTheGates: the counts live in the home's calls/, which
// the forbids keep from the agent: it cannot reset its own counter.
func TestLimitsStateIsTheGates(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	path := calls.Open(fx.AirlockHome, nil).Path("session:s1")
	if !strings.HasPrefix(path, fx.AirlockHome+string(filepath.Separator)) {
		t.Fatalf("the state %s is outside the home %s", path, fx.AirlockHome)
	}
	for _, c := range []Call{
		{Tool: "Bash", Input: []byte(`{"command":"rm -f ` + path + `"}`)},
		{Tool: "Bash", Input: []byte(`{"command":": > ` + path + `"}`)},
		{Tool: "Bash", Input: []byte(`{"command":"rm -rf ` + filepath.Dir(path) + `"}`)},
		{Tool: "Write", Input: []byte(`{"file_path":"` + path + `","content":""}`)},
	} {
		c.Source, c.Cwd, c.Session, c.Attended = "hook", fx.WS, "s1", true
		if res := g.Decide(c); res.Effective != policy.Block {
			t.Errorf("%s %s: %s %s", c.Tool, c.Input, res.Effective, res.Decision.Explain())
		}
	}
}

// TestBenignCorpusAsOneSession: the whole benign corpus as one session's
// work, counted, under default and paranoid: the limits never decide one
// of its calls (the bundled loop detector never touches ordinary work).
func TestBenignCorpusAsOneSession(t *testing.T) {
	for _, profile := range []string{"default", "paranoid"} {
		g, fx := fixtureGate(t, profile)
		g.Calls = &calls.Memory{}
		cases, err := fx.Load("benign.txt")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			res := g.Decide(Call{Source: "hook", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Session: "corpus", Attended: true})
			if res.Decision.Source == policy.FromLimit {
				t.Errorf("%s: %s: %s", profile, c.Name(), res.Decision.Explain())
			}
		}
		if len(cases) < 100 {
			t.Errorf("only %d benign cases", len(cases))
		}
	}
}

// TestGateCountsEveryLimit: both counters (the proxy's in memory, the
// hook's files) through the gate, with a loop window (2m) and the caps'
// minute apart: the loop, a server cap and a session cap each decide when
// passed, with the count in the reason, and each window empties on its
// own time.
func TestGateCountsEveryLimit(t *testing.T) {
	for _, counter := range []string{"memory", "files"} {
		t.Run(counter, func(t *testing.T) { countsEveryLimit(t, counter) })
	}
}

func countsEveryLimit(t *testing.T, counter string) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fx.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	pol := "mode: enforce\ndefault: allow\nloop: {repeat: 3, window: 2m, action: ask}\nlimits:\n" +
		"  - {tool: \"mcp__notes__*\", per_minute: 4, per: server, action: block}\n" +
		"  - {tool: \"mcp__*\", per_minute: 6, per: session, action: ask}\nrules: []\n"
	if err := os.WriteFile(filepath.Join(fx.AirlockHome, "policy.yaml"), []byte(pol), 0o600); err != nil {
		t.Fatal(err)
	}
	g := fixtureProfileGate(t, fx, "default")
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	at := t0
	g.Env.Now = func() time.Time { return at }
	g.Calls = &calls.Memory{}
	if counter == "files" {
		g.Calls = calls.Open(fx.AirlockHome, g.Env.Now)
	}
	step := func(sec int, tool, arg string, want policy.Action, reason string) {
		t.Helper()
		at = t0.Add(time.Duration(sec) * time.Second)
		res := g.Decide(Call{Source: "hook", Tool: tool, Input: []byte(`{"id":"` + arg + `"}`), Cwd: fx.WS, Session: "s", Attended: true})
		if res.Decision.Action != want || reason != "" && res.Decision.Reason != reason || reason == "" && res.Decision.Source == policy.FromLimit {
			t.Fatalf("at %ds %s %s: %s %s; want %s %q", sec, tool, arg, res.Decision.Action, res.Decision.Explain(), want, reason)
		}
	}
	for i := range 3 {
		step(i, "mcp__notes__read", "a", policy.Allow, "")
	}
	step(3, "mcp__notes__read", "a", policy.Ask, "the same call 4 times in 2m (loop: ask after 3)")
	step(4, "mcp__notes__read", "b", policy.Block, "5 calls of mcp__notes__* in 1m to this server (limits: block above 4 a minute)")
	// a minute on: the caps' window is empty, the loop's is not
	step(65, "mcp__notes__read", "a", policy.Ask, "the same call 5 times in 2m (loop: ask after 3)")
	for i := range 5 {
		step(66+i, "mcp__files__list", fmt.Sprint("f", i), policy.Allow, "")
	}
	step(71, "mcp__files__list", "f5", policy.Ask, "7 calls of mcp__* in 1m in this session (limits: ask above 6 a minute)")
	// two minutes on: the loop's window is empty too
	step(186, "mcp__notes__read", "a", policy.Allow, "")
}
