package hook

import (
	"fmt"
	"io"

	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// shapeOf names the agent whose own event shape root has, when that agent
// refuses by a JSON answer rather than by exit 2 (Copilot, Cline), and ""
// otherwise. It only picks the format of a refusal of an event the hook
// could not read: Claude Code always sends tool_name, so no event of its
// own is answered in another format.
func shapeOf(root gjson.Result) Agent {
	if !root.IsObject() || root.Get("tool_name").Exists() {
		return ""
	}
	switch {
	case root.Get("toolName").Type == gjson.String:
		return Copilot
	case root.Get("hookName").Type == gjson.String && (root.Get("preToolUse").IsObject() || root.Get("tool_call").IsObject()):
		return Cline
	}
	return ""
}

// RefuseUnknownAgent answers an event read by an airlock-hook whose
// --agent names no agent (why says so): a refusal, in the format of the
// agent the event is shaped as (Copilot's or Cline's JSON), else Claude
// Code's exit 2, which the other agents read as a refusal.
func RefuseUnknownAgent(stdin io.Reader, stdout, stderr io.Writer, why string) int {
	data, _ := io.ReadAll(io.LimitReader(stdin, maxEvent))
	msg := why + ". Airlock fails closed; fix the hook's command line (airlock init writes it)."
	if a := shapeOf(gjson.ParseBytes(data)); a != "" {
		return adapterFor(a).answer(answerTo{stdout, stderr}, &Event{Agent: a}, verdict{Action: policy.Block, Reason: msg})
	}
	fmt.Fprintf(stderr, "Airlock blocked this call: %s\n", msg)
	return ExitBlock
}
