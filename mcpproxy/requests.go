package mcpproxy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
	"github.com/tidwall/gjson"
)

// Server→client requests: a server may ask the client's model for a
// completion (sampling/createMessage), the person for input
// (elicitation/create) or the client for its roots (roots/list) — and
// under protocol 2026-07-28 it asks the same inside a tools/call answer
// (resultType "input_required", inputRequests), to be retried with
// inputResponses. Each is a call of its own: decided by the gate under
// the name mcp__SERVER__<method with "/" as "_"> (mcp__notes__sampling_createMessage,
// mcp__notes__elicitation_create, mcp__notes__roots_list), recorded, and
// refused from a held server. Only what the policy names refuses them
// (its default does not apply, as for resources/read), besides two
// refusals of the proxy's own: an elicitation that asks for credentials
// (the spec says servers must not), and a sampling request that asks the
// model to read secrets or carries injection.

// serverRequests are the methods decided as calls.
var serverRequests = map[string]bool{"sampling/createMessage": true, "elicitation/create": true, "roots/list": true}

// requestVerdict is the decision on one server request.
type requestVerdict struct {
	refused bool
	reason  string
	rule    string
	source  string
}

// decideServerRequest decides one server→client request and records it.
func (p *Proxy) decideServerRequest(method string, params gjson.Result) requestVerdict {
	args := []byte("{}")
	if params.IsObject() {
		args = []byte(params.Raw)
	}
	tool := gate.MCPName(p.opts.Name, method)
	refuse := func(rule, reason string) requestVerdict {
		p.record(audit.Record{Event: "decision", Tool: tool, Decision: "block", Effective: "block", Rule: rule,
			Reason: reason, ArgsDigest: audit.ArgsDigest(args)})
		return requestVerdict{refused: true, reason: reason, rule: rule, source: "ingress"}
	}
	if d, held := p.adm.heldDecision(); held {
		return refuse(d.Rule, d.Reason)
	}
	switch method {
	case "elicitation/create":
		if why := asksForCredentials(params); why != "" {
			return refuse("ingress:elicitation-credentials", "the server asks the person for a credential ("+why+"); MCP forbids servers to request sensitive information through elicitation")
		}
	case "sampling/createMessage":
		if why := samplingAbuse(params); why != "" {
			return refuse("ingress:sampling", "the server's sampling request "+why)
		}
	}
	res := p.decide(gate.Call{Tool: tool, Input: args})
	if res.Effective != policy.Allow && res.Decision.Source != policy.FromDefault {
		d := res.Refusal()
		return requestVerdict{refused: true, reason: d.Explain(), rule: d.Rule, source: string(d.Source)}
	}
	return requestVerdict{}
}

// credentialWords are what a form asking for a secret names.
var credentialWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:pass(?:word|wd|phrase)|api[\s_-]?keys?|access[\s_-]?keys?|secret(?:[\s_-]?keys?)?|client[\s_-]?secret|tokens?|bearer|credentials?|private[\s_-]?keys?|ssh[\s_-]?keys?|otp|one[\s_-]?time[\s_-]?(?:code|password)|2fa|mfa|totp|pin[\s_-]?(?:code|number)|card[\s_-]?number|cvv|cvc|ssn|social[\s_-]?security|seed[\s_-]?phrase|mnemonic|recovery[\s_-]?(?:code|phrase)|aws_\w+|github_\w*token|\w+_token|\w+_api_key|\w+_secret)\b`)
})

// asksForCredentials says what in a form elicitation asks for a
// credential, or "". A URL-mode elicitation sends the person to a page of
// the server's (where the spec wants credentials entered), so only forms
// are read.
func asksForCredentials(params gjson.Result) string {
	if params.Get("mode").Str == "url" {
		return ""
	}
	var texts []string
	texts = append(texts, params.Get("message").Str)
	params.Get("requestedSchema.properties").ForEach(func(k, v gjson.Result) bool {
		texts = append(texts, k.Str, v.Get("title").Str, v.Get("description").Str)
		return true
	})
	for _, s := range texts {
		if m := credentialWords().FindString(scan.UnquoteShell(s)); m != "" {
			return "it names " + strings.ToLower(textsafe.Escape(clip(m, 40)))
		}
	}
	return ""
}

// samplingAbuse says what in a sampling request is refused, or "": text
// for the model that carries injection (High), hides text, or points it at
// secrets.
func samplingAbuse(params gjson.Result) string {
	var b strings.Builder
	b.WriteString(params.Get("systemPrompt").Str)
	params.Get("messages").ForEach(func(_, m gjson.Result) bool {
		c := m.Get("content")
		add := func(v gjson.Result) {
			if t := v.Get("text"); t.Type == gjson.String {
				b.WriteString("\n\n" + t.Str)
			}
		}
		if c.IsArray() {
			c.ForEach(func(_, v gjson.Result) bool { add(v); return true })
		} else {
			add(c)
		}
		return true
	})
	fs := scan.Text(b.String(), scan.Instructions)
	if bad, why := scan.Poisoned(fs); bad {
		return "carries instructions to the model: " + why
	}
	for _, f := range fs {
		if f.Category == scan.Secret && f.Severity >= scan.Med {
			return "asks the model to read secrets (" + f.Explain + ": " + f.Match + ")"
		}
		if f.Category == scan.Stealth && f.Severity >= scan.High {
			return "hides text from the person (" + f.Explain + ")"
		}
	}
	return ""
}

// inputRequired decides the requests an input_required tools/call answer
// carries (2026-07-28). When one is refused the answer is replaced by a
// refusal the model reads: the client never puts the request to its model
// or its person.
func (p *Proxy) inputRequired(pr pendingReq, m gjson.Result) (body string) {
	res := m.Get("result")
	if res.Get("resultType").Str != "input_required" {
		return ""
	}
	var refusal string
	res.Get("inputRequests").ForEach(func(k, req gjson.Result) bool {
		method := req.Get("method").Str
		if !serverRequests[method] {
			refusal = "it asked for input of an unknown kind (" + textsafe.Escape(clip(method, 60)) + ")"
			p.record(audit.Record{Event: "decision", Tool: gate.MCPName(p.opts.Name, "inputRequests"), Decision: "block", Effective: "block",
				Rule: "ingress:input-request", Reason: refusal, ArgsDigest: audit.ArgsDigest([]byte(req.Raw))})
			return false
		}
		if v := p.decideServerRequest(method, req.Get("params")); v.refused {
			refusal = "its request " + textsafe.Escape(clip(k.Str, 60)) + " (" + method + ") was refused: " + v.reason
			return false
		}
		return true
	})
	if refusal == "" {
		return ""
	}
	return string(toolRefusal(m.Get("id").Raw, policy.Decision{Action: policy.Block, Rule: "ingress:input-request", Reason: "the server " + refusal}))
}
