package mcpproxy

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan/secret"
	"github.com/tidwall/gjson"
)

// clientLoop reads the client's messages until its input ends.
func (p *Proxy) clientLoop(r io.Reader) {
	lr := newLineReader(r, p.opts.MaxMessage)
	for {
		line, err := lr.next()
		var big *oversized
		if errors.As(err, &big) {
			if p.clientOversized(big) != nil {
				return
			}
			continue
		}
		if err != nil {
			return
		}
		if err := p.fromClient(line); err != nil {
			return
		}
	}
}

// serverLoop reads the server's messages until its output ends.
func (p *Proxy) serverLoop(r io.Reader) {
	lr := newLineReader(r, p.opts.MaxMessage)
	for {
		line, err := lr.next()
		var big *oversized
		if errors.As(err, &big) {
			err = p.serverOversized(big)
		} else if err == nil {
			err = p.fromServer(line)
		} else {
			return
		}
		if err != nil {
			// the client is gone; keep draining so the server is not
			// blocked writing to a full pipe while it shuts down
			_, _ = io.Copy(io.Discard, r)
			return
		}
	}
}

// fromClient handles one line from the client: forward it, or answer it
// in the server's place when the gate refuses it.
func (p *Proxy) fromClient(line string) error {
	msg := trimSpace(line)
	if len(msg) == 0 {
		return nil // a blank line: a JSON-RPC reader fails on it, and it says nothing
	}
	if prob := framingProblem(msg); prob != "" {
		p.refuseClient("client line refused: " + prob)
		return p.answerUnread(scanTop(msg), errorCode, "Airlock blocked this message: "+prob)
	}
	if !gjson.Valid(msg) {
		// Not JSON to us: a lenient server might still read a call in it
		// (NaN, comments), so it is never forwarded ungated.
		p.refuseClient("client sent a line that is not JSON; answered with a parse error")
		return p.answerUnread(scanTop(msg), codeParseError, "Airlock: the message is not valid JSON")
	}
	switch msg[0] {
	case '[':
		return p.clientBatch(line, msg)
	case '{':
	default:
		p.refuseClient("client sent a JSON value that is not a message; refused")
		return p.toClient.write(errorAnswerCode("null", codeInvalidRequest, "Airlock blocked this message: it is not a JSON-RPC message", "", ""))
	}
	fwd, answer := p.clientMessage(msg)
	if answer != nil {
		if err := p.toClient.write(answer); err != nil {
			return err
		}
	}
	if fwd {
		return p.toServer.writeString(line)
	}
	return nil
}

// clientOversized refuses a client message past the cap, read to its end
// but not kept: each request in it is answered by its id.
func (p *Proxy) clientOversized(big *oversized) error {
	p.refuseClient("client message refused: " + big.Error())
	return p.answerUnread(big.top, errorCode, "Airlock blocked this message: "+big.Error()+
		" (AIRLOCK_MCP_MAX_MESSAGE or --max-message sets it)")
}

// answerUnread answers a message the proxy would not read whole: every
// request whose id its top level shows gets the error with that id, a
// notification nothing, and a message whose id cannot be told apart one
// answer with id null, as JSON-RPC says.
func (p *Proxy) answerUnread(top topLevel, code int, message string) error {
	var answers []string
	null := func() {
		answers = append(answers, string(errorAnswerCode("null", code, message, "", "")))
	}
	for _, m := range top.msgs {
		switch {
		case m.id != "" && m.method:
			id := replyID(m.id)
			answers = append(answers, string(errorAnswerCode(id, code, message, "", "")))
			p.markAnswered(rawKey(id))
		case m.method && !m.idBad:
			// a notification gets no answer
		default:
			// not a request, or its id cannot be told; a response's id
			// is the server's, never answered to the client
			null()
		}
	}
	if len(top.msgs) == 0 || top.more {
		null()
	}
	switch {
	case len(answers) == 0:
		return nil
	case len(answers) == 1 && top.kind != '[':
		return p.toClient.write([]byte(answers[0]))
	}
	return p.toClient.write([]byte("[" + strings.Join(answers, ",") + "]"))
}

