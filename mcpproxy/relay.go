package mcpproxy

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// clientLoop reads the client's messages until its input ends.
func (p *Proxy) clientLoop(r io.Reader) {
	lr := newLineReader(r)
	for {
		line, err := lr.next()
		if err != nil {
			return
		}
		if err := p.fromClient(line); err != nil {
			return
		}
		lr.shrink()
	}
}

// serverLoop reads the server's messages until its output ends.
func (p *Proxy) serverLoop(r io.Reader) {
	lr := newLineReader(r)
	for {
		line, err := lr.next()
		if err != nil {
			return
		}
		if err := p.fromServer(line); err != nil {
			// the client is gone; keep draining so the server is not
			// blocked writing to a full pipe while it shuts down
			_, _ = io.Copy(io.Discard, r)
			return
		}
		lr.shrink()
	}
}

// fromClient handles one line from the client: forward it, or answer it
// in the server's place when the gate refuses it.
func (p *Proxy) fromClient(line []byte) error {
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return p.toServer.write(line)
	}
	if prob := framingProblem(msg); prob != "" {
		p.record(audit.Record{Event: "mcp_malformed", Detail: "client line refused: " + prob})
		return p.toClient.write(errorAnswer("null", "Airlock blocked this message: "+prob, "", ""))
	}
	if !gjson.ValidBytes(msg) {
		// Not JSON to us: a lenient server might still read a call in it
		// (NaN, comments), so it is never forwarded ungated.
		p.record(audit.Record{Event: "mcp_malformed", Detail: "client sent a line that is not JSON; answered with a parse error"})
		return p.toClient.write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Airlock: the message is not valid JSON","data":{"blocked_by":"airlock"}}}`))
	}
	if msg[0] == '[' {
		return p.clientBatch(line, msg)
	}
	fwd, answer := p.clientMessage(msg)
	if answer != nil {
		if err := p.toClient.write(answer); err != nil {
			return err
		}
	}
	if fwd {
		return p.toServer.write(line)
	}
	return nil
}

