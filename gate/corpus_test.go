package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// fixtureGate is a gate for calls made in the corpus workspace under the
// default profile, recording nothing.
func fixtureGate(t testing.TB, profile string) (*Gate, corpus.Fixture) {
	t.Helper()
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	return fixtureProfileGate(t, fx, profile), fx
}

// fixtureProfileGate is a gate for calls made in fx's workspace under
// profile, so that cases loaded for one fixture can be decided under
// several profiles.
func fixtureProfileGate(t testing.TB, fx corpus.Fixture, profile string) *Gate {
	t.Helper()
	env := home.Env{Home: fx.Home, User: fx.User, Tmp: os.TempDir(), AirlockHome: fx.AirlockHome,
		Getenv: func(k string) string {
			if k == "AIRLOCK_PROFILE" {
				return profile
			}
			return ""
		}}
	p, err := policy.LoadEnv(env, fx.WS)
	if err != nil {
		t.Fatalf("load %s profile: %v", profile, err)
	}
	return &Gate{Policy: p, Env: env}
}

func expectMet(expect string, got policy.Action) bool {
	switch expect {
	case "block":
		return got == policy.Block
	case "ask+":
		return got >= policy.Ask
	case "ask":
		return got == policy.Ask
	case "allow":
		return got == policy.Allow
	}
	return false
}

// TestCorpusDefaultProfile runs every attack and benign case through the
// whole pipeline under the default profile.
func TestCorpusDefaultProfile(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	counts := map[string][2]int{}
	for _, file := range []string{"attacks.txt", "benign.txt"} {
		cases, err := fx.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			res := g.Decide(Call{Source: "cli", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Attended: true})
			key := file + " " + c.Category
			n := counts[key]
			n[0]++
			if expectMet(c.Expect, res.Effective) {
				n[1]++
			} else {
				t.Errorf("%s [%s] %s %s: want %s, got %s (%s)\n\tnote: %s", c.Name(), c.Category, c.Tool, c.Input, c.Expect, res.Effective, res.Decision.Explain(), c.Note)
			}
			counts[key] = n
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	total := [2]int{}
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-40s %3d/%3d\n", k, counts[k][1], counts[k][0])
		total[0] += counts[k][0]
		total[1] += counts[k][1]
	}
	t.Logf("corpus under default (passed/total):\n%s  total %d/%d", b.String(), total[1], total[0])
}

// TestCorpusAttacksParanoid: everything the default profile blocks, the
// paranoid profile blocks too (a stricter profile never loosens).
func TestCorpusAttacksParanoid(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	cases, err := fx.Load("attacks.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		res := g.Decide(Call{Source: "cli", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Attended: true})
		if !expectMet(c.Expect, res.Effective) {
			t.Errorf("%s: paranoid: want %s, got %s (%s)", c.Name(), c.Expect, res.Effective, res.Decision.Explain())
		}
	}
}

// TestCorpusYoloRefusesNothingButExplains: yolo observes; the decision
// still names the forbid that would have stopped the call.
func TestCorpusYoloRefusesNothingButExplains(t *testing.T) {
	g, fx := fixtureGate(t, "yolo")
	cases, err := fx.Load("attacks.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		res := g.Decide(Call{Source: "cli", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Attended: true})
		if res.Effective != policy.Allow {
			t.Errorf("%s: yolo refused a call (%s)", c.Name(), res.Effective)
		}
		if c.Expect == "block" && res.Decision.Action != policy.Block {
			t.Errorf("%s: yolo's log would not say why this was dangerous: %s", c.Name(), res.Decision.Explain())
		}
	}
}

func TestFixtureLayout(t *testing.T) {
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fx.WS, ".git")); err != nil {
		t.Fatalf("fixture workspace has no .git: %v", err)
	}
}