// clientBatch gates a JSON-RPC batch element by element: the allowed
// elements go to the server as one batch, the refusals come back to the
// client as one batch.
func (p *Proxy) clientBatch(line, msg string) error {
	var keep, answers []string
	refused := false
	// Answers with id null are alike to the client, which can match none
	// of them: each distinct one is sent once, or a batch of two-byte
	// elements would be answered with seventy times its size.
	nulls := map[string]bool{}
	add := func(answer string) {
		if strings.HasPrefix(answer, `{"jsonrpc":"2.0","id":null,`) {
			if nulls[answer] {
				return
			}
			nulls[answer] = true
		}
		answers = append(answers, answer)
	}
	gjson.Parse(msg).ForEach(func(_, el gjson.Result) bool {
		if !el.IsObject() {
			// a batch holds requests and notifications, nothing else;
			// a nested batch would reach the server ungated
			add(string(errorAnswerCode("null", codeInvalidRequest, "Airlock blocked this batch element: not a JSON-RPC message", "", "")))
			refused = true
			return true
		}
		fwd, answer := p.clientMessage(el.Raw)
		if answer != nil {
			add(string(answer))
		}
		if fwd {
			keep = append(keep, el.Raw)
		} else {
			refused = true
		}
		return true
	})
	if len(answers) > 0 {
		if err := p.toClient.write([]byte("[" + strings.Join(answers, ",") + "]")); err != nil {
			return err
		}
	}
	switch {
	case !refused:
		return p.toServer.writeString(line)
	case len(keep) > 0:
		return p.toServer.writeString("[" + strings.Join(keep, ",") + "]")
	}
	return nil
}

// clientMessage decides one message from the client: whether it goes on
// to the server, and the proxy's own answer if it does not.
func (p *Proxy) clientMessage(msg string) (forward bool, answer []byte) {
	root := gjson.Parse(msg)
	if !root.IsObject() {
		return true, nil
	}
	method, id := root.Get("method"), root.Get("id")
	if bad := ambiguity(root); bad != "" {
		// Two parsers could read two different messages out of it.
		p.refuseClient("client message refused: " + textsafe.Escape(bad))
		if !method.Exists() {
			return false, nil
		}
		answerID := "null"
		if _, why := idKey(id); why == "" {
			answerID = id.Raw
		}
		if !id.Exists() {
			return false, nil
		}
		return false, errorAnswer(answerID, "Airlock blocked this request: "+bad+", so it could be read two ways", "", "")
	}
	if !method.Exists() {
		// a response to a server request
		if k, why := idKey(id); why == "" {
			p.mu.Lock()
			delete(p.serverPending, k)
			p.mu.Unlock()
		}
		return true, nil
	}
	key := ""
	if id.Exists() {
		k, why := idKey(id)
		if why != "" {
			// no answer could be matched to it the way every client
			// matches one
			p.refuseClient("client request refused: " + why)
			return false, errorAnswerCode("null", codeInvalidRequest, "Airlock blocked this request: "+why, "", "")
		}
		if p.inFlight(k) {
			// MCP forbids it, and the server's answer could be taken
			// for either request: by the proxy for one, by the client
			// for the other (a listing read as a call's result would
			// reach the model unadmitted)
			p.refuseClient("client request refused: id " + textsafe.Escape(clip(id.Raw, 80)) + " is already in flight")
			return false, errorAnswerCode(id.Raw, codeInvalidRequest, "Airlock blocked this request: id "+clip(id.Raw, 80)+" is already in flight (MCP forbids reusing a request id within a session)", "", "")
		}
		key = k
	}
	m := method.String()
	switch m {
	case "tools/call":
		// gated with or without an id: a lenient server runs a
		// notification-shaped call too
		return p.gateToolCall(root, id, key)
	case "resources/read", "prompts/get":
		return p.gateRequest(root, m, id, key)
	}
	if !id.Exists() {
		if m == "notifications/cancelled" {
			rk, _ := idKey(root.Get("params.requestId"))
			p.mu.Lock()
			_, mine := p.answered[rk]
			delete(p.answered, rk)
			p.mu.Unlock()
			if mine && rk != "" {
				return false, nil // the server never saw that request
			}
		}
		return true, nil
	}
	p.track(key, id.Raw, m, root)
	return true, nil
}

// ambiguity says why a message could be read differently by another JSON
// parser, or "".
func ambiguity(root gjson.Result) string {
	if dup := duplicateKey(root, 0); dup != "" {
		return "the message repeats the key " + strconv.Quote(dup)
	}
	if k := misspelledKey(root); k != "" {
		return "the key " + strconv.Quote(k) + " differs only in case from a JSON-RPC field"
	}
	return ""
}

// track remembers a client request so the server's answer can be matched:
// by key, with the client's spelling to answer in.
func (p *Proxy) track(key, raw, method string, root gjson.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	// raw is a piece of the message: a copy keeps the map from holding
	// the whole line
	pr := pendingReq{method: method, seq: p.seq, raw: strings.Clone(raw)}
	switch method {
	case "tools/list":
		pr.first = !root.Get("params.cursor").Exists()
		p.adm.clientListing(pr.first)
	case "prompts/list", "resources/list", "resources/templates/list":
		pr.first = !root.Get("params.cursor").Exists()
	case "tools/call", "prompts/get":
		pr.tool = strings.Clone(root.Get("params.name").Str)
	case "resources/read":
		pr.tool = strings.Clone(root.Get("params.uri").Str)
	}
	p.pending[key] = pr
	delete(p.answered, key) // a cancel for it is the server's again
	if len(p.pending) > maxPending {
		prune(p.pending, func(v pendingReq) uint64 { return v.seq }, p.seq)
	}
}

