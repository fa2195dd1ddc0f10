package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentairlock/airlock/pins"
)

func BenchmarkValidateCached(b *testing.B) {
	raw := make([]json.RawMessage, 20)
	for i := range raw {
		raw[i] = json.RawMessage(fmt.Sprintf(`{"name":"tool_%02d","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"absolute path"},"depth":{"type":"integer","minimum":0,"maximum":10},"options":{"type":"object","properties":{"follow":{"type":"boolean"},"pattern":{"type":"string"}},"additionalProperties":false}},"required":["path"],"additionalProperties":false}}`, i))
	}
	ts, err := pins.NewToolset(raw)
	if err != nil {
		b.Fatal(err)
	}
	s := NewSchemas()
	args := []byte(`{"path":"/home/dev/proj/main.go","depth":2,"options":{"follow":true,"pattern":"*.go"}}`)
	if err := s.Validate(ts, "tool_07", args, true); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(ts, "tool_07", args, true); err != nil {
			b.Fatal(err)
		}
	}
}
