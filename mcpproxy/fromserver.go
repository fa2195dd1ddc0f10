package mcpproxy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/tidwall/gjson"
)

// What the server sends the client: its answers, matched to the client's
// requests by id, and its own requests and notifications.

// maxUnsolicitedRecords bounds the records of dropped responses a server
// can cause, maxDroppedRecords those of other lines it sends that are
// dropped, and maxRefusedRecords those of client messages refused as
// malformed (one 64 MiB batch of bad elements would otherwise write
// millions); the rest are counted in the mcp_exit record.
const (
	maxUnsolicitedRecords = 100
	maxDroppedRecords     = 100
	maxRefusedRecords     = 100
)

// fromServer handles one line from the server. Only a JSON-RPC message
// the client can read reaches it: a line another reader could not parse
// the same way (not JSON, a BOM, a torn frame) would be thrown away by the
// client after it settled the id it carries here, and the real answer
// that follows would then be dropped as unsolicited.
func (p *Proxy) fromServer(line string) error {
	msg := trimSpace(line)
	if len(msg) == 0 {
		return nil // a blank line: the client's reader fails on it, and it says nothing
	}
	if prob := framingProblem(msg); prob != "" {
		p.dropServer("server line dropped: " + prob)
		return nil
	}
	if !gjson.Valid(msg) {
		p.dropServer(fmt.Sprintf("server line dropped: not JSON (%d bytes, starting %s)", len(msg), textsafe.Escape(strconv.Quote(clip(msg, 40)))))
		return nil
	}
	switch msg[0] {
	case '{':
		ok, as, body := p.serverMessage(gjson.Parse(msg))
		if !ok {
			return nil
		}
		if body != "" {
			msg = body
		}
		if as == "" {
			if body != "" {
				return p.toClient.writeString(body + "\n")
			}
			return p.toClient.writeString(line)
		}
		id := gjson.Get(msg, "id")
		out, ok := withID(msg, id.Index, id.Raw, as)
		if !ok {
			p.dropServer("server message dropped: its id could not be written in the client's spelling")
			return nil
		}
		return p.toClient.writeString(out)
	case '[':
		var keep []string
		changed := false
		gjson.Parse(msg).ForEach(func(_, el gjson.Result) bool {
			ok, as, body := p.serverMessage(el)
			if ok && as != "" {
				raw, idAt := el.Raw, el.Get("id").Index-el.Index
				if body != "" {
					raw, idAt = body, gjson.Get(body, "id").Index
				}
				el.Raw, ok = withID(raw, idAt, el.Get("id").Raw, as)
			} else if ok && body != "" {
				el.Raw = body
			}
			if ok {
				keep = append(keep, el.Raw)
			}
			changed = changed || !ok || as != "" || body != ""
			return true
		})
		switch {
		case len(keep) == 0:
			if !changed {
				p.dropServer("server line dropped: an empty batch")
			}
			return nil
		case !changed:
			return p.toClient.writeString(line)
		}
		return p.toClient.writeString("[" + strings.Join(keep, ",") + "]")
	}
	p.dropServer("server line dropped: a JSON value that is not a message")
	return nil
}

// serverOversized drops a server message past the cap. A request or an
// answer in it is answered in its place, so neither side waits for it:
// the server's request with an error, the client's call with an error
// that says why (as if the server had sent it, so it settles the call).
func (p *Proxy) serverOversized(big *oversized) error {
	p.dropServer("server message dropped: " + big.Error())
	why := big.Error() + " (AIRLOCK_MCP_MAX_MESSAGE or --max-message sets it)"
	for _, m := range big.top.msgs {
		if m.id == "" {
			continue
		}
		id := replyID(m.id)
		if m.method {
			if err := p.toServer.write(errorAnswer(id, "Airlock dropped this request: "+why, "", "")); err != nil {
				return nil // the server's side is gone; keep relaying what it sent
			}
			continue
		}
		if err := p.fromServer(string(errorAnswer(id, "Airlock dropped the server's answer: "+why, "", ""))); err != nil {
			return err
		}
	}
	return nil
}

// dropServer records a server line that is not delivered, the first
// maxDroppedRecords of them; the rest are counted.
func (p *Proxy) dropServer(detail string) {
	p.mu.Lock()
	p.dropped++
	n := p.dropped
	p.mu.Unlock()
	if n <= maxDroppedRecords {
		p.record(audit.Record{Event: "mcp_malformed", Detail: detail})
	}
}

// refuseClient records a client message refused as malformed, the first
// maxRefusedRecords of them; the rest are counted.
func (p *Proxy) refuseClient(detail string) {
	p.mu.Lock()
	p.refused++
	n := p.refused
	p.mu.Unlock()
	if n <= maxRefusedRecords {
		p.record(audit.Record{Event: "mcp_malformed", Detail: detail})
	}
}

