package setup

import (
	"encoding/json"
	"testing"
)

func TestBlankJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{"{/* x\ny */\"a\": 1}", "{    \n    \"a\": 1}"},
		{`{"a": [1, 2,], }`, `{"a": [1, 2 ]  }`},
		{"{\"a\": 1, // trailing\n}", "{\"a\": 1             \n}"},
		{"{\"a\": 1, /* c */ }", "{\"a\": 1          }"},
		// Strings are never touched, whatever they hold.
		{`{"u": "https://x//y", "c": "/* no */", "t": "[1,]", "q": "a\"//b"}`, `{"u": "https://x//y", "c": "/* no */", "t": "[1,]", "q": "a\"//b"}`},
		{`{"k//": "v,}"}`, `{"k//": "v,}"}`},
		// Unterminated comment runs to the end; CR line ends kept.
		{"{\"a\": 1} /* open", "{\"a\": 1}        "},
		{"// c\r\n{}", "    \r\n{}"},
		{"\xEF\xBB\xBF{}", "   {}"},
		{"", ""},
		{"/", "/"},
		{"\"abc", "\"abc"},
		{`[1,,]`, `[1, ]`},
	}
	for _, tc := range tests {
		got := string(blankJSONC([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("blankJSONC(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestBlankJSONCKeepsLines: a server after a multi-line comment keeps its
// line number.
func TestBlankJSONCKeepsLines(t *testing.T) {
	data := "{\n/*\n\n*/\n\"servers\": {\n\"a\": {\"command\": \"x\"},\n}}"
	cfg, err := Parse(newStore("vscode.project", "/w/.vscode/mcp.json"), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 || cfg.Servers[0].Line != 6 {
		t.Fatalf("got %+v, want server a at line 6", cfg.Servers)
	}
	if !json.Valid(blankJSONC([]byte(data))) {
		t.Error("blanked text is not JSON")
	}
}
