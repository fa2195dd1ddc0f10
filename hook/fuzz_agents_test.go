package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// fuzzAdapter: an adapter's parser never panics, and an event it accepts
// always has canonical calls, each with a tool name and a JSON object of
// arguments. Its seeds are the agent's recorded fixtures.
func fuzzAdapter(f *testing.F, a Agent, extra ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "agents", string(a), "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var fx fixture
		if err := json.Unmarshal(b, &fx); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(fx.Event))
	}
	for _, s := range append(extra, `{}`, `null`, `[]`, `{"tool_name":"x","tool_input":"{}"}`) {
		f.Add([]byte(s))
	}
	ad := adapterFor(a)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !gjson.ValidBytes(data) {
			return
		}
		root := gjson.ParseBytes(data)
		_ = ad.post(root)
		ev, err := ad.parse(root)
		if err != nil {
			return
		}
		if len(ev.Calls) == 0 || ev.Tool != ev.Calls[0].Tool {
			t.Fatalf("accepted without calls: %q → %+v", data, ev)
		}
		for _, c := range ev.Calls {
			if c.Tool == "" || !gjson.ValidBytes(c.Input) || !gjson.ParseBytes(c.Input).IsObject() {
				t.Fatalf("a malformed canonical call %q %q from %q", c.Tool, c.Input, data)
			}
		}
		_ = ad.asks(ev)
	})
}

func FuzzParseClaudeAdapter(f *testing.F) { fuzzAdapter(f, Claude) }
func FuzzParseCodex(f *testing.F) {
	fuzzAdapter(f, Codex, `{"tool_name":"apply_patch","tool_input":{"command":["apply_patch","*** Begin Patch\n*** End Patch"]}}`,
		`{"tool_name":"shell","tool_input":{"command":["apply_patch","*** Begin Patch\n*** Delete File: x\n*** End Patch"]}}`)
}
func FuzzParseGemini(f *testing.F) {
	fuzzAdapter(f, Gemini, `{"tool_name":"web_fetch","tool_input":{"prompt":"see https://a.example/x, http://b and httpx"}}`)
}
func FuzzParseCursor(f *testing.F) {
	fuzzAdapter(f, Cursor, `{"hook_event_name":"beforeMCPExecution","tool_name":"MCP:a","tool_input":"{}","url":"https://h:1/p"}`)
}
func FuzzParseWindsurf(f *testing.F) { fuzzAdapter(f, Windsurf) }
func FuzzParseCline(f *testing.F) {
	fuzzAdapter(f, Cline, `{"hookName":"PreToolUse","tool_call":{"id":"1","name":"read_file","input":{"path":"a"}}}`)
}
func FuzzParseCopilot(f *testing.F) { fuzzAdapter(f, Copilot) }

// FuzzPatchCalls: a patch is read into calls with a path each, or refused.
func FuzzPatchCalls(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End of File\n*** End Patch\n",
		"*** Begin Patch\n*** Delete File: a b'c\n*** End Patch", "*** Begin Patch\n", "", "*** Begin Patch\n*** Add File: \n*** End Patch",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		calls, err := patchCalls(patch)
		if err != nil {
			return
		}
		if len(calls) == 0 || len(calls) > maxPatchFiles+1 {
			t.Fatalf("%d calls", len(calls))
		}
		for _, c := range calls {
			in := gjson.ParseBytes(c.Input)
			if !in.IsObject() || (in.Get("file_path").String() == "" && in.Get("command").String() == "") {
				t.Fatalf("a call with no file: %s %s", c.Tool, c.Input)
			}
		}
	})
}
