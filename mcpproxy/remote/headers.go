package remote

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// The headers protocol 2026-07-28 asks a client to mirror from the body
// (Mcp-Method, Mcp-Name, and the Mcp-Param-* of a tool's x-mcp-header
// annotations). The bridge writes them itself from the message the proxy
// decided on and forwarded: nothing the client wrote reaches a header, so
// a server that routes or authorises on headers sees the call that was
// judged. mcp-go's encoders are used (they are the spec's rules); the
// tools' annotations are learnt from the listings that pass.

// toolHeaders remembers the tools' definitions seen in listings, by name,
// for their x-mcp-header annotations.
type toolHeaders struct {
	mu    sync.Mutex
	tools map[string]*mcp.Tool
}

// learn reads a tools/list result's tools.
func (t *toolHeaders) learn(result gjson.Result) {
	result.Get("tools").ForEach(func(_, def gjson.Result) bool {
		name := def.Get("name").String()
		if name == "" || !def.Get("inputSchema").IsObject() {
			return true
		}
		// only definitions that declare a header are kept
		if !containsHeaderAnnotation(def.Get("inputSchema")) {
			t.mu.Lock()
			delete(t.tools, name)
			t.mu.Unlock()
			return true
		}
		var tool mcp.Tool
		if json.Unmarshal([]byte(def.Raw), &tool) != nil {
			return true
		}
		t.mu.Lock()
		if t.tools == nil {
			t.tools = map[string]*mcp.Tool{}
		}
		if len(t.tools) < maxListTools {
			t.tools[name] = &tool
		}
		t.mu.Unlock()
		return true
	})
}

const maxListTools = 5000

func containsHeaderAnnotation(schema gjson.Result) bool {
	found := false
	var walk func(v gjson.Result, depth int)
	walk = func(v gjson.Result, depth int) {
		if found || depth > 32 {
			return
		}
		v.Get("properties").ForEach(func(_, p gjson.Result) bool {
			if p.Get("x-mcp-header").Exists() {
				found = true
				return false
			}
			walk(p, depth+1)
			return !found
		})
	}
	walk(schema, 0)
	return found
}

// set writes the standard headers of msg onto h when version asks for
// them. Any header of those names already there is replaced.
func (t *toolHeaders) set(h http.Header, version string, msg gjson.Result) {
	if !mcp.RequiresStandardHeaders(version) {
		return
	}
	method := msg.Get("method")
	if method.Type != gjson.String {
		return
	}
	m := method.String()
	h.Set(mcp.HeaderMethod, m)
	params := json.RawMessage(msg.Get("params").Raw)
	if name, ok := mcp.ExtractHeaderName(mcp.MCPMethod(m), params); ok {
		if v, ok := mcp.EncodeHeaderValue(name); ok {
			h.Set(mcp.HeaderName, v)
		}
	}
	if m != "tools/call" {
		return
	}
	t.mu.Lock()
	tool := t.tools[msg.Get("params.name").String()]
	t.mu.Unlock()
	if tool == nil {
		return
	}
	for k, v := range mcp.GenerateParamHeaders(tool, params) {
		h.Set(k, v)
	}
}
