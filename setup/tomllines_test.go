package setup

import (
	"reflect"
	"testing"
)

func TestTOMLServerLines(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    map[string]int
		anyLine int
	}{
		{"headers", "[mcp_servers.a]\ncommand = \"x\"\n\n[mcp_servers.b]\n", map[string]int{"a": 1, "b": 4}, 1},
		{"quoted and spaced", "x = 1\n[ mcp_servers . \"dot.ted\" ]\n[mcp_servers.'lit']\n[mcp_servers.\"esc\\u0041\"]\n", map[string]int{"dot.ted": 2, "lit": 3, "escA": 4}, 2},
		{"subtable first", "[mcp_servers.a.env]\nK = \"v\"\n[mcp_servers.a]\ncommand = \"x\"\n", map[string]int{"a": 1}, 1},
		{"keys inside [mcp_servers]", "[mcp_servers]\n\na = { command = \"x\" }\nb.command = \"y\"\n", map[string]int{"a": 3, "b": 4}, 1},
		{"root dotted keys", "mcp_servers.a.command = \"x\"\nmcp_servers . b = { command = \"y\" }\n", map[string]int{"a": 1, "b": 2}, 1},
		{"inline table at root", "mcp_servers = { a = { command = \"x\" } }\n", map[string]int{}, 1},
		{
			"headers inside strings and arrays are not headers",
			"[other]\ns = \"\"\"\n[mcp_servers.fake1]\n\"\"\"\nl = '''\n[mcp_servers.fake2]\n'''\narr = [\n  \"[mcp_servers.fake3]\",\n  # [mcp_servers.fake4]\n]\n[mcp_servers.real]\n",
			map[string]int{"real": 12}, 12,
		},
		{"multi-line string with escaped newline and extra quotes", "a = \"\"\"x\\\n y\"\"\"\"\"\n[mcp_servers.z]\n", map[string]int{"z": 3}, 3},
		{"comment after header", "[mcp_servers.c] # the c server\ncommand = \"x\"\n", map[string]int{"c": 1}, 1},
		{"array of tables", "[[mcp_servers]]\nname = \"x\"\n", map[string]int{"name": 2}, 1},
		{"CRLF", "x = 1\r\n[mcp_servers.w]\r\n", map[string]int{"w": 2}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, anyLine := tomlServerLines([]byte(tc.src))
			if !reflect.DeepEqual(got, tc.want) || anyLine != tc.anyLine {
				t.Errorf("got %v, %d; want %v, %d", got, anyLine, tc.want, tc.anyLine)
			}
		})
	}
}

// TestTOMLServersKeepFileOrder: servers come out in the order the file
// writes them, not in a Go map's order.
func TestTOMLServersKeepFileOrder(t *testing.T) {
	src := "[mcp_servers.zeta]\ncommand = \"z\"\n[mcp_servers.alpha]\ncommand = \"a\"\n[mcp_servers.mid]\ncommand = \"m\"\n"
	for i := 0; i < 20; i++ {
		cfg, err := Parse(newStore("codex.user", "/h/.codex/config.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
		if !reflect.DeepEqual(names, []string{"zeta", "alpha", "mid"}) {
			t.Fatalf("order %q", names)
		}
	}
}
