package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/scan/secret"
)

// maskMCPResult hands Claude Code an MCP tool's result with its secrets
// masked: from 2.1.112 a PostToolUse answer's updatedMCPToolOutput
// replaces the MCP output before the model sees it. A masking is a
// decision, so its record (the shapes and their digests, never the
// secrets) is written first. A result with no secret is left alone and
// nothing is printed. It reports whether it answered.
func maskMCPResult(o Options, log *audit.Log, ev *Event) bool {
	if !strings.HasPrefix(ev.Tool, "mcp__") || ev.Name == "PostToolUseFailure" || !(ev.Response.IsObject() || ev.Response.IsArray()) {
		return false
	}
	out, hits := secret.MaskBytes([]byte(ev.Response.Raw))
	if len(hits) == 0 {
		return false
	}
	kinds := make([]string, 0, len(hits))
	for _, h := range hits {
		k := h.Rule
		if h.Digest != "" {
			k += ":" + h.Digest
		}
		kinds = append(kinds, k)
	}
	if _, err := log.Append(audit.Record{Event: "mask", Source: "hook", Session: ev.Session, Tool: ev.Tool, Decision: "mask", Effective: "masked",
		Rule: "secrets.mask", Reason: fmt.Sprintf("%d secret(s) masked in the result before the model saw it", len(hits)),
		Detail: "masked=" + strings.Join(kinds, ",")}); err != nil {
		// masked all the same: an unrecorded mask is safer than the secret
		warnf(o, "the masking was not recorded: %v", err)
	}
	var v any = json.RawMessage(out)
	if ev.Response.IsArray() {
		// the event carries an MCP result's content; the answer is a result
		v = map[string]any{"content": json.RawMessage(out)}
	}
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse", "updatedMCPToolOutput": v}})
	if err != nil {
		warnf(o, "the masked result could not be encoded: %v", err)
		return false
	}
	fmt.Fprintf(o.Stdout, "%s\n", b)
	return true
}
