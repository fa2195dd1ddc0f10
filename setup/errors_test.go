package setup

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func storeFor(id, path string) Store { return newStore(id, path) }

// TestParseErrorsNameFileLineAndField: a wrong type costs only its entry,
// and the message says where and what, the way a user would fix it.
func TestParseErrorsNameFileLineAndField(t *testing.T) {
	tests := []struct {
		name    string
		st      Store
		data    string
		wantMsg string   // the whole message of the (first) error
		field   string   // FieldError.Field, when the error is one
		kept    []string // servers still returned
	}{
		{
			name:    "args not an array",
			st:      storeFor("cursor.user", "~/.cursor/mcp.json"),
			data:    "{\n  \"mcpServers\": {\n    \"ok\": {\"command\": \"a\"},\n    \"x\": {\n      \"command\": \"b\",\n      \"args\": \"--flag\"\n    }\n  }\n}\n",
			wantMsg: `~/.cursor/mcp.json:6: server "x": "args" must be an array of strings`,
			field:   "args", kept: []string{"ok"},
		},
		{
			name:    "args element not a string",
			st:      storeFor("claude-code.project-mcp", "/w/.mcp.json"),
			data:    "{\"mcpServers\": {\"x\": {\"command\": \"b\",\n \"args\": [\"a\",\n 7]}}}",
			wantMsg: `/w/.mcp.json:3: server "x": "args" must be an array of strings`,
			field:   "args",
		},
		{
			name:    "env value a number",
			st:      storeFor("gemini.user", "/h/.gemini/settings.json"),
			data:    "{\"mcpServers\": {\n\"db\": {\"command\": \"x\", \"env\": {\n\"PORT\": 5432}}}}",
			wantMsg: `/h/.gemini/settings.json:3: server "db": "env.PORT" must be a string`,
			field:   "env.PORT",
		},
		{
			name:    "entry not an object",
			st:      storeFor("claude-desktop.user", "/h/claude_desktop_config.json"),
			data:    "{\"mcpServers\": {\n\"a\": {\"command\": \"x\"},\n\"b\": \"npx foo\"}}",
			wantMsg: `/h/claude_desktop_config.json:3: server "b": entry must be an object`,
			field:   "", kept: []string{"a"},
		},
		{
			name:    "disabled not a boolean",
			st:      storeFor("windsurf.user", "/h/mcp_config.json"),
			data:    "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"disabled\": \"yes\"}}}",
			wantMsg: `/h/mcp_config.json:2: server "a": "disabled" must be a boolean`,
			field:   "disabled",
		},
		{
			name:    "mcpServers an array",
			st:      storeFor("claude-code.project-mcp", "/w/.mcp.json"),
			data:    "{\n\"mcpServers\": [{\"command\": \"x\"}]}",
			wantMsg: `/w/.mcp.json:2: "mcpServers" must be an object`,
			field:   "mcpServers",
		},
		{
			name:    "claude.json project servers wrong type",
			st:      storeFor("claude-code.user-mcp", "/h/.claude.json"),
			data:    "{\"projects\": {\"/w\": {\n\"mcpServers\": 3}}}",
			wantMsg: `/h/.claude.json:2: "projects./w.mcpServers" must be an object`,
			field:   "projects./w.mcpServers",
		},
		{
			name:    "opencode command a string",
			st:      storeFor("opencode.project", "/w/opencode.json"),
			data:    "{\"mcp\": {\"s\": {\"type\": \"local\",\n\"command\": \"npx -y s\"}}}",
			wantMsg: `/w/opencode.json:2: server "s": "command" must be an array of strings`,
			field:   "command",
		},
		{
			name:    "zed nested path wrong type",
			st:      storeFor("zed.user", "/h/.config/zed/settings.json"),
			data:    "{\"context_servers\": {\"z\": {\"command\": {\n\"path\": [\"x\"]}}}}",
			wantMsg: `/h/.config/zed/settings.json:2: server "z": "command.path" must be a string`,
			field:   "command.path",
		},
		{
			name:    "grok-cli transport a string",
			st:      storeFor("grok-cli.project-settings", "/w/.grok/settings.json"),
			data:    "{\"mcpServers\": {\"g\": {\n\"transport\": \"stdio\"}}}",
			wantMsg: `/w/.grok/settings.json:2: server "g": "transport" must be an object`,
			field:   "transport",
		},
		{
			name:    "top level an array",
			st:      storeFor("claude-code.project-mcp", "/w/.mcp.json"),
			data:    "\n[1, 2]",
			wantMsg: `/w/.mcp.json:2: entry must be a JSON object at the top level`,
		},
		{
			name:    "hook timeout a string",
			st:      storeFor("claude-code.project-settings", "/w/.claude/settings.json"),
			data:    "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n{\"type\": \"command\", \"command\": \"a\",\n\"timeout\": \"30\"}]}]}}",
			wantMsg: `/w/.claude/settings.json:3: "hooks.PreToolUse[0].hooks[0].timeout" must be a number of seconds`,
			field:   "hooks.PreToolUse[0].hooks[0].timeout",
		},
		{
			name:    "hook event not an array",
			st:      storeFor("claude-code.project-settings", "/w/.claude/settings.json"),
			data:    "{\"hooks\": {\n\"Stop\": {\"hooks\": []}}}",
			wantMsg: `/w/.claude/settings.json:2: "hooks.Stop" must be an array`,
			field:   "hooks.Stop",
		},
		{
			name:    "hook command missing",
			st:      storeFor("claude-code.project-settings", "/w/.claude/settings.json"),
			data:    "{\"hooks\": {\"Stop\": [{\"hooks\": [{\n\"type\": \"command\"}]}]}}",
			wantMsg: `/w/.claude/settings.json:2: "hooks.Stop[0].hooks[0].command" must be a string`,
			field:   "hooks.Stop[0].hooks[0].command",
		},
		{
			name:    "TOML args a string",
			st:      storeFor("codex.user", "/h/.codex/config.toml"),
			data:    "model = \"x\"\n\n[mcp_servers.ok]\ncommand = \"a\"\n\n[mcp_servers.bad]\ncommand = \"b\"\nargs = \"--x\"\n",
			wantMsg: `/h/.codex/config.toml:6: server "bad": "args" must be an array of strings`,
			field:   "args", kept: []string{"ok"},
		},
		{
			name:    "TOML enabled a string",
			st:      storeFor("grok.user", "/h/.grok/config.toml"),
			data:    "[mcp_servers.g]\ncommand = \"b\"\nenabled = \"no\"\n",
			wantMsg: `/h/.grok/config.toml:1: server "g": "enabled" must be a boolean`,
			field:   "enabled",
		},
		{
			name:    "TOML mcp_servers an array of tables",
			st:      storeFor("codex.user", "/h/.codex/config.toml"),
			data:    "\n[[mcp_servers]]\nname = \"x\"\n",
			wantMsg: `/h/.codex/config.toml:2: "mcp_servers" must be a table of servers ([mcp_servers.NAME])`,
			field:   "mcp_servers",
		},
		{
			name:    "YAML env a list",
			st:      storeFor("continue.user", "/h/.continue/config.yaml"),
			data:    "mcpServers:\n  - name: a\n    command: x\n  - name: b\n    command: y\n    env:\n      - A=1\n",
			wantMsg: `/h/.continue/config.yaml:6: server "b": "env" must be an object of strings`,
			field:   "env", kept: []string{"a"},
		},
		{
			name:    "YAML list item without a name",
			st:      storeFor("continue.user", "/h/.continue/config.yaml"),
			data:    "mcpServers:\n  - command: x\n",
			wantMsg: `/h/.continue/config.yaml:2: "mcpServers[0].name" must be a string`,
			field:   "mcpServers[0].name",
		},
		{
			name:    "Goose cmd a mapping",
			st:      storeFor("goose.user", "/h/.config/goose/config.yaml"),
			data:    "extensions:\n  g:\n    type: stdio\n    cmd:\n      path: x\n",
			wantMsg: `/h/.config/goose/config.yaml:4: server "g": "cmd" must be a string`,
			field:   "cmd",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse(tc.st, []byte(tc.data))
			if err == nil {
				t.Fatalf("Parse gave no error")
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			if first != tc.wantMsg {
				t.Errorf("error\n got %s\nwant %s", first, tc.wantMsg)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Path != tc.st.Path {
				t.Errorf("error is not a *ParseError for %s: %#v", tc.st.Path, err)
			}
			var se *ServerError
			if strings.Contains(tc.wantMsg, `: server "`) && !errors.As(err, &se) {
				t.Errorf("no *ServerError in %q", err)
			}
			var fe *FieldError
			if tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
				t.Errorf("FieldError.Field = %v, want %q", fe, tc.field)
			}
			if cfg == nil {
				if len(tc.kept) > 0 {
					t.Fatalf("no Config, want servers %q kept", tc.kept)
				}
				return
			}
			var names []string
			for _, s := range cfg.Servers {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.kept, ",") {
				t.Errorf("servers kept %q, want %q", names, tc.kept)
			}
		})
	}
}

