package setup

import (
	"reflect"
	"strings"
	"testing"
)

const testMCP = "/opt/airlock/bin/airlock-mcp"

// TestWrapSplices pins the exact bytes a wrap writes in each dialect and
// form, and that unwrapping gives back the file it started from.
func TestWrapSplices(t *testing.T) {
	tests := []struct {
		name, id, path string
		in, server     string
		want           string
		inexact        bool // unwrap gives an equivalent file, not the same bytes
	}{
		{name: "json args", id: "claude-code.project-mcp", path: "/w/.mcp.json", server: "a",
			in:   `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x"]}}}`,
			want: `{"mcpServers": {"a": {"command": "/opt/airlock/bin/airlock-mcp", "args": ["--name", "a", "--", "npx", "-y", "x"]}}}`},
		{name: "json no args", id: "cursor.user", path: "/h/.cursor/mcp.json", server: "a",
			in:   "{\"mcpServers\": {\"a\": {\"command\": \"srv\" // the server\n}}}",
			want: "{\"mcpServers\": {\"a\": {\"command\": \"/opt/airlock/bin/airlock-mcp\", \"args\": [\"--name\", \"a\", \"--\", \"srv\"] // the server\n}}}"},
		{name: "json empty args", id: "windsurf.user", path: "/h/mcp_config.json", server: "a",
			in:   `{"mcpServers": {"a": {"args": [ ], "command": "srv", "disabled": true}}}`,
			want: `{"mcpServers": {"a": {"args": ["--name", "a", "--", "srv" ], "command": "/opt/airlock/bin/airlock-mcp", "disabled": true}}}`},
		{name: "json null args", id: "gemini.user", path: "/h/.gemini/settings.json", server: "a",
			in:   `{"mcpServers": {"a": {"command": "srv", "args": null}}}`,
			want: `{"mcpServers": {"a": {"command": "/opt/airlock/bin/airlock-mcp", "args": ["--name", "a", "--", "srv"]}}}`},
		{name: "json multi-line args, escapes kept", id: "claude-desktop.user", path: "/h/claude_desktop_config.json", server: `we"ird`,
			in:   "{\n  \"mcpServers\": {\n    \"we\\\"ird\": {\n      \"command\": \"C:\\\\bin\\\\srv.exe\",\n      \"args\": [\n        \"--port\",\n        \"80\"\n      ]\n    }\n  }\n}\n",
			want: "{\n  \"mcpServers\": {\n    \"we\\\"ird\": {\n      \"command\": \"/opt/airlock/bin/airlock-mcp\",\n      \"args\": [\n        \"--name\", \"we\\\"ird\", \"--\", \"C:\\\\bin\\\\srv.exe\", \"--port\",\n        \"80\"\n      ]\n    }\n  }\n}\n"},
		{name: "vscode servers, jsonc", id: "vscode.project", path: "/w/.vscode/mcp.json", server: "p",
			in:   "{\"servers\": {\"p\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [/* pkg */ \"p\",],},},}",
			want: "{\"servers\": {\"p\": {\"type\": \"stdio\", \"command\": \"/opt/airlock/bin/airlock-mcp\", \"args\": [/* pkg */ \"--name\", \"p\", \"--\", \"npx\", \"p\",],},},}"},
		{name: "opencode command array", id: "opencode.project", path: "/w/opencode.json", server: "e",
			in:   `{"mcp": {"e": {"type": "local", "command": ["npx", "-y", "e"]}}}`,
			want: `{"mcp": {"e": {"type": "local", "command": ["/opt/airlock/bin/airlock-mcp", "--name", "e", "--", "npx", "-y", "e"]}}}`},
		{name: "zed early nested form", id: "zed.user", path: "/h/.config/zed/settings.json", server: "pg",
			in:   `{"context_servers": {"pg": {"command": {"path": "pg-mcp", "env": {}}, "settings": {}}}}`,
			want: `{"context_servers": {"pg": {"command": {"path": "/opt/airlock/bin/airlock-mcp", "args": ["--name", "pg", "--", "pg-mcp"], "env": {}}, "settings": {}}}}`},
		{name: "grok-cli transport", id: "grok-cli.project-settings", path: "/w/.grok/settings.json", server: "fs",
			in:   `{"mcpServers": {"fs": {"name": "fs", "transport": {"type": "stdio", "command": "npx", "args": ["fs"]}}}}`,
			want: `{"mcpServers": {"fs": {"name": "fs", "transport": {"type": "stdio", "command": "/opt/airlock/bin/airlock-mcp", "args": ["--name", "fs", "--", "npx", "fs"]}}}}`},
		{name: "toml table", id: "codex.user", path: "/h/.codex/config.toml", server: "db",
			in:   "[mcp_servers.db]\ncommand = 'uvx'  # sqlite\nargs = [\n  \"mcp-server-sqlite\", # the package\n]\n",
			want: "[mcp_servers.db]\ncommand = \"/opt/airlock/bin/airlock-mcp\"  # sqlite # airlock: wrapped\nargs = [\n  \"--name\", \"db\", \"--\", 'uvx', \"mcp-server-sqlite\", # the package\n]\n"},
		{name: "toml no args", id: "grok.user", path: "/h/.grok/config.toml", server: "c7",
			in:   "[mcp_servers.c7]\r\ncommand = \"npx\"\r\nenabled = true\r\n",
			want: "[mcp_servers.c7]\r\ncommand = \"/opt/airlock/bin/airlock-mcp\" # airlock: wrapped\r\nargs = [\"--name\", \"c7\", \"--\", \"npx\"] # airlock: wrapped\r\nenabled = true\r\n"},
		{name: "toml inline table", id: "codex.user", path: "/h/.codex/config.toml", server: "x.y",
			in:   "[mcp_servers]\n\"x.y\" = { command = \"srv\", env = { A = \"1\" } }\n",
			want: "[mcp_servers]\n\"x.y\" = { command = \"/opt/airlock/bin/airlock-mcp\", args = [\"--name\", \"x.y\", \"--\", \"srv\"], env = { A = \"1\" } }\n"},
		{name: "toml dotted keys", id: "codex.user", path: "/h/.codex/config.toml", server: "s",
			in:   "mcp_servers.s.command = \"srv\"\nmcp_servers.s.cwd = \"/tmp\"\n",
			want: "mcp_servers.s.command = \"/opt/airlock/bin/airlock-mcp\" # airlock: wrapped\nmcp_servers.s.args = [\"--name\", \"s\", \"--\", \"srv\"] # airlock: wrapped\nmcp_servers.s.cwd = \"/tmp\"\n"},
		{name: "yaml block list", id: "continue.user", path: "/h/.continue/config.yaml", server: "SQLite",
			in:   "mcpServers:\n  - name: SQLite\n    command: npx # runs it\n    args:\n      - \"-y\"\n      - mcp-sqlite\n",
			want: "mcpServers:\n  - name: SQLite\n    command: /opt/airlock/bin/airlock-mcp # runs it # airlock: wrapped\n    args:\n      - \"--name\"\n      - \"SQLite\"\n      - \"--\"\n      - npx\n      - \"-y\"\n      - mcp-sqlite\n"},
		{name: "yaml flow list", id: "continue.user", path: "/h/.continue/config.yaml", server: "w",
			in:   "mcpServers:\n  - name: w\n    command: 'uvx'\n    args: [ddg, --port, 8080]\n",
			want: "mcpServers:\n  - name: w\n    command: /opt/airlock/bin/airlock-mcp # airlock: wrapped\n    args: [\"--name\", \"w\", \"--\", 'uvx', ddg, --port, 8080]\n"},
		{name: "yaml no args, command on the dash line", id: "continue.user", path: "/h/.continue/config.yaml", server: "n",
			in:   "mcpServers:\n  - command: node\n    name: n\n",
			want: "mcpServers:\n  - command: /opt/airlock/bin/airlock-mcp # airlock: wrapped\n    args: [\"--name\", \"n\", \"--\", node] # airlock: wrapped\n    name: n\n"},
		{name: "yaml flow mapping", id: "continue.user", path: "/h/.continue/config.yaml", server: "f",
			in:   "mcpServers:\n  - {name: f, command: srv}\n",
			want: "mcpServers:\n  - {name: f, command: /opt/airlock/bin/airlock-mcp, args: [\"--name\", \"f\", \"--\", srv]}\n"},
		{name: "goose", id: "goose.user", path: "/h/.config/goose/config.yaml", server: "gh",
			in:   "extensions:\n  gh:\n    args: []\n    cmd: github-mcp-server\n    type: stdio\n",
			want: "extensions:\n  gh:\n    args: [\"--name\", \"gh\", \"--\", github-mcp-server]\n    cmd: /opt/airlock/bin/airlock-mcp # airlock: wrapped\n    type: stdio\n"},
		{name: "yaml plain command that flow syntax must quote", id: "goose.user", path: "/h/.config/goose/config.yaml", server: "w",
			in:      "extensions:\n  w:\n    cmd: C:\\tools\\srv.exe\n    args: [a]\n",
			want:    "extensions:\n  w:\n    cmd: /opt/airlock/bin/airlock-mcp # airlock: wrapped\n    args: [\"--name\", \"w\", \"--\", \"C:\\\\tools\\\\srv.exe\", a]\n",
			inexact: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(tc.id, tc.path)
			cfg, err := Parse(st, []byte(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			orig := serverByName(cfg, tc.server)
			out, rec, err := wrapServer(st, []byte(tc.in), cfg, tc.server, testMCP)
			if err != nil {
				t.Fatalf("wrap: %v", err)
			}
			if string(out) != tc.want {
				t.Fatalf("wrap:\n got %q\nwant %q", out, tc.want)
			}
			cfg2, err := Parse(st, out)
			if err != nil {
				t.Fatal(err)
			}
			back, ok, err := unwrapServer(st, out, cfg2, rec)
			if err != nil || !ok {
				t.Fatalf("unwrap: %v %v", ok, err)
			}
			if tc.inexact {
				cfg3, _ := Parse(st, back)
				if s := serverByName(cfg3, tc.server); s == nil || !sameServer(*orig, *s, false) {
					t.Errorf("unwrap: %+v, want %+v", s, orig)
				}
				return
			}
			if string(back) != tc.in {
				t.Errorf("unwrap:\n got %q\nwant %q", back, tc.in)
			}
		})
	}
}

// TestWrapRefusesWhatItCannotPlaceExactly: an alias, a block scalar, a
// null args list: left alone, with a reason, never guessed at.
func TestWrapRefusesWhatItCannotPlaceExactly(t *testing.T) {
	tests := []struct{ name, id, in, server, want string }{
		{"yaml anchored entry", "goose.user", "extensions:\n  a: &a\n    cmd: srv\n  b: *a\n", "a", "anchor"},
		{"yaml block scalar command", "goose.user", "extensions:\n  a:\n    cmd: |\n      srv\n", "a", "one-line value"},
		{"yaml null args", "goose.user", "extensions:\n  a:\n    cmd: srv\n    args:\n", "a", "args: []"},
		{"yaml two items, one name", "continue.user", "mcpServers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n", "a", "no single server"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(tc.id, "/h/config.yaml")
			cfg, err := Parse(st, []byte(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			_, _, err = wrapServer(st, []byte(tc.in), cfg, tc.server, testMCP)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestWireHooks(t *testing.T) {
	st := newStore("claude-code.user-settings", "/h/.claude/settings.json")
	const hook = "/opt/air lock/airlock-hook"
	pre := `'/opt/air lock/airlock-hook'`
	tests := []struct {
		name   string
		in     string // "-" for no file
		want   string
		events []string
	}{
		{name: "no file", in: "-", events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"},
			want: "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"" + pre + "\",\n            \"timeout\": 30\n          }\n        ]\n      }\n    ],\n    \"PostToolUse\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"" + pre + " --post\",\n            \"timeout\": 30\n          }\n        ]\n      }\n    ],\n    \"PostToolUseFailure\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"" + pre + " --post\",\n            \"timeout\": 30\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
		{name: "one-line object", in: `{"model": "opus"}`, events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"},
			want: `{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + `", "timeout": 30}]}], "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}], "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}]}}`},
		{name: "existing inline list", in: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}], "PostToolUse": null}}`, events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"},
			want: "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": []}, {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"" + pre + "\", \"timeout\": 30}]}], \"PostToolUse\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"" + pre + " --post\", \"timeout\": 30}]}], \"PostToolUseFailure\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"" + pre + " --post\", \"timeout\": 30}]}]}}"},
		{name: "already wired elsewhere", in: `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/usr/bin/airlock-hook"}]}]}}`, events: []string{"PostToolUse", "PostToolUseFailure"},
			want: `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/usr/bin/airlock-hook"}]}], "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}], "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}]}}`},
		// a wiring made before PostToolUseFailure was wired: only the
		// failure event is added, and unwiring gives the old file back
		{name: "old wiring without PostToolUseFailure", in: `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + `", "timeout": 30}]}], "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}]}}`, events: []string{"PostToolUseFailure"},
			want: `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + `", "timeout": 30}]}], "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}], "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + pre + ` --post", "timeout": 30}]}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in []byte
			if tc.in != "-" {
				in = []byte(tc.in)
			}
			out, recs, err := wireHooks(st, in, hook)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("wire:\n got %s\nwant %s", out, tc.want)
			}
			var evs []string
			for _, r := range recs {
				evs = append(evs, r.Event)
			}
			if !reflect.DeepEqual(evs, tc.events) {
				t.Errorf("events %v, want %v", evs, tc.events)
			}
			again, more, err := wireHooks(st, out, hook)
			if err != nil || len(more) != 0 || string(again) != string(out) {
				t.Errorf("wiring twice changed the file: %v %v", more, err)
			}
			if tc.in == "-" || strings.Contains(tc.in, "null") {
				return // there is nothing to give back byte for byte
			}
			back, _, err := unwireHooks(st, out, recs)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != tc.in {
				t.Errorf("unwire:\n got %s\nwant %s", back, tc.in)
			}
		})
	}
}

