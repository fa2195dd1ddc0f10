package scan

import "github.com/agentairlock/airlock/internal/jsonwalk"

// A server's answer (a tools/call result, prompts/get messages,
// resources/read contents, an error object) or a hook's tool_response is
// JSON whose strings the model reads. The proxy and the post-tool hook
// both read them here, string by string, with ReadResult, and a result
// taints a session when one of its strings carries injection (AnswerInjected):
// the same measure whichever front end saw the result, and the same cost
// (the cheap pass first, the full scan only where it may find something).

// unread are the members no model reads as text: types, media types,
// addresses, binary payloads, metadata.
var unread = map[string]bool{"type": true, "mimeType": true, "uri": true, "uriTemplate": true, "data": true, "blob": true,
	"_meta": true, "resultType": true, "role": true, "annotations": true, "jsonrpc": true, "code": true}

// AnswerString is one string of an answer that ReadResult changed or that
// taints (a caller that rewrites the answer edits only what Changed).
type AnswerString struct {
	A, B    int           // its span in the answer, quotes included
	Path    func() string // its place ("content[0].text"), built when asked
	Reading Reading
}

// ReadAnswer reads every string of the JSON value raw that a model reads
// and calls fn for each one ReadResult changed (instructions, hidden
// text, control sequences) or that taints, in order. A string whose escapes read as
// nothing to act on is not decoded (QuietJSON).
func ReadAnswer(raw string, fn func(AnswerString)) {
	jsonwalk.EachString(raw, unread, func(path func() string, a, b int, esc bool) {
		if esc && QuietJSON(raw[a+1:b-1]) {
			return // no need to decode it to know
		}
		r := ReadResult(jsonwalk.Text(raw, a, b, esc))
		if r.Changed() || r.Taints {
			fn(AnswerString{A: a, B: b, Path: path, Reading: r})
		}
	})
}

// AnswerInjected judges an answer on its way to the model (the JSON value raw:
// an MCP tool's result or content, a fetched page's, a search's, or a
// JSON string for a text): it is injected when one of its strings
// taints the session (ReadResult's Taints: instructions to the model,
// hidden text, or what the full scan judges an attack). why names the evidence and id the indicator
// behind it, for the taint's provenance.
func AnswerInjected(raw string) (why, id string, ok bool) {
	ReadAnswer(raw, func(s AnswerString) {
		if !ok && s.Reading.Taints {
			why, id, ok = s.Reading.Reason, s.Reading.Rule(), true
		}
	})
	return why, id, ok
}

// Injected is AnswerInjected for one text (a failed tool's error message).
func Injected(s string) (why, id string, ok bool) {
	r := ReadResult(s)
	if !r.Taints {
		return "", "", false
	}
	return r.Reason, r.Rule(), true
}

// Rule is the indicator behind what r acted on: its strongest finding's.
func (r Reading) Rule() string {
	var top *Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.ID == "scan.truncated" {
			continue
		}
		if top == nil || f.Severity > top.Severity {
			top = f
		}
	}
	if top == nil {
		return ""
	}
	return top.ID
}
