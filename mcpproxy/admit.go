package mcpproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/pins/schema"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// admission is the server's toolset as this proxy saw it: the complete
// tools/list (every page), admitted against its pin. Until a listing is
// complete, and again after notifications/tools/list_changed, calls wait
// for one; when the client lists, its pages are read as they pass; when it
// does not, the proxy lists by itself.
//
// A hold lives here as well as in pins.json, so a home that cannot be
// written can never release it: a held server serves calls again only once
// pins.json says its pin is exactly the live toolset.
type admission struct {
	p *Proxy

	// listing counts the proxy's own listings in flight (a hidden page's
	// rest, listed by the proxy): a test waits for them before its
	// directories go
	listing sync.WaitGroup

	mu      sync.Mutex
	live    *pins.Toolset // nil until the first complete listing
	held    bool
	reason  string // why held, or why there is no toolset
	stale   bool   // a listing is needed before the next call
	client  pager  // the client's listing in flight
	own     pager  // the proxy's own listing in flight
	ownN    int
	gen     int           // bumped by list_changed: a listing begun before it cannot end the wait
	changed chan struct{} // closed and replaced whenever the state moves
	closed  bool

	// What the client itself was shown since it last began a listing,
	// tool name → digest. The server can tell the proxy's own listing
	// from the client's; every definition the model saw must be the
	// pinned one, whichever listing was admitted.
	seen    map[string]string
	seenBad string

	// The other listings (prompts, resources, templates, instructions),
	// by kind (listings.go).
	extras map[string]*extra
}

type pager struct {
	active bool
	tools  []json.RawMessage
	id     string // own listing: the id of the page requested
	gen    int
	pages  int
}

// Bounds on one listing: past them the toolset is not admitted (a server
// paging forever would otherwise grow the proxy without end).
const (
	maxListPages = 1000
	maxListTools = 5000
)

func newAdmission(p *Proxy) *admission {
	return &admission{p: p, stale: true, changed: make(chan struct{}), reason: "the server has not listed its tools yet", seen: map[string]string{}, extras: map[string]*extra{}}
}

func (a *admission) notifyLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// close wakes every waiter: the server is gone.
func (a *admission) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.closed = true
		a.reason = "the server has exited"
		a.notifyLocked()
	}
}

// invalidate restarts admission (notifications/tools/list_changed).
func (a *admission) invalidate() {
	a.mu.Lock()
	a.stale = true
	a.gen++
	a.mu.Unlock()
}

// clientListing notes a tools/list request from the client.
func (a *admission) clientListing(first bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if first {
		a.client = pager{active: true, gen: a.gen}
		a.seen, a.seenBad = map[string]string{}, ""
	}
}

// clientPage reads one page of the client's listing as it passes, and
// says whether the client must be shown an empty listing instead: the
// server is held, or this page will hold it (listings.go).
func (a *admission) clientPage(first bool, m gjson.Result) (hide bool) {
	a.mu.Lock()
	if !a.client.active || (first && len(a.client.tools) > 0) {
		a.mu.Unlock()
		return a.hidden()
	}
	done, tools, page := a.page(&a.client, m)
	if ts, err := pins.NewToolset(page); err != nil {
		a.seenBad = "the client was shown a tool list that cannot be pinned: " + err.Error()
	} else {
		for _, t := range ts.Tools {
			a.seen[t.Name] = t.Digest
		}
	}
	gen := a.client.gen
	a.mu.Unlock()
	if done && tools != nil {
		a.complete(tools, gen)
		return a.hidden()
	}
	if !done && a.pageBad(a.p.opts.Name, "", page) {
		// the listing ends here for the client; the proxy lists the rest
		// itself, so the hold is admitted and recorded now
		a.invalidate()
		a.listing.Add(1)
		go func() {
			defer a.listing.Done()
			a.await(gjson.Result{})
		}()
		return true
	}
	return a.hidden()
}

// page adds one tools/list response to pg; done when the listing ended
// (tools nil when it failed). page is this response's tools alone.
func (a *admission) page(pg *pager, m gjson.Result) (done bool, tools, page []json.RawMessage) {
	res := m.Get("result")
	if !res.IsObject() {
		pg.active = false
		a.notifyLocked()
		return true, nil, nil
	}
	res.Get("tools").ForEach(func(_, t gjson.Result) bool {
		page = append(page, json.RawMessage(t.Raw))
		return true
	})
	pg.tools = append(pg.tools, page...)
	pg.pages++
	if pg.pages > maxListPages || len(pg.tools) > maxListTools {
		pg.active, pg.tools = false, nil
		a.reason = fmt.Sprintf("the server's tool list runs past %d pages or %d tools; it is not admitted", maxListPages, maxListTools)
		a.notifyLocked()
		return true, nil, page
	}
	if c := res.Get("nextCursor"); c.Exists() && c.Type != gjson.Null && c.String() != "" {
		return false, nil, page
	}
	pg.active = false
	tools = pg.tools
	if tools == nil {
		tools = []json.RawMessage{}
	}
	pg.tools = nil
	return true, tools, page
}

