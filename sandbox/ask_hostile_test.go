package sandbox

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// hostilePerson is a fake ask channel: it answers every question with
// answer and keeps the questions.
type hostilePerson struct {
	mu     sync.Mutex
	answer ask.Answer
	asked  []ask.Request
}

func (p *hostilePerson) Ask(_ context.Context, r ask.Request) ask.Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r)
	return ask.Outcome{Answer: p.answer, Asked: audit.AskedHuman, Detail: "a person answered via test"}
}

func hostilePolicy(t *testing.T, yaml string) *policy.Policy {
	t.Helper()
	dir := t.TempDir()
	file := dir + "/policy.yaml"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := policy.LoadFile(file, policy.Vars{Workspace: dir, Home: dir, Tmp: dir, User: "dev", AirlockHome: dir})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

// REGRESSION (passes): a name a person approved is not asked about again
// for the address it resolves to, and a scheme or port the person did not
// see is asked about anew.
func TestHostileEgressAskOncePerDestination(t *testing.T) {
	p := hostilePolicy(t, "mode: enforce\ndefault: ask\nask_fallback: block\nrules: []\n")
	per := &hostilePerson{answer: ask.Allow}
	fn := egressPolicyVerdict(p, per)
	if v := fn("api.test", 443, "https", false); !v.allow || v.asked != audit.AskedHuman {
		t.Fatalf("name: %+v", v)
	}
	if v := fn("93.184.216.34", 443, "https", true); !v.allow || len(per.asked) != 1 {
		t.Fatalf("resolved address asked again: %+v, %d asks", v, len(per.asked))
	}
	fn("api.test", 80, "http", false)
	fn("api.test", 8443, "https", false)
	if len(per.asked) != 3 || per.asked[1].Shape == per.asked[0].Shape || per.asked[2].Shape == per.asked[0].Shape {
		t.Fatalf("another scheme/port shared a shape: %+v", per.asked)
	}
}
