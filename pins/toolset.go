package pins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Tool is one tool as pinned.
type Tool struct {
	Name string `json:"name"`
	// Digest is "sha256:" and the lower-case hex SHA-256 of Canon.
	Digest string `json:"digest"`
	// Canon is the tool's canonical JSON (see canonical): an object holding
	// only the members in pinnedFields that the server sent.
	Canon json.RawMessage `json:"tool"`
}

// Toolset is a server's complete tool list.
type Toolset struct {
	// Hash is "sha256:" and the lower-case hex SHA-256 of the canonical
	// JSON array of the tools: '[', the tools' Canon bytes in Tools order
	// joined by ',', then ']'. An empty toolset hashes "[]". Because Canon
	// is canonical and Tools is sorted by name, the hash depends neither on
	// the order the server listed its tools in, nor on key order or white
	// space, nor on members outside pinnedFields.
	Hash string `json:"hash"`
	// Tools are sorted by name, comparing the names' UTF-8 bytes.
	Tools []Tool `json:"tools"`
}

// pinnedFields are the members of a tool that reach the model or shape its
// calls, in the order a Diff reports them. Everything else (_meta, icons,
// execution, fields a later MCP revision adds) is left out of the
// fingerprint: it does not change what the model is told, and pinning it
// would hold servers over cosmetic changes.
var pinnedFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

func isPinnedField(k string) bool {
	switch k {
	case "name", "title", "description", "inputSchema", "outputSchema", "annotations":
		return true
	}
	return false
}

// NewToolset builds a Toolset from the raw tool objects of a complete
// tools/list (all pages). A tool without a string name, or two tools with
// the same name, is an error (caller holds the server): a name the proxy
// cannot key a call on, or a name that means two things, cannot be pinned.
func NewToolset(raw []json.RawMessage) (*Toolset, error) {
	ts := &Toolset{Tools: make([]Tool, 0, len(raw))}
	for i, r := range raw {
		t, err := newTool(r)
		if err != nil {
			return nil, fmt.Errorf("pins: tool %d of the list: %w", i+1, err)
		}
		ts.Tools = append(ts.Tools, t)
	}
	slices.SortFunc(ts.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(ts.Tools); i++ {
		if ts.Tools[i].Name == ts.Tools[i-1].Name {
			return nil, fmt.Errorf("pins: the server lists two tools named %q", textsafe.Escape(ts.Tools[i].Name))
		}
	}
	// Claude Code names a tool mcp__SERVER__NormName(tool): two tools
	// whose names fold alike are one name to the agent, its permission
	// rules and the hook, and a call meant for one may reach the other.
	folded := map[string]string{}
	for _, t := range ts.Tools {
		n := NormName(t.Name)
		if other, ok := folded[n]; ok {
			return nil, fmt.Errorf("pins: the server lists tools %q and %q, which the agent names alike (%q): a name that means two things cannot be pinned",
				textsafe.Escape(other), textsafe.Escape(t.Name), "mcp__…__"+n)
		}
		folded[n] = t.Name
	}
	ts.Hash = hashTools(ts.Tools)
	return ts, nil
}

// newTool canonicalises one tool object.
func newTool(raw []byte) (Tool, error) {
	p := parser{b: raw}
	if p.peek() != '{' {
		return Tool{}, errors.New("a tool must be a JSON object")
	}
	members, err := p.members(1, isPinnedField)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return Tool{}, fmt.Errorf("invalid JSON: %w", err)
	}
	var name string
	for _, m := range members {
		if m.key == "name" {
			// the value is canonical JSON: a string starts with a quote
			if len(m.val) < 3 || m.val[0] != '"' {
				return Tool{}, errors.New(`the tool has no name: "name" must be a non-empty string`)
			}
			if err := json.Unmarshal(m.val, &name); err != nil {
				return Tool{}, fmt.Errorf("tool name: %w", err)
			}
		}
	}
	if name == "" {
		return Tool{}, errors.New(`the tool has no name: "name" must be a non-empty string`)
	}
	canon, err := appendMembers(nil, members)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: %w", textsafe.Escape(name), err)
	}
	return Tool{Name: name, Digest: digest(canon), Canon: canon}, nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func hashTools(tools []Tool) string {
	h := sha256.New()
	h.Write([]byte{'['})
	for i, t := range tools {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(t.Canon)
	}
	h.Write([]byte{']'})
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Tool returns the pinned tool called name.
func (ts *Toolset) Tool(name string) (*Tool, bool) {
	if ts == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(ts.Tools, name, func(t Tool, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return nil, false
	}
	return &ts.Tools[i], true
}

// Names returns the tool names in order.
func (ts *Toolset) Names() []string {
	if ts == nil {
		return nil
	}
	names := make([]string, len(ts.Tools))
	for i, t := range ts.Tools {
		names[i] = t.Name
	}
	return names
}

// Fields returns the tool's pinned members by name, each as canonical JSON.
func (t *Tool) Fields() (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t.Canon, &m); err != nil {
		return nil, fmt.Errorf("pins: tool %q: %w", textsafe.Escape(t.Name), err)
	}
	return m, nil
}

// ShortHash is the first 12 hex digits of a "sha256:…" hash, for display.
func ShortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// NormName maps every byte outside [a-zA-Z0-9_-] to '_'. Claude Code names
// an MCP tool mcp__<NormName(server)>__<NormName(tool)>, so the hook only
// ever sees normalised names.
func NormName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// subset reports whether every tool of a is in b exactly as pinned (same
// name, same digest). A toolset that only lost tools serves nothing that
// was not reviewed.
func subset(a, b *Toolset) bool {
	if a == nil || b == nil {
		return false
	}
	for _, t := range a.Tools {
		pt, ok := b.Tool(t.Name)
		if !ok || pt.Digest != t.Digest {
			return false
		}
	}
	return true
}
