package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// benchEvents is one ordinary event per agent (its allow fixture).
var benchEvents = map[Agent]string{
	Claude: "allow_bash.json", Codex: "allow_bash.json", Gemini: "allow_shell.json", Cursor: "pretooluse_shell_allow.json",
	Windsurf: "run_command_allow.json", Cline: "execute_command_allow.json", Copilot: "bash_allow.json",
}

func benchEvent(b *testing.B, a Agent) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", "agents", string(a), benchEvents[a]))
	if err != nil {
		b.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		b.Fatal(err)
	}
	return []byte(strings.NewReplacer("{HOME}", "/home/dev", "{WS}", "/home/dev/proj").Replace(string(fx.Event)))
}

// BenchmarkAdapterParse: what an adapter adds to a call, from the event's
// bytes to canonical calls (validation and parsing of the JSON included,
// which Claude Code's path paid before adapters).
func BenchmarkAdapterParse(b *testing.B) {
	for _, a := range Agents {
		data := benchEvent(b, a)
		ad := adapterFor(a)
		b.Run(string(a), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !gjson.ValidBytes(data) {
					b.Fatal("invalid")
				}
				root := gjson.ParseBytes(data)
				_ = ad.post(root)
				if _, err := ad.parse(root); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAdapterParsePatch: a Codex apply_patch of three files.
func BenchmarkAdapterParsePatch(b *testing.B) {
	data := []byte(`{"session_id":"s","cwd":"/home/dev/proj","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a.go\n+package a\n*** Update File: b.go\n@@\n-x\n+y\n*** Delete File: c.go\n*** End Patch"}}`)
	ad := adapterFor(Codex)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ad.parse(gjson.ParseBytes(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEventClaudeBefore is the Claude Code parse as Run did it
// before adapters (the event's name, then ParseEvent), for
// BenchmarkAdapterParse/claude to be read against.
func BenchmarkParseEventClaudeBefore(b *testing.B) {
	data := benchEvent(b, Claude)
	b.ReportAllocs()
	for b.Loop() {
		_ = postEvent(gjson.GetBytes(data, "hook_event_name").String())
		if _, err := ParseEvent(data); err != nil {
			b.Fatal(err)
		}
	}
}