// dropSummary is what mcp_exit adds about records not written.
func (p *Proxy) dropSummary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := ""
	if n := p.unsolicited; n > maxUnsolicitedRecords {
		s += fmt.Sprintf("; %d more unsolicited responses were dropped than were recorded", n-maxUnsolicitedRecords)
	}
	if n := p.dropped; n > maxDroppedRecords {
		s += fmt.Sprintf("; %d more malformed server lines were dropped than were recorded", n-maxDroppedRecords)
	}
	if n := p.refused; n > maxRefusedRecords {
		s += fmt.Sprintf("; %d more malformed client messages were refused than were recorded", n-maxRefusedRecords)
	}
	return s
}

// serverMessage looks at one message from the server and says whether it
// goes on to the client, and in which spelling of its id when the client
// wrote that id otherwise.
//
// body, when not "", is the message to deliver in its place: an answer
// the result filters rewrote (ingress.go), or the proxy's refusal of a
// server request it answered itself (then deliver is false).
func (p *Proxy) serverMessage(m gjson.Result) (deliver bool, as, body string) {
	if !m.IsObject() {
		p.dropServer("server message dropped: a batch element that is not a JSON-RPC message")
		return false, "", ""
	}
	if bad := ambiguity(m); bad != "" {
		// the client's parser could see another message than the one
		// the proxy judged (another id, another tool list)
		p.dropServer("server message dropped: " + textsafe.Escape(bad))
		return false, "", ""
	}
	method, id := m.Get("method"), m.Get("id")
	if method.Exists() {
		if id.Exists() {
			k, why := idKey(id)
			if why != "" {
				p.dropServer("server request dropped: " + why)
				return false, "", ""
			}
			if serverRequests[method.Str] {
				if v := p.decideServerRequest(method.Str, m.Get("params")); v.refused {
					// answered in the client's place; the client never sees it
					_ = p.toServer.write(errorAnswer(id.Raw, "Airlock blocked this request: "+v.reason, v.rule, v.source))
					return false, "", ""
				}
			}
			p.mu.Lock()
			p.seq++
			p.serverPending[k] = p.seq
			if len(p.serverPending) > maxPending {
				prune(p.serverPending, func(v uint64) uint64 { return v }, p.seq)
			}
			p.mu.Unlock()
		} else if method.String() == "notifications/tools/list_changed" {
			p.adm.invalidate()
		}
		return true, "", ""
	}
	// A response: one of result and error, and an id. Anything else a
	// client throws away, after the proxy had settled the call with it.
	if m.Get("result").Exists() == m.Get("error").Exists() {
		p.dropServer("server response dropped: it must carry one of result and error")
		return false, "", ""
	}
	if !id.Exists() {
		p.dropServer("server response dropped: it has no id")
		return false, "", ""
	}
	if id.Type == gjson.Null {
		// JSON-RPC's answer to a message whose id could not be read:
		// nobody's request, nothing to match, harmless to pass on. A
		// result with id null answers no request.
		if m.Get("result").Exists() {
			p.dropServer("server response dropped: a result with id null")
			return false, "", ""
		}
		return true, "", ""
	}
	k, why := idKey(id)
	if why != "" {
		p.dropServer("server response dropped: " + why)
		return false, "", ""
	}
	if strings.HasPrefix(k, "s:"+p.ownPrefix[1:]) {
		p.adm.ownPage(k, m)
		return false, "", ""
	}
	p.mu.Lock()
	pr, ok := p.pending[k]
	delete(p.pending, k)
	p.mu.Unlock()
	if !ok {
		p.mu.Lock()
		p.unsolicited++
		n := p.unsolicited
		p.mu.Unlock()
		if n <= maxUnsolicitedRecords {
			p.record(audit.Record{Event: "mcp_unsolicited", Detail: fmt.Sprintf("server answered id %s, which the client never sent (or already had answered); dropped", textsafe.Escape(clip(id.Raw, 80)))})
		}
		return false, "", ""
	}
	switch l, isList := listingMethods[pr.method]; {
	case pr.method == "tools/list":
		if p.adm.clientPage(pr.first, m) {
			body = emptyListing(id.Raw, "tools")
		}
	case isList:
		if p.adm.listingPage(l.kind, pr.first, m) {
			body = emptyListing(id.Raw, l.field)
		}
	case pr.method == "initialize" || pr.method == "server/discover":
		if ins := m.Get("result.instructions"); ins.Exists() {
			if ins.Type != gjson.String || p.adm.instructions(ins.Str) {
				body = `{"jsonrpc":"2.0","id":` + id.Raw + `,"result":` + withoutMember(m.Get("result"), "instructions") + `}`
			}
		}
	}
	if pr.method == "tools/call" || pr.method == "tasks/result" {
		if refused := p.inputRequired(pr, m); refused != "" {
			body = refused
		}
	}
	if resultMethods[pr.method] && body == "" {
		body = p.ingressAnswer(pr, m)
	}
	if pr.raw != id.Raw {
		return true, pr.raw, body
	}
	return true, "", body
}
