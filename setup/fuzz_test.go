package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/BurntSushi/toml"
)

// The fuzz targets' stores: one per dialect, so the fuzzer reaches every
// reader with the same bytes.
var (
	fuzzJSONStores = []Store{
		newStore("claude-code.project-mcp", "/w/.mcp.json"),
		newStore("claude-code.user-mcp", "/h/.claude.json"),
		newStore("claude-code.project-settings", "/w/.claude/settings.json"),
		newStore("vscode.project", "/w/.vscode/mcp.json"),
		newStore("vscode.user-settings", "/h/.config/Code/User/settings.json"),
		newStore("zed.user", "/h/.config/zed/settings.json"),
		newStore("opencode.project", "/w/opencode.json"),
		newStore("grok-cli.project-settings", "/w/.grok/settings.json"),
		newStore("gemini.user", "/h/.gemini/settings.json"),
		newStore("generic.1", "/etc/team/servers.json"),
		// hook files: grouped (Codex) and flat (Cursor, Windsurf, Copilot)
		newStore("codex.user-hooks", "/h/.codex/hooks.json"),
		newStore("cursor.user-hooks", "/h/.cursor/hooks.json"),
		newStore("windsurf.user-hooks", "/h/.codeium/windsurf/hooks.json"),
		newStore("copilot.user-hooks", "/h/.copilot/hooks/airlock.json"),
	}
	fuzzTOMLStores = []Store{
		newStore("codex.user", "/h/.codex/config.toml"),
		newStore("grok.user", "/h/.grok/config.toml"),
	}
	fuzzYAMLStores = []Store{
		newStore("continue.user", "/h/.continue/config.yaml"),
		newStore("goose.user", "/h/.config/goose/config.yaml"),
	}
)

