package hook

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/agentairlock/airlock/scan"
)

// BenchmarkPostToolResultScan10KB: what a post-tool hook process adds to
// judge a 10 KB MCP result (Go source) for injection: scan.AnswerInjected
// over the tool_response, the proxy's measure, in a fresh process's state
// (-benchtime 1x shows that first call).
func BenchmarkPostToolResultScan10KB(b *testing.B) {
	src, err := os.ReadFile("../scan/secret/testdata/benign/source.go.txt")
	if err != nil {
		b.Fatal(err)
	}
	resp, _ := json.Marshal([]any{map[string]any{"type": "text", "text": string(src)}})
	r := gjson.ParseBytes(resp)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, _, ok := scan.AnswerInjected(r.Raw); ok {
			b.Fatal("benign source judged injected")
		}
	}
}
