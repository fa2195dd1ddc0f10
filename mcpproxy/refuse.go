package mcpproxy

import (
	"encoding/json"

	"github.com/agentairlock/airlock/policy"
)

// errorCode is the JSON-RPC error code of a refused request other than
// tools/call: an application code outside the range JSON-RPC and MCP
// reserve (-32768..-32000).
const errorCode = -31001

// BlockedPrefix starts the text of every refused tools/call.
const BlockedPrefix = "Airlock blocked this call: "

// toolRefusal answers a refused tools/call with a tool result the model can
// read (isError), which also satisfies clients that check outputSchema.
func toolRefusal(id string, d policy.Decision) []byte {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type decision struct {
		Rule   string `json:"rule,omitempty"`
		Source string `json:"source,omitempty"`
	}
	body, err := json.Marshal(struct {
		Content []content           `json:"content"`
		IsError bool                `json:"isError"`
		Meta    map[string]decision `json:"_meta"`
	}{
		Content: []content{{Type: "text", Text: BlockedPrefix + d.Explain()}},
		IsError: true,
		Meta:    map[string]decision{"airlock/decision": {Rule: d.Rule, Source: string(d.Source)}},
	})
	if err != nil {
		body = []byte(`{"content":[{"type":"text","text":"Airlock blocked this call."}],"isError":true}`)
	}
	return envelope(id, "result", body)
}

// JSON-RPC's codes for a message that is not JSON and one that is not a
// request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// errorAnswer answers a refused request with a JSON-RPC error whose data
// says the proxy, not the server, refused it.
func errorAnswer(id, message, rule, source string) []byte {
	return errorAnswerCode(id, errorCode, message, rule, source)
}

// errorAnswerCode is errorAnswer with another code.
func errorAnswerCode(id string, code int, message, rule, source string) []byte {
	body, err := json.Marshal(struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			BlockedBy string `json:"blocked_by"`
			Rule      string `json:"rule,omitempty"`
			Source    string `json:"source,omitempty"`
		} `json:"data"`
	}{Code: code, Message: message, Data: struct {
		BlockedBy string `json:"blocked_by"`
		Rule      string `json:"rule,omitempty"`
		Source    string `json:"source,omitempty"`
	}{"airlock", rule, source}})
	if err != nil {
		body = []byte(`{"code":-31001,"message":"Airlock blocked this request","data":{"blocked_by":"airlock"}}`)
	}
	return envelope(id, "error", body)
}

func envelope(id, key string, body []byte) []byte {
	out := make([]byte, 0, len(body)+len(id)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"`...)
	out = append(out, key...)
	out = append(out, `":`...)
	out = append(out, body...)
	out = append(out, '}')
	return out
}