// ownPage reads one page of the proxy's own listing and asks for the next.
// key is the answer's id key (ids.go).
func (a *admission) ownPage(key string, m gjson.Result) {
	a.mu.Lock()
	if !a.own.active || key != rawKey(a.own.id) {
		a.mu.Unlock()
		return
	}
	done, tools, _ := a.page(&a.own, m)
	gen := a.own.gen
	if !done {
		cursor := m.Get("result.nextCursor").Raw
		a.ownN++
		a.own.id = a.p.ownPrefix + strconv.Itoa(a.ownN) + `"`
		req := ownRequest(a.own.id, cursor, "")
		a.mu.Unlock()
		if err := a.p.toServer.write(req); err != nil {
			a.fail("the server could not be asked for its tools: " + err.Error())
		}
		return
	}
	if tools == nil && m.Get("error").Exists() {
		a.reason = "the server refused to list its tools: " + clip(m.Get("error.message").String(), 200)
	}
	a.mu.Unlock()
	if tools != nil {
		a.complete(tools, gen)
	}
}

func (a *admission) fail(reason string) {
	a.mu.Lock()
	a.own.active = false
	a.reason = reason
	a.notifyLocked()
	a.mu.Unlock()
}

func ownRequest(id, cursor, meta string) []byte {
	params := "{"
	if cursor != "" {
		params += `"cursor":` + cursor
	}
	if meta != "" {
		if cursor != "" {
			params += ","
		}
		params += `"_meta":` + meta
	}
	params += "}"
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params + `}`)
}

