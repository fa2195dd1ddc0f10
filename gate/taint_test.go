package gate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/taint"
)

// fakeTaints is a taint store in memory.
type fakeTaints struct {
	entries map[string]*taint.Entry
	err     error
	reads   int
}

func (f *fakeTaints) Of(session string) (*taint.Entry, error) {
	f.reads++
	return f.entries[session], f.err
}

func taintedEntry(session string) *taint.Entry {
	now := time.Now()
	return &taint.Entry{Session: session, Since: now.Add(-time.Minute).UnixMilli(), Until: now.Add(time.Hour).UnixMilli(),
		Sources: []taint.Source{{Origin: "hook", Tool: "mcp__notes__read_note", At: now.Add(-time.Minute).UnixMilli(), What: "instructions to read ~/.ssh/id_rsa"}},
		Hosts:   []string{"api.github.com"}}
}

// TestGateEscalatesATaintedSession: the gate reads the call's session's
// taint and a privileged action escalates — ask under default, block under
// paranoid — with the source in the reason; another session, and a call
// that is not privileged, are decided as before.
func TestGateEscalatesATaintedSession(t *testing.T) {
	newHost := Call{Source: "hook", Tool: "WebFetch", Input: []byte(`{"url":"https://collect.example.net/x","prompt":"ok"}`), Session: "s1", Attended: true}
	knownHost := Call{Source: "hook", Tool: "WebFetch", Input: []byte(`{"url":"https://api.github.com/zen","prompt":"ok"}`), Session: "s1", Attended: true}
	for _, tc := range []struct {
		profile string
		want    policy.Action
	}{{"default", policy.Ask}, {"paranoid", policy.Block}} {
		g, fx := fixtureGate(t, tc.profile)
		ft := &fakeTaints{entries: map[string]*taint.Entry{"s1": taintedEntry("s1")}}
		g.Taints = ft
		newHost.Cwd, knownHost.Cwd = fx.WS, fx.WS
		res := g.Decide(newHost)
		if res.Effective != tc.want || res.Decision.Source != policy.FromTaint || !strings.Contains(res.Decision.Reason, "after the result of mcp__notes__read_note at ") ||
			!strings.Contains(res.Decision.Reason, "instructions to read ~/.ssh/id_rsa") {
			t.Errorf("%s: tainted, a new host: %s %s", tc.profile, res.Effective, res.Decision.Explain())
		}
		if res := g.Decide(knownHost); res.Decision.Source == policy.FromTaint {
			t.Errorf("%s: a host the session knew escalated: %s", tc.profile, res.Decision.Explain())
		}
		other := newHost
		other.Session = "s2"
		if res := g.Decide(other); res.Decision.Source == policy.FromTaint {
			t.Errorf("%s: an untainted session escalated: %s", tc.profile, res.Decision.Explain())
		}
		if ft.reads != 3 {
			t.Errorf("%s: %d taint reads for 3 calls", tc.profile, ft.reads)
		}
	}
}

// TestGateTakesAnUnreadableTaintForATaint: a state the store cannot read
// escalates privileged actions (fail closed) and says how to start over.
func TestGateTakesAnUnreadableTaintForATaint(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	g.Taints = &fakeTaints{err: errors.New("taint/abc.json: invalid taint state")}
	res := g.Decide(Call{Source: "hook", Tool: "Bash", Input: []byte(`{"command":"curl -s https://example.com"}`), Cwd: fx.WS, Session: "s1", Attended: true})
	if res.Effective != policy.Ask || !strings.Contains(res.Decision.Reason, "could not be read") || !strings.Contains(res.Decision.Reason, "airlock taint clear s1") {
		t.Errorf("unreadable taint: %s %s", res.Effective, res.Decision.Explain())
	}
}

// TestTaintedBlockNotificationNamesThePerson: the block notice of a
// taint escalation names the command a person runs to end it.
func TestTaintedBlockNotificationNamesThePerson(t *testing.T) {
	n := blockNote(Call{Source: "hook", Tool: "WebFetch", Session: "s1"}, policy.Decision{Action: policy.Block, Source: policy.FromTaint, Rule: "taint.privileged"})
	if !strings.Contains(n.Fix, "airlock taint clear s1") {
		t.Errorf("fix %q", n.Fix)
	}
}
