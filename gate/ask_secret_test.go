package gate

import (
	"strings"
	"testing"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/policy"
)

// DEFECT (found in review of issue 14): the question put to a person held
// the call's arguments and target as the agent wrote them. A desktop
// dialog is a program (zenity, kdialog, osascript) whose argv every local
// user can read in /proc/PID/cmdline, so a token in an asked-about call
// was shown to them — the audit log masks it, the question did not. The
// question carries the masked text, the token's kind and digest telling a
// person what it is.
func TestAskQuestionNeverCarriesASecret(t *testing.T) {
	g, fx := fixtureGate(t, "paranoid")
	tok := "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
	p := &person{answer: ask.Deny}
	gg := *g
	gg.Ask, gg.Log = p, &records{}
	in := `{"path":"` + fx.WS + `/out-` + tok + `.txt","content":"token=` + tok + `"}`
	res := gg.Decide(Call{Source: "mcp", Tool: "mcp__fs__write_file", Input: []byte(in), Cwd: fx.WS})
	if p.asked.Load() != 1 {
		t.Fatalf("not asked (%s): the test needs an ask", res.Decision.Explain())
	}
	if res.Effective != policy.Block {
		t.Fatalf("%s", res.Effective)
	}
	q := p.last
	for name, s := range map[string]string{"args": q.Args, "target": q.Target, "reason": q.Reason} {
		if strings.Contains(s, tok[4:16]) {
			t.Errorf("the question's %s carries the token: %q", name, s)
		}
	}
	if !strings.Contains(q.Args, "[masked github-token") {
		t.Errorf("the args do not say what was masked: %q", q.Args)
	}
}