// clientBatch gates a JSON-RPC batch element by element: the allowed
// elements go to the server as one batch, the refusals come back to the
// client as one batch.
func (p *Proxy) clientBatch(line, msg []byte) error {
	var keep, answers []string
	refused := false
	gjson.ParseBytes(msg).ForEach(func(_, el gjson.Result) bool {
		if !el.IsObject() {
			// a batch holds requests and notifications, nothing else;
			// a nested batch would reach the server ungated
			answers = append(answers, string(errorAnswer("null", "Airlock blocked this batch element: not a JSON-RPC message", "", "")))
			refused = true
			return true
		}
		fwd, answer := p.clientMessage([]byte(el.Raw))
		if answer != nil {
			answers = append(answers, string(answer))
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
		return p.toServer.write(line)
	case len(keep) > 0:
		return p.toServer.write([]byte("[" + strings.Join(keep, ",") + "]"))
	}
	return nil
}

// clientMessage decides one message from the client: whether it goes on
// to the server, and the proxy's own answer if it does not.
func (p *Proxy) clientMessage(msg []byte) (forward bool, answer []byte) {
	root := gjson.ParseBytes(msg)
	if !root.IsObject() {
		return true, nil
	}
	if bad := ambiguity(root); bad != "" {
		// Two parsers could read two different messages out of it.
		p.record(audit.Record{Event: "mcp_malformed", Detail: "client message refused: " + audit.Escape(bad)})
		id := root.Get("id")
		if !id.Exists() {
			return false, nil
		}
		return false, errorAnswer(id.Raw, "Airlock blocked this request: "+bad+", so it could be read two ways", "", "")
	}
	method, id := root.Get("method"), root.Get("id")
	if !method.Exists() {
		// a response to a server request
		if id.Exists() {
			p.mu.Lock()
			delete(p.serverPending, id.Raw)
			p.mu.Unlock()
		}
		return true, nil
	}
	m := method.String()
	switch m {
	case "tools/call":
		// gated with or without an id: a lenient server runs a
		// notification-shaped call too
		return p.gateToolCall(root, id)
	case "resources/read", "prompts/get":
		return p.gateRequest(root, m, id)
	}
	if !id.Exists() {
		if m == "notifications/cancelled" {
			rid := root.Get("params.requestId").Raw
			p.mu.Lock()
			_, mine := p.answered[rid]
			delete(p.answered, rid)
			p.mu.Unlock()
			if mine {
				return false, nil // the server never saw that request
			}
		}
		return true, nil
	}
	p.track(id.Raw, m, root)
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

// track remembers a client request so the server's answer can be matched.
func (p *Proxy) track(id, method string, root gjson.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	pr := pendingReq{method: method, seq: p.seq}
	if method == "tools/list" {
		pr.first = !root.Get("params.cursor").Exists()
		p.adm.clientListing(pr.first)
	}
	p.pending[id] = pr
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

func (p *Proxy) markAnswered(id string) {
	p.mu.Lock()
	p.seq++
	p.answered[id] = p.seq
	if len(p.answered) > maxPending {
		prune(p.answered, func(v uint64) uint64 { return v }, p.seq)
	}
	p.mu.Unlock()
}

// gateToolCall decides a tools/call.
func (p *Proxy) gateToolCall(root, idv gjson.Result) (bool, []byte) {
	id := idv.Raw
	params := root.Get("params")
	name := params.Get("name")
	if name.Type != gjson.String || name.Str == "" {
		p.record(audit.Record{Event: "mcp_malformed", Detail: "tools/call without a tool name; refused"})
		if !idv.Exists() {
			return false, nil
		}
		p.markAnswered(id)
		return false, errorAnswer(id, "Airlock blocked this request: tools/call has no tool name", "", "")
	}
	tool := name.String()
	args := []byte("{}")
	if a := params.Get("arguments"); a.Exists() {
		args = []byte(a.Raw)
	}
	p.adm.await(params.Get("_meta"))
	res := p.decide(gate.Call{Tool: gate.MCPName(p.opts.Name, tool), ServerTool: tool, Input: args})
	if res.Effective == policy.Allow {
		if idv.Exists() {
			p.track(id, "tools/call", root)
		}
		return true, nil
	}
	if !idv.Exists() {
		return false, nil // refused and recorded; a notification gets no answer
	}
	p.markAnswered(id)
	return false, toolRefusal(id, res.Refusal())
}

// gateRequest decides resources/read and prompts/get. Only what the policy
// speaks to is refused: the default decision does not apply to them.
func (p *Proxy) gateRequest(root gjson.Result, method string, idv gjson.Result) (bool, []byte) {
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
			p.track(id, method, root)
		}
		return true, nil
	}
	if !idv.Exists() {
		return false, nil
	}
	p.markAnswered(id)
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

// maxUnsolicitedRecords bounds the records of dropped responses a server
// can cause; the rest are counted in the mcp_exit record.
const maxUnsolicitedRecords = 100

// fromServer handles one line from the server.
func (p *Proxy) fromServer(line []byte) error {
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return p.toClient.write(line)
	}
	if prob := framingProblem(msg); prob != "" {
		p.record(audit.Record{Event: "mcp_malformed", Detail: "server line dropped: " + prob})
		return nil
	}
	switch msg[0] {
	case '{':
		if p.serverMessage(gjson.ParseBytes(msg)) {
			return p.toClient.write(line)
		}
		return nil
	case '[':
		var keep []string
		dropped := false
		gjson.ParseBytes(msg).ForEach(func(_, el gjson.Result) bool {
			if p.serverMessage(el) {
				keep = append(keep, el.Raw)
			} else {
				dropped = true
			}
			return true
		})
		switch {
		case !dropped:
			return p.toClient.write(line)
		case len(keep) > 0:
			return p.toClient.write([]byte("[" + strings.Join(keep, ",") + "]"))
		}
		return nil
	}
	return p.toClient.write(line) // not ours to judge; the client will
}

// serverMessage looks at one message from the server and says whether it
// goes on to the client.
func (p *Proxy) serverMessage(m gjson.Result) bool {
	if !m.IsObject() {
		return true
	}
	if bad := ambiguity(m); bad != "" {
		// the client's parser could see another message than the one
		// the proxy judged (another id, another tool list)
		p.record(audit.Record{Event: "mcp_malformed", Detail: "server message dropped: " + audit.Escape(bad)})
		return false
	}
	method, id := m.Get("method"), m.Get("id")
	if method.Exists() {
		if id.Exists() {
			p.mu.Lock()
			p.seq++
			p.serverPending[id.Raw] = p.seq
			if len(p.serverPending) > maxPending {
				prune(p.serverPending, func(v uint64) uint64 { return v }, p.seq)
			}
			p.mu.Unlock()
		} else if method.String() == "notifications/tools/list_changed" {
			p.adm.invalidate()
		}
		return true
	}
	if !id.Exists() || id.Type == gjson.Null {
		// JSON-RPC's answer to a message whose id could not be read:
		// nobody's request, nothing to match, harmless to pass on
		return true
	}
	if strings.HasPrefix(id.Raw, p.ownPrefix) {
		p.adm.ownPage(id.Raw, m)
		return false
	}
	p.mu.Lock()
	pr, ok := p.pending[id.Raw]
	delete(p.pending, id.Raw)
	p.mu.Unlock()
	if !ok {
		p.mu.Lock()
		p.unsolicited++
		n := p.unsolicited
		p.mu.Unlock()
		if n <= maxUnsolicitedRecords {
			p.record(audit.Record{Event: "mcp_unsolicited", Detail: fmt.Sprintf("server answered id %s, which the client never sent (or already had answered); dropped", audit.Escape(clip(id.Raw, 80)))})
		}
		return false
	}
	if pr.method == "tools/list" {
		p.adm.clientPage(pr.first, m)
	}
	return true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
