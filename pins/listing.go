package pins

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// A server shows the model more than its tools: the instructions of its
// initialize (or server/discover) answer, its prompts, its resources and
// its resource templates. Each is pinned like the toolset, under its own
// key in pins.json (ListingKey: "NAME#prompts"), with the same states,
// the same trust on first use and the same hold on change: a server that
// rewrites its instructions or a prompt between starts is held as one that
// rewrites a tool's description is.

// Listing kinds besides the toolset.
const (
	Instructions = "instructions"
	Prompts      = "prompts"
	Resources    = "resources"
	Templates    = "templates"
)

// listingField is, for a kind, the member that names an item and the
// members that reach the model.
type listingField struct {
	key    string
	pinned []string
}

// listingKinds are the kinds a server's listings are pinned under.
var listingKinds = [...]string{Instructions, Prompts, Resources, Templates}

// listingFields is each listing kind's item key and pinned fields: a
// switch, not a map, so that linking pins builds nothing at start-up (the
// hook links it).
func listingFields(kind string) (listingField, bool) {
	switch kind {
	case Instructions:
		return listingField{"name", []string{"name", "description"}}, true
	case Prompts:
		return listingField{"name", []string{"name", "title", "description", "arguments"}}, true
	case Resources:
		return listingField{"uri", []string{"uri", "name", "title", "description", "mimeType"}}, true
	case Templates:
		return listingField{"uriTemplate", []string{"uriTemplate", "name", "title", "description", "mimeType"}}, true
	}
	return listingField{}, false
}

// ListingKey is the pins.json key of a server's listing of kind: the
// server's name, "#", the kind. A server's name with "#" in it cannot be
// told from it; the proxy refuses such names.
func ListingKey(server, kind string) string { return server + "#" + kind }

// ListingOf splits a pins.json key into the server and the listing kind
// ("" for a toolset).
func ListingOf(key string) (server, kind string) {
	if i := strings.LastIndexByte(key, '#'); i >= 0 {
		if _, ok := listingFields(key[i+1:]); ok {
			return key[:i], key[i+1:]
		}
	}
	return key, ""
}

// InstructionsItem is the one item an instructions listing holds: the text
// as a description, so it is pinned and scanned like one.
func InstructionsItem(text string) json.RawMessage {
	b, err := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{"instructions", text})
	if err != nil {
		return json.RawMessage(`{"name":"instructions"}`)
	}
	return b
}

// NewListing builds the pinned form of a listing of kind from its raw
// items (every page), as NewToolset does for tools: each item keyed by its
// name (a resource by its uri, a template by its uriTemplate), sorted, two
// items with one key refused.
func NewListing(kind string, raw []json.RawMessage) (*Toolset, error) {
	f, ok := listingFields(kind)
	if !ok {
		return nil, fmt.Errorf("pins: no listing kind %q", kind)
	}
	keep := func(k string) bool { return slices.Contains(f.pinned, k) }
	ts := &Toolset{Tools: make([]Tool, 0, len(raw))}
	for i, r := range raw {
		t, err := newItem(r, f.key, keep)
		if err != nil {
			return nil, fmt.Errorf("pins: %s item %d: %w", kind, i+1, err)
		}
		ts.Tools = append(ts.Tools, t)
	}
	slices.SortFunc(ts.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(ts.Tools); i++ {
		if ts.Tools[i].Name == ts.Tools[i-1].Name {
			return nil, fmt.Errorf("pins: the server lists two %s named %q", kind, textsafe.Escape(ts.Tools[i].Name))
		}
	}
	ts.Hash = hashTools(ts.Tools)
	return ts, nil
}

func newItem(raw []byte, key string, keep func(string) bool) (Tool, error) {
	p := parser{b: raw}
	if p.peek() != '{' {
		return Tool{}, errors.New("an item must be a JSON object")
	}
	members, err := p.members(1, keep)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return Tool{}, fmt.Errorf("invalid JSON: %w", err)
	}
	var name string
	for _, m := range members {
		if m.key == key && len(m.val) > 2 && m.val[0] == '"' {
			if err := json.Unmarshal(m.val, &name); err != nil {
				return Tool{}, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	if name == "" {
		return Tool{}, fmt.Errorf("the item has no %s: %q must be a non-empty string", key, key)
	}
	canon, err := appendMembers(nil, members)
	if err != nil {
		return Tool{}, fmt.Errorf("%q: %w", textsafe.Escape(name), err)
	}
	return Tool{Name: name, Digest: digest(canon), Canon: canon}, nil
}