// addFixtureSeeds adds every fixture in one of formats, each under the
// fuzz store of the same agent and kind (the first store otherwise).
func addFixtureSeeds(f *testing.F, stores []Store, formats ...format) {
	var files []string
	err := filepath.WalkDir(fixtureRoot, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	sort.Strings(files)
	n := 0
	for _, p := range files {
		st := fixtureStore(f, p)
		want := false
		for _, fm := range formats {
			want = want || st.Format == fm
		}
		if !want {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		which := 0
		for i, s := range stores {
			if s.Agent == st.Agent && s.Kind == st.Kind {
				which = i
				break
			}
		}
		f.Add(uint8(which), data)
		n++
	}
	if n == 0 {
		f.Fatalf("no fixture seeds for %v", formats)
	}
}

// checkParse holds for any input: no panic (the fuzzer catches those), a
// Config or an error that names the file, servers consistent with
// themselves, and the same answer twice.
func checkParse(t *testing.T, st Store, data []byte) *Config {
	t.Helper()
	cfg, err := Parse(st, data)
	if err == nil && cfg == nil {
		t.Fatal("no Config and no error")
	}
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Path != st.Path {
			t.Fatalf("error %q is not a *ParseError naming %s", err, st.Path)
		}
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	if cfg != nil {
		if cfg.Store != st {
			t.Fatalf("Config.Store = %+v", cfg.Store)
		}
		for _, s := range cfg.Servers {
			if s.Store != st {
				t.Fatalf("server %q has store %+v", s.Name, s.Store)
			}
			if s.Line < 0 || s.Line > lines {
				t.Fatalf("server %q at line %d of %d", s.Name, s.Line, lines)
			}
			if s.Remote != (s.Command == "" && s.URL != "") {
				t.Fatalf("server %q: Remote %v with command %q url %q", s.Name, s.Remote, s.Command, s.URL)
			}
			name, inner, ok := WrappedCommand(s.Command, s.Args)
			if s.Wrapped != ok || s.WrapName != name || !reflect.DeepEqual(s.Inner, inner) {
				t.Fatalf("server %q: wrap fields disagree with WrappedCommand", s.Name)
			}
		}
		for _, h := range cfg.Hooks {
			if h.Line < 1 || h.Line > lines || h.Timeout < 0 {
				t.Fatalf("hook %+v out of range (%d lines)", h, lines)
			}
		}
	}
	cfg2, err2 := Parse(st, data)
	if !reflect.DeepEqual(cfg, cfg2) || errString(err) != errString(err2) {
		t.Fatalf("two parses disagree:\n%+v %v\n%+v %v", cfg, err, cfg2, err2)
	}
	return cfg
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// erroredServers lists the servers an error (possibly joined) names.
func erroredServers(err error) map[string]bool {
	out := map[string]bool{}
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var se *ServerError
		if errors.As(e, &se) {
			out[se.Name] = true
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

func FuzzParseJSONC(f *testing.F) {
	addFixtureSeeds(f, fuzzJSONStores, formatJSON, formatJSONC)
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "x"}, "a": {"url": "u"}}}`,
		`{"mcpServers": {"": {"command": ""}, "\u0000": {"args": [1]}}}`,
		`{"mcpServers": {"a": {"command": "airlock-mcp", "args": ["--name", "--", "--"]}}}`,
		"{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": 1e400}]}]}}",
		`{"mcp": {"servers": {"s": {"type": "local", "command": []}}}}`,
		`{"context_servers": {"z": {"command": {"path": null}}}}`,
		"{\"servers\": {/* x */ \"a\": {\"command\": \"//\"},},}",
		`{"projects": {"/p": {"mcpServers": {"a": {"command": "x"}}}, "/q": 1}}`,
		"\xEF\xBB\xBF{}", "", "/*", "[", `"`, `{"a":`,
	} {
		for i := range fuzzJSONStores {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		st := fuzzJSONStores[int(which)%len(fuzzJSONStores)]
		cfg := checkParse(t, st, data)
		if st.ID != "claude-code.project-mcp" || !json.Valid(data) {
			return
		}
		// Differential: on plain JSON, encoding/json and Parse must agree on
		// which servers the file defines (repeated keys: last wins).
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil {
			return
		}
		var servers map[string]json.RawMessage
		if raw, ok := top["mcpServers"]; !ok || json.Unmarshal(raw, &servers) != nil {
			return
		}
		_, err := Parse(st, data)
		bad := erroredServers(err)
		got := map[string]bool{}
		if cfg != nil {
			for _, s := range cfg.Servers {
				got[s.Name] = true
			}
		}
		for name := range servers {
			if !got[name] && !bad[name] {
				t.Fatalf("encoding/json sees server %q, Parse neither reads nor reports it", name)
			}
		}
		for name := range got {
			if _, ok := servers[name]; !ok {
				t.Fatalf("Parse reads server %q that encoding/json does not see", name)
			}
		}
	})
}

func FuzzParseTOML(f *testing.F) {
	addFixtureSeeds(f, fuzzTOMLStores, formatTOML)
	for _, s := range []string{
		"[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a.env]\nK = 1\n",
		"mcp_servers = { a = { command = \"x\", args = [\"y\"] } }\n",
		"[mcp_servers]\na.command = \"x\"\n\"b\".url = 'u'\n",
		"[[mcp_servers]]\ncommand = \"x\"\n",
		"s = \"\"\"\n[mcp_servers.fake]\n\"\"\"\n[mcp_servers.real]\nenabled = false\n",
		"[mcp_servers.\"\\u00e9\"]\ncommand = \"x\"\n",
		"x = [[[[[[[[1]]]]]]]]\n", "[", "\"\"\"", "a = '''", "[mcp_servers.a]\nargs = [1979-05-27]\n",
	} {
		for i := range fuzzTOMLStores {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		st := fuzzTOMLStores[int(which)%len(fuzzTOMLStores)]
		cfg := checkParse(t, st, data)
		if cfg == nil || tomlDepth(data) > maxTOMLDepth {
			return
		}
		// Differential: the servers are exactly the decoder's mcp_servers
		// table, less those reported.
		var doc map[string]any
		if _, err := toml.Decode(string(data), &doc); err != nil {
			t.Fatalf("Parse accepted what the TOML decoder refuses: %v", err)
		}
		servers, _ := doc["mcp_servers"].(map[string]any)
		_, err := Parse(st, data)
		bad := erroredServers(err)
		if len(cfg.Servers)+len(bad) != len(servers) {
			t.Fatalf("%d servers read and %d reported, the table has %d", len(cfg.Servers), len(bad), len(servers))
		}
		for _, s := range cfg.Servers {
			if _, ok := servers[s.Name]; !ok {
				t.Fatalf("server %q is not in the table", s.Name)
			}
		}
	})
}

func FuzzParseYAML(f *testing.F) {
	addFixtureSeeds(f, fuzzYAMLStores, formatYAML)
	for _, s := range []string{
		"mcpServers:\n  - name: a\n    args: &x [1, 2]\n  - name: b\n    args: *x\n",
		"mcpServers: {a: {command: x}}\n",
		"extensions:\n  e: {cmd: x, args: [--y], envs: {K: 1}, enabled: false}\n",
		"a: &a [*a]\n", "<<: {}\n", "mcpServers:\n  - <<: {name: x}\n", "--- 1\n--- 2\n", "!!binary x: y\n",
		"extensions: !!set {a, b}\n", "[", "{", "\t", "? [a]\n: b\n",
	} {
		for i := range fuzzYAMLStores {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		checkParse(t, fuzzYAMLStores[int(which)%len(fuzzYAMLStores)], data)
	})
}

// FuzzBlankJSONC: the blanker keeps every offset and line, touches only
// comments and commas (turning them into spaces), never a string, and
// leaves valid JSON as it is.
func FuzzBlankJSONC(f *testing.F) {
	addFixtureSeeds(f, fuzzJSONStores, formatJSON, formatJSONC)
	for _, s := range []string{
		`{"u": "https://x//y", "c": "/* no */", "t": "[1,]", "q": "a\"//b\\"}`,
		"{\"a\": [1, 2,], // c\n \"b\": /* x\n y */ 3,}",
		"\"//\" // \"x\"\n", "/* \" */ \"/*\"", "\\\"//", ",]", ",}", "\r\n//\r",
	} {
		f.Add(uint8(0), []byte(s))
	}
	f.Fuzz(func(t *testing.T, _ uint8, in []byte) {
		out := blankJSONC(in)
		if len(out) != len(in) {
			t.Fatalf("length %d, want %d", len(out), len(in))
		}
		for i := range in {
			if out[i] != in[i] && (out[i] != ' ' || in[i] == '\n' || in[i] == '\r') {
				t.Fatalf("byte %d: %q became %q", i, in[i], out[i])
			}
		}
		if json.Valid(in) && !bytes.Equal(in, out) {
			t.Fatalf("valid JSON changed:\n%q\n%q", in, out)
		}
		if !json.Valid(out) {
			return
		}
		// In JSON (no comments left) string spans are unambiguous: each must
		// hold the input's bytes.
		for i := 0; i < len(out); i++ {
			if out[i] != '"' {
				continue
			}
			end := stringEnd(out, i)
			if !bytes.Equal(out[i:end], in[i:end]) {
				t.Fatalf("string at %d changed: %q became %q", i, in[i:end], out[i:end])
			}
			i = end - 1
		}
	})
}
