package mcpproxy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/pins"
	"github.com/tidwall/gjson"
)

// Everything a server lists reaches the model before any call: a poisoned
// description is read when it is listed (line jumping), not when the tool
// is called. So a held server is not shown: while it is held its listings
// (tools, prompts, resources, templates) are answered empty — not with a
// notice entry, which the model could call — and its initialize
// instructions are left out; the hold is told to the person (a
// notification, `airlock pins`, `airlock doctor`), never to the model.
// The instructions, prompts, resources and templates are pinned and
// scanned like the toolset (pins.NewListing), each under its own pins.json
// key, so a change to any of them holds the server.

// listingMethods are the listings besides tools/list, with the member of
// the result that holds their items.
var listingMethods = map[string]struct{ kind, field string }{
	"prompts/list":             {pins.Prompts, "prompts"},
	"resources/list":           {pins.Resources, "resources"},
	"resources/templates/list": {pins.Templates, "resourceTemplates"},
}

// extra is one listing besides the toolset, as admitted.
type extra struct {
	live   *pins.Toolset
	held   bool
	reason string
	items  []json.RawMessage // the client's listing in flight
	pages  int
}

// emptyListing answers a listing with no items, under the server's id.
func emptyListing(id, field string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"` + field + `":[]}}`
}

// listingPage reads one page of a listing other than tools as it passes
// and says whether the client must be shown an empty one instead.
func (a *admission) listingPage(kind string, first bool, m gjson.Result) (hide bool) {
	res := m.Get("result")
	if !res.IsObject() {
		return a.hidden()
	}
	a.mu.Lock()
	x := a.extras[kind]
	if x == nil {
		x = &extra{}
		a.extras[kind] = x
	}
	if first {
		x.items, x.pages = nil, 0
	}
	var page []json.RawMessage
	res.Get(listingMethods[methodOf(kind)].field).ForEach(func(_, it gjson.Result) bool {
		page = append(page, json.RawMessage(it.Raw))
		return true
	})
	x.items = append(x.items, page...)
	x.pages++
	more := res.Get("nextCursor")
	done := !more.Exists() || more.Type == gjson.Null || more.String() == ""
	tooMany := x.pages > maxListPages || len(x.items) > maxListTools
	items := x.items
	a.mu.Unlock()
	bad := a.pageBad(pins.ListingKey(a.p.opts.Name, kind), kind, page)
	if done || bad || tooMany {
		a.admitListing(kind, items)
	}
	return bad || tooMany || a.hidden()
}

func methodOf(kind string) string {
	for m, l := range listingMethods {
		if l.kind == kind {
			return m
		}
	}
	return ""
}

// pageBad judges one page before the listing is whole: an item poisoned
// at first sight, or one the pin does not hold exactly, will hold the
// server, so the page is not shown (the client has no later page to ask
// for, and would read this one at once).
func (a *admission) pageBad(key, kind string, page []json.RawMessage) bool {
	if len(page) == 0 {
		return false
	}
	o := a.p.opts
	var ts *pins.Toolset
	var err error
	if kind == "" {
		ts, err = pins.NewToolset(page)
	} else {
		ts, err = pins.NewListing(kind, page)
	}
	if err != nil {
		return true
	}
	e, gerr := o.Pins.Get(key)
	if gerr != nil {
		return true
	}
	if e == nil {
		if o.Inspect == nil {
			return false
		}
		bad, _ := o.Inspect(ts)
		return bad
	}
	if e.State == pins.Held || e.Pinned == nil {
		return true
	}
	for _, t := range ts.Tools {
		if pt, ok := e.Pinned.Tool(t.Name); !ok || pt.Digest != t.Digest {
			return true
		}
	}
	return false
}

// admitListing admits a listing of kind against its pin, as complete does
// the toolset.
func (a *admission) admitListing(kind string, raw []json.RawMessage) {
	o := a.p.opts
	key := pins.ListingKey(o.Name, kind)
	ts, err := pins.NewListing(kind, raw)
	var adm pins.Admission
	var werr error
	if err == nil {
		adm, werr = o.Pins.Admit(key, ts, o.Inspect, o.Now())
	}
	a.mu.Lock()
	x := a.extras[kind]
	if x == nil {
		x = &extra{}
		a.extras[kind] = x
	}
	x.items, x.pages = nil, 0
	if err != nil {
		x.live, x.held, x.reason = nil, true, fmt.Sprintf("its %s cannot be pinned: %v", kind, err)
	} else {
		ok := adm.State == pins.Pinned && werr == nil
		if adm.State == pins.Pinned && werr != nil {
			e, gerr := o.Pins.Get(key)
			ok = gerr == nil && pins.Allowed(e, ts)
		}
		x.live, x.held, x.reason = ts, !ok, adm.Reason
		if werr != nil {
			x.reason = joinReason(x.reason, "pins.json could not be written ("+werr.Error()+"), so it is held until it can")
		}
	}
	held, reason := x.held, x.reason
	a.notifyLocked()
	a.mu.Unlock()
	r := audit.Record{Event: "mcp_admit", Decision: "allow", Detail: fmt.Sprintf("%s: %d pinned", kind, len(raw))}
	if ts != nil {
		r.Target = ts.Hash
	}
	if held {
		r.Decision, r.Reason = "block", "its "+kind+": "+reason
		r.Detail = "server held: its listings are shown empty and every call is refused until `airlock pins approve " + key + "`"
		a.p.tellHeld(key, r.Reason)
	}
	if err := a.p.record(r); !held && !a.p.recorded(err) {
		a.mu.Lock()
		x.held, x.reason = true, "its admission could not be recorded: "+gate.Unrecorded(err, a.p.home())
		a.mu.Unlock()
	}
}

// instructions admits the instructions of an initialize or server/discover
// answer and says whether they must be left out of what the client gets.
func (a *admission) instructions(text string) (hide bool) {
	a.admitListing(pins.Instructions, []json.RawMessage{pins.InstructionsItem(text)})
	return a.hidden()
}

// hidden reports whether the server is held: its toolset or any other
// listing, live or (before its first listing) in pins.json. A hold a
// person has released in pins.json is released here once recorded.
func (a *admission) hidden() bool {
	o := a.p.opts
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live == nil {
		if e, err := o.Pins.Get(o.Name); err != nil || (e != nil && e.State == pins.Held) {
			return true
		}
	}
	if a.held && a.live != nil {
		if e, err := o.Pins.Get(o.Name); err == nil && pins.Allowed(e, a.live) {
			if err := a.p.record(audit.Record{Event: "mcp_release", Decision: "allow", Target: a.live.Hash, Detail: "pins.json now pins the live toolset; the hold is released"}); a.p.recorded(err) {
				a.held, a.reason = false, ""
			}
		}
	}
	return a.held || a.extraHeldLocked() != ""
}

// extraHeldLocked releases the listings pins.json now pins as live and
// says why one is still held, or "".
func (a *admission) extraHeldLocked() string {
	o := a.p.opts
	why := ""
	for kind, x := range a.extras {
		if !x.held {
			continue
		}
		key := pins.ListingKey(o.Name, kind)
		if e, err := o.Pins.Get(key); err == nil && x.live != nil && pins.Allowed(e, x.live) {
			if err := a.p.record(audit.Record{Event: "mcp_release", Decision: "allow", Target: x.live.Hash, Detail: "pins.json now pins the live " + kind + "; the hold is released"}); a.p.recorded(err) {
				x.held, x.reason = false, ""
				continue
			}
		}
		if why == "" {
			why = "its " + kind + ": " + x.reason
		}
	}
	return why
}

// tellHeld tells the person a server is held (the model is told
// nothing: its listings are empty).
func (p *Proxy) tellHeld(key, reason string) {
	if p.gate.Notify == nil {
		return
	}
	p.gate.Notify.Blocked(notify.Block{Source: "mcp:" + p.opts.Name, Tool: "mcp__" + pins.NormName(p.opts.Name), Rule: "pins:held",
		Reason: "server held, its listings are hidden from the model: " + reason, Fix: "airlock pins diff " + key})
}

// withoutMember is the JSON object obj without its member key.
func withoutMember(obj gjson.Result, key string) string {
	var parts []string
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.String() != key {
			parts = append(parts, k.Raw+":"+v.Raw)
		}
		return true
	})
	return "{" + strings.Join(parts, ",") + "}"
}