// TestParseSyntaxErrors: a file that is not its format is refused whole,
// with the line the parser stopped at.
func TestParseSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, id, path, data string
		want                 string // prefix of the message
	}{
		{"JSON", "claude-code.project-mcp", "/w/.mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}", `/w/.mcp.json:3: invalid JSON: `},
		{"JSON unterminated", "cursor.user", "/h/.cursor/mcp.json", "{\n\"mcpServers\": {", `/h/.cursor/mcp.json:2: invalid JSON: `},
		{"TOML", "codex.user", "/h/.codex/config.toml", "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"a\",\n", `/h/.codex/config.toml:`},
		{"TOML duplicate key", "codex.user", "/h/.codex/config.toml", "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", `/h/.codex/config.toml:3: invalid TOML: `},
		{"YAML", "continue.user", "/h/.continue/config.yaml", "mcpServers:\n  - name: a\n   command: [x\n", `/h/.continue/config.yaml:`},
		{"YAML tab", "goose.user", "/h/goose/config.yaml", "extensions:\n\tg: {}\n", `/h/goose/config.yaml:2: invalid YAML: `},
		{"unknown format", "", "/x", "{}", `/x: unknown format "ini"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := storeFor(tc.id, tc.path)
			if tc.id == "" {
				st.Format = "ini"
			}
			cfg, err := Parse(st, []byte(tc.data))
			if err == nil || cfg != nil {
				t.Fatalf("Parse = %v, %v; want nil and an error", cfg, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix %q", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("not a *ParseError: %#v", err)
			} else if tc.id != "" && pe.Line == 0 {
				t.Errorf("no line in %q", err)
			}
			if errors.Unwrap(pe) == nil {
				t.Errorf("%q wraps no cause", err)
			}
		})
	}
}

func TestParseRefusesLargeFiles(t *testing.T) {
	data := bytes.Repeat([]byte(" "), MaxFileSize+1)
	cfg, err := Parse(storeFor("claude-code.user-mcp", "/h/.claude.json"), data)
	if cfg != nil || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Parse = %v, %v; want ErrTooLarge", cfg, err)
	}
	if !strings.HasPrefix(err.Error(), "/h/.claude.json: ") {
		t.Errorf("error %q does not name the file", err)
	}
	// Exactly the limit is read.
	if _, err := Parse(storeFor("claude-code.user-mcp", "/h/.claude.json"), data[:MaxFileSize]); err != nil {
		t.Errorf("a file of exactly MaxFileSize: %v", err)
	}
}

func TestParseRefusesDeepTOML(t *testing.T) {
	data := []byte("x = " + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + "\n")
	_, err := Parse(storeFor("codex.user", "/h/.codex/config.toml"), data)
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Fatalf("err = %v, want a nesting error", err)
	}
}

func TestParseDeepJSONAndYAMLDoNotCrash(t *testing.T) {
	deepJSON := `{"mcpServers": {"a": {"command": "x", "args": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`
	if _, err := Parse(storeFor("claude-code.project-mcp", "/w/.mcp.json"), []byte(deepJSON)); err == nil {
		t.Error("deep JSON: want an error (too deep for encoding/json, or args not strings)")
	}
	deepYAML := "mcpServers:\n  - name: a\n    args: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"
	if _, err := Parse(storeFor("continue.user", "/h/.continue/config.yaml"), []byte(deepYAML)); err == nil {
		t.Error("deep YAML: want an error")
	}
}

// TestParseEmptyIsNotAnError: an empty file, or one without servers, is
// a store that defines nothing.
func TestParseEmptyIsNotAnError(t *testing.T) {
	for _, tc := range []struct{ id, data string }{
		{"claude-code.project-mcp", ""},
		{"claude-code.project-mcp", "  \n"},
		{"claude-code.project-mcp", "null"},
		{"claude-code.project-mcp", "{}"},
		{"claude-code.project-mcp", `{"mcpServers": null}`},
		{"claude-code.project-mcp", `{"mcpServers": {}}`},
		{"zed.user", "// only a comment\n/* and another */\n"},
		{"zed.user", `{"theme": "One Dark"}`},
		{"vscode.project", `{"inputs": [], "servers": {},}`},
		{"claude-code.project-settings", `{"permissions": {}}`},
		{"claude-code.project-settings", `{"hooks": {}}`},
		{"codex.user", ""},
		{"codex.user", "# nothing yet\nmodel = \"o3\"\n"},
		{"continue.user", ""},
		{"continue.user", "# comment only\n"},
		{"continue.user", "name: x\nmcpServers: []\n"},
		{"goose.user", "~\n"},
		{"goose.user", "GOOSE_PROVIDER: openai\n"},
		{"opencode.project", `{"mcp": {}}`},
	} {
		cfg, err := Parse(storeFor(tc.id, "/f"), []byte(tc.data))
		if err != nil || cfg == nil || len(cfg.Servers) != 0 || len(cfg.Hooks) != 0 {
			t.Errorf("%s %q: Parse = %+v, %v; want an empty Config", tc.id, tc.data, cfg, err)
		}
	}
}

// TestParseDuplicateKeysLastWins: JSON.parse and encoding/json keep the
// last of a repeated key; so does Parse, at the first one's place.
func TestParseDuplicateKeysLastWins(t *testing.T) {
	data := "{\"mcpServers\": {\n\"a\": {\"command\": \"first\"},\n\"b\": {\"command\": \"b\"},\n\"a\": {\"command\": \"second\"}\n},\n\"mcpServers\": {\n\"c\": {\"command\": \"c\"}\n}}"
	cfg, err := Parse(storeFor("claude-code.project-mcp", "/w/.mcp.json"), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "c" || cfg.Servers[0].Line != 7 {
		t.Fatalf("repeated mcpServers: got %+v, want only the last block's server c at line 7", cfg.Servers)
	}
	data = "{\"mcpServers\": {\n\"a\": {\"command\": \"first\"},\n\"b\": {\"command\": \"b\"},\n\"a\": {\"command\": \"second\"}\n}}"
	cfg, err = Parse(storeFor("claude-code.project-mcp", "/w/.mcp.json"), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "a" || cfg.Servers[0].Command != "second" || cfg.Servers[0].Line != 4 || cfg.Servers[1].Name != "b" {
		t.Fatalf("repeated server: got %+v, want a=second (line 4) then b", cfg.Servers)
	}
}

func TestParseJSONEscapesInNames(t *testing.T) {
	data := `{"mcpServers": {"caf\u00e9\n\"x\"": {"command": "a\tb", "args": ["\ud83d\ude00"]}}}`
	cfg, err := Parse(storeFor("claude-code.project-mcp", "/w/.mcp.json"), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	if s.Name != "café\n\"x\"" || s.Command != "a\tb" || s.Args[0] != "😀" {
		t.Errorf("got %q %q %q", s.Name, s.Command, s.Args)
	}
}

func TestParseBOM(t *testing.T) {
	data := append([]byte{0xEF, 0xBB, 0xBF}, `{"mcpServers": {"a": {"command": "x"}}}`...)
	cfg, err := Parse(storeFor("claude-desktop.user", "/h/c.json"), data)
	if err != nil || len(cfg.Servers) != 1 {
		t.Fatalf("Parse with a BOM = %+v, %v", cfg, err)
	}
}

// TestYAMLAliasesAreNotExpanded: a billion-laughs document costs its size.
func TestYAMLAliasesAreNotExpanded(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(n + ": &" + n + " [")
		for i := 0; i < 10; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = n
	}
	b.WriteString("mcpServers:\n  - name: bomb\n    command: x\n    args: *i\n  - name: ok\n    command: y\n    args: *a\n    env: &e {K: v}\n  - name: ok2\n    command: z\n    env: *e\n")
	cfg, err := Parse(storeFor("continue.user", "/h/.continue/config.yaml"), []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), `server "bomb": "args" must be an array of strings`) {
		t.Errorf("err = %v, want the bomb's args refused", err)
	}
	if cfg == nil || len(cfg.Servers) != 2 || len(cfg.Servers[0].Args) != 10 || cfg.Servers[1].Env["K"] != "v" {
		t.Errorf("aliased args and env should be read: %+v", cfg)
	}
}
