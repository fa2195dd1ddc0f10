package gate

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/policy"
)

// schemaOnly is a Toolsets that holds nothing and shows one input schema.
type schemaOnly struct{ schema string }

func (schemaOnly) Check(string, string, []byte, bool) (policy.Decision, bool) {
	return policy.Decision{}, false
}

func (s schemaOnly) InputSchema(server, tool string) []byte {
	if server == "tracker" && tool == "file_issue" {
		return []byte(s.schema)
	}
	return nil
}

// TestGateHandsThePinnedSchemaToTheClassifier: an argument the pinned
// schema describes as prose names a secret path without a refusal; the
// same argument of a server with no schema is read conservatively, and
// the record's detail says where the refused target came from.
func TestGateHandsThePinnedSchemaToTheClassifier(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	rec := &records{}
	g.Log = rec
	g.Toolsets = schemaOnly{schema: `{"type":"object","properties":{"details":{"type":"string","description":"Free-form notes for the reviewer"}}}`}
	in := []byte(`{"details":"the installer opens ~/.aws/credentials"}`)
	if res := g.Decide(Call{Source: "hook", Tool: "mcp__tracker__file_issue", Input: in, Cwd: fx.WS, Attended: true}); res.Effective != policy.Allow {
		t.Fatalf("prose by the pinned schema was refused: %s", res.Decision.Explain())
	}
	res := g.Decide(Call{Source: "hook", Tool: "mcp__other__file_issue", Input: in, Cwd: fx.WS, Attended: true})
	if res.Effective != policy.Block {
		t.Fatalf("an argument of unknown use naming a secret was not refused: %s", res.Decision.Explain())
	}
	last := rec.got[len(rec.got)-1]
	if !strings.Contains(last.Detail, "named in argument details of mcp__other__file_issue: taken as read") {
		t.Fatalf("the record does not say where the target came from: %q", last.Detail)
	}
}