// await blocks a tools/call until the toolset is admitted, for at most
// ListWait. When no listing is whole yet the proxy lists by itself at once:
// waiting on a listing the client has in flight could stall, since the
// client's next page request sits behind this very call on the same
// stream. meta is the call's _meta, passed on to the proxy's own listing
// (stateless servers read the protocol version there).
func (a *admission) await(meta gjson.Result) {
	deadline := time.Now().Add(a.p.opts.ListWait)
	asked := false // one listing of our own per call: a server that refuses is not asked again and again
	for {
		a.mu.Lock()
		if !a.stale || a.closed || (asked && !a.own.active && !a.client.active) {
			// admitted, gone, or our listing failed with nothing else
			// in flight: the call is decided on what we have
			a.mu.Unlock()
			return
		}
		var req []byte
		if !a.own.active && !asked {
			asked = true
			a.ownN++
			a.own = pager{active: true, id: a.p.ownPrefix + strconv.Itoa(a.ownN) + `"`, gen: a.gen}
			m := ""
			if meta.IsObject() {
				m = meta.Raw
			}
			req = ownRequest(a.own.id, "", m)
		}
		ch := a.changed
		a.mu.Unlock()
		if req != nil {
			if err := a.p.toServer.write(req); err != nil {
				a.fail("the server could not be asked for its tools: " + err.Error())
				return
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// complete admits a complete listing against the pin. gen is the
// generation the listing began in: one begun before a list_changed
// admits what it saw but does not end the wait for a fresh listing.
func (a *admission) complete(raw []json.RawMessage, gen int) {
	o := a.p.opts
	ts, err := pins.NewToolset(raw)
	var adm pins.Admission
	var werr error
	if err == nil {
		adm, werr = o.Pins.Admit(o.Name, ts, o.Inspect, o.Now())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen == a.gen {
		a.stale = false
	}
	a.notifyLocked()
	if err != nil {
		a.live, a.held = nil, true
		a.reason = "its tool list cannot be pinned: " + err.Error()
		a.p.record(audit.Record{Event: "mcp_admit", Decision: "block", Reason: a.reason})
		return
	}
	ok := adm.State == pins.Pinned && werr == nil
	if adm.State == pins.Pinned && werr != nil {
		e, gerr := o.Pins.Get(o.Name)
		ok = gerr == nil && pins.Allowed(e, ts)
	}
	a.live, a.held = ts, !ok
	a.reason = adm.Reason
	if werr != nil {
		a.reason = joinReason(a.reason, "pins.json could not be written ("+werr.Error()+"), so the toolset is held until it can")
		fmt.Fprintf(o.Stderr, "airlock-mcp: %s: %v\n", o.Name, werr)
	}
	r := audit.Record{Event: "mcp_admit", Decision: "allow", Target: ts.Hash,
		Detail: fmt.Sprintf("%d tools pinned", len(ts.Tools))}
	if adm.First {
		r.Detail += " at first sight"
	}
	if a.held {
		r.Decision, r.Reason, r.Detail = "block", a.reason, "server held: its listings are shown empty and every call is refused until `airlock pins approve "+o.Name+"`"
		a.p.tellHeld(o.Name, a.reason)
	}
	if err := a.p.record(r); !a.held && !a.p.recorded(err) {
		// an admission nobody can read back is not given: the toolset
		// is held until its record can be written
		a.held = true
		a.reason = "its admission could not be recorded: " + gate.Unrecorded(err, a.p.home())
	}
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Check implements gate.Toolsets from the live toolset.
func (a *admission) Check(server, tool string, args []byte, strict bool) (policy.Decision, bool) {
	a.mu.Lock()
	if a.stale || a.live == nil {
		reason := "the server's toolset is not admitted: " + a.reason
		if a.stale && a.live != nil {
			reason = "the server said its tools changed and has not listed them again"
		}
		a.mu.Unlock()
		return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "pins:unlisted", Reason: reason, Target: tool}, true
	}
	if a.held {
		o := a.p.opts
		if e, err := o.Pins.Get(o.Name); err == nil && pins.Allowed(e, a.live) {
			// released only once the release is recorded
			if err := a.p.record(audit.Record{Event: "mcp_release", Decision: "allow", Target: a.live.Hash, Detail: "pins.json now pins the live toolset; the hold is released"}); a.p.recorded(err) {
				a.held, a.reason = false, ""
			}
		}
	}
	if a.held {
		reason := "server " + quote(server) + " is held: " + a.reason
		a.mu.Unlock()
		return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "pins:held", Reason: reason, Target: tool}, true
	}
	if why := a.extraHeldLocked(); why != "" {
		a.mu.Unlock()
		return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "pins:held", Reason: "server " + quote(server) + " is held: " + why, Target: tool}, true
	}
	if why := a.unseenLocked(); why != "" {
		a.mu.Unlock()
		return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "pins:shown", Reason: "server " + quote(server) + " is held: " + why, Target: tool}, true
	}
	live := a.live
	a.mu.Unlock()
	if err := a.p.opts.Schemas.Validate(live, tool, args, strict); err != nil {
		d := policy.Decision{Action: policy.Block, Source: policy.FromSchema, Rule: "schema", Reason: err.Error(), Target: tool}
		var ae *schema.ArgError
		if errors.As(err, &ae) {
			d.Arg = ae.Arg
		}
		return d, true
	}
	return policy.Decision{}, false
}

// InputSchema implements gate.InputSchemas from the live toolset: the
// input schema of an admitted tool, or nil (a held or stale toolset has
// none to give; Check refuses the call).
func (a *admission) InputSchema(server, tool string) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stale || a.held || a.live == nil {
		return nil
	}
	t, ok := a.live.Tool(tool)
	if !ok {
		return nil
	}
	if s := gjson.GetBytes(t.Canon, "inputSchema"); s.IsObject() {
		return []byte(s.Raw)
	}
	return nil
}

func quote(s string) string { return strconv.Quote(s) }

// unseenLocked says which definition the client was shown that the
// admitted toolset does not have exactly, or "".
func (a *admission) unseenLocked() string {
	if a.seenBad != "" {
		return a.seenBad
	}
	for name, digest := range a.seen {
		t, ok := a.live.Tool(name)
		if !ok || t.Digest != digest {
			return fmt.Sprintf("the client was shown a definition of tool %q that is not the one admitted (the server lists its tools differently to different readers)", name)
		}
	}
	return ""
}

// heldDecision is the refusal for a held server's other requests
// (resources, prompts): what they return reaches the model too.
func (a *admission) heldDecision() (policy.Decision, bool) {
	if !a.hidden() {
		return policy.Decision{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	why := a.reason
	if !a.held {
		why = a.extraHeldLocked()
	}
	if why == "" {
		why = "pins.json holds it"
	}
	return policy.Decision{Action: policy.Block, Source: policy.FromHold, Rule: "pins:held", Reason: "server " + quote(a.p.opts.Name) + " is held: " + why}, true
}
