package pins

import (
	"encoding/json"
	"fmt"
	"testing"
)

// twentyTools is a tools/list of 20 tools shaped like a real server's.
func twentyTools(b *testing.B) []json.RawMessage {
	raw := make([]json.RawMessage, 20)
	for i := range raw {
		raw[i] = json.RawMessage(fmt.Sprintf(`{"name":"tool_%02d","title":"Tool %d","description":"Does thing %d to a file in the workspace. Returns the result as text; fails when the path is outside the allowed directories.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"absolute path"},"depth":{"type":"integer","minimum":0,"maximum":10},"options":{"type":"object","properties":{"follow":{"type":"boolean"},"pattern":{"type":"string"}},"additionalProperties":false}},"required":["path"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false},"_meta":{"version":"1.2.3"}}`, i, i, i))
	}
	return raw
}

func BenchmarkNewToolset(b *testing.B) {
	raw := twentyTools(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewToolset(raw); err != nil {
			b.Fatal(err)
		}
	}
}