func prune[V any](m map[string]V, seq func(V) uint64, now uint64) {
	for k, v := range m {
		if now-seq(v) > maxPending/2 {
			delete(m, k)
		}
	}
}

// inFlight reports whether a client request with this key is pending.
func (p *Proxy) inFlight(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.pending[key]
	return ok
}

// markAnswered notes a client request the proxy answered itself.
func (p *Proxy) markAnswered(key string) {
	if key == "" {
		return
	}
	p.mu.Lock()
	p.seq++
	p.answered[key] = p.seq
	if len(p.answered) > maxPending {
		prune(p.answered, func(v uint64) uint64 { return v }, p.seq)
	}
	p.mu.Unlock()
}

// gateToolCall decides a tools/call.
func (p *Proxy) gateToolCall(root, idv gjson.Result, key string) (bool, []byte) {
	id := idv.Raw
	params := root.Get("params")
	name := params.Get("name")
	if name.Type != gjson.String || name.Str == "" {
		p.refuseClient("tools/call without a tool name; refused")
		if !idv.Exists() {
			return false, nil
		}
		p.markAnswered(key)
		return false, errorAnswer(id, "Airlock blocked this request: tools/call has no tool name", "", "")
	}
	tool := name.String()
	args := []byte("{}")
	if a := params.Get("arguments"); a.Exists() {
		args = []byte(a.Raw)
	}
	p.adm.await(params.Get("_meta"))
	res := p.decide(gate.Call{Tool: gate.MCPName(p.opts.Name, tool), ServerTool: tool, Input: args})
	if ir := params.Get("inputResponses"); res.Effective == policy.Allow && ir.Exists() {
		// a retry after input_required (2026-07-28): what the client
		// answers the server is gated like the arguments, under the
		// tool's name
		in := []byte(ir.Raw)
		if !ir.IsObject() {
			in = []byte(`{"inputResponses":` + ir.Raw + `}`)
		}
		res = p.decide(gate.Call{Tool: gate.MCPName(p.opts.Name, tool), Input: in})
	}
	if res.Effective == policy.Allow {
		if idv.Exists() {
			p.track(key, id, "tools/call", root)
		}
		return true, nil
	}
	if !idv.Exists() {
		return false, nil // refused and recorded; a notification gets no answer
	}
	p.markAnswered(key)
	return false, toolRefusal(id, res.Refusal())
}

// gateRequest decides resources/read and prompts/get. Only what the policy
// speaks to is refused: the default decision does not apply to them.
func (p *Proxy) gateRequest(root gjson.Result, method string, idv gjson.Result, key string) (bool, []byte) {
	id := idv.Raw
	params := root.Get("params")
	args := []byte("{}")
	if params.IsObject() {
		args = []byte(params.Raw)
	}
	tool := gate.MCPName(p.opts.Name, method)
	var d policy.Decision
	refused := false
	if hd, held := p.adm.heldDecision(); held {
		// a held server is refused everything that reaches the model
		d, refused = hd, true
		p.record(audit.Record{Event: "decision", Tool: tool, Decision: "block", Effective: "block",
			Rule: hd.Rule, Reason: hd.Reason, ArgsDigest: audit.ArgsDigest(args)})
	} else {
		res := p.decide(gate.Call{Tool: tool, Input: args})
		d, refused = res.Decision, res.Effective != policy.Allow && res.Decision.Source != policy.FromDefault
	}
	if !refused {
		if idv.Exists() {
			p.track(key, id, method, root)
		}
		return true, nil
	}
	if !idv.Exists() {
		return false, nil
	}
	p.markAnswered(key)
	return false, errorAnswer(id, "Airlock blocked this request: "+d.Explain(), d.Rule, string(d.Source))
}

// decide runs the gate on a call from this server's client. The gate
// refuses on any internal error (it recovers its own panics into a block).
func (p *Proxy) decide(c gate.Call) gate.Result {
	c.Source = "mcp"
	c.Server = p.opts.Name
	c.Cwd = p.opts.Dir
	c.Session = p.session
	res := p.gate.Decide(c)
	p.sayUnrecorded(res)
	if p.opts.Observe != nil && res.Mode == policy.Observe && c.ServerTool != "" && res.Facts != nil {
		p.opts.Observe(c.ServerTool, res.Facts)
	}
	return res
}

// clip shortens s to n bytes. It always copies: s is often a piece of a
// message, which a kept piece would keep whole.
//
// A text past n is masked first (scan/secret), as the audit log would mask
// it whole: a token cut in two no longer has its shape.
func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	if s = secret.Mask(s); len(s) <= n {
		return strings.Clone(s)
	}
	return s[:n] + "…"
}