func TestHookCommandWords(t *testing.T) {
	tests := []struct {
		cmd   string
		first string
		ours  bool
	}{
		{"/usr/local/bin/airlock-hook", "/usr/local/bin/airlock-hook", true},
		{"/usr/local/bin/airlock-hook --post", "/usr/local/bin/airlock-hook", true},
		{`'/Users/me/My Tools/airlock-hook' --post`, "/Users/me/My Tools/airlock-hook", true},
		{`"/opt/a b/airlock-hook"`, "/opt/a b/airlock-hook", true},
		{`C:\\Airlock\\AIRLOCK-HOOK.EXE pre`, `C:\Airlock\AIRLOCK-HOOK.EXE`, true},
		{"airlock-hook-wrapper", "airlock-hook-wrapper", false},
		{"npx prettier --write", "npx", false},
		{"echo airlock-hook", "echo", false},
	}
	for _, tc := range tests {
		if got := firstWord(tc.cmd); got != tc.first {
			t.Errorf("firstWord(%q) = %q, want %q", tc.cmd, got, tc.first)
		}
		if got := IsAirlockHook(tc.cmd); got != tc.ours {
			t.Errorf("IsAirlockHook(%q) = %v", tc.cmd, got)
		}
	}
	for _, p := range []string{"/opt/airlock/airlock-hook", "/Users/me/My Tools/airlock-hook", "/tmp/it's/airlock-hook"} {
		pre, post := HookCommands(p)
		if firstWord(pre) != p || firstWord(post) != p || !strings.HasSuffix(post, " --post") {
			t.Errorf("HookCommands(%q) = %q, %q: the shell would not run %q", p, pre, post, p)
		}
	}
}

func TestReportEscapesWhatATerminalWouldRun(t *testing.T) {
	l := line{Path: "/w/.mcp.json", Server: "gh\x1b[2J\u202e", Action: actRemote, Detail: "https://x/\x07\xff"}
	want := `/w/.mcp.json: gh\x1b[2J\u202e: remote: not wrapped (https://x/\x07\xff)`
	if got := l.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
