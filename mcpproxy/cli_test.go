package mcpproxy

import (
	"bytes"
	"strings"
	"testing"
)

func TestMaxMessageFromFlagAndEnvironment(t *testing.T) {
	for _, c := range []struct {
		flag, env string
		want      int64
		err       string
	}{
		{"", "", defaultMaxMessage, ""},
		{"", "1048576", 1 << 20, ""},
		{"", "16MiB", 16 << 20, ""},
		{"256k", "16MiB", 256 << 10, ""}, // the flag wins
		{"1 GiB", "", 1 << 30, ""},
		{"2g", "", 2 << 30, ""},
		{"512KB", "", 512 << 10, ""},
		{"", "lots", 0, `AIRLOCK_MCP_MAX_MESSAGE="lots": not a size`},
		{"-1", "", 0, "not a size"},
		{"1KiB", "", 0, "between 64KiB and 4GiB"},
		{"8GiB", "", 0, "between 64KiB and 4GiB"},
		{"99999999999999999999", "", 0, "not a size"},
		{"1.5MiB", "", 0, "not a size"},
	} {
		got, err := maxMessage(c.flag, c.env)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("flag %q env %q: want an error with %q, got %v", c.flag, c.env, c.err, err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("flag %q env %q: got %d, %v; want %d", c.flag, c.env, got, err, c.want)
		}
	}
}

func TestMaxMessageFlagIsParsed(t *testing.T) {
	for _, argv := range [][]string{
		{"--name", "fs", "--max-message", "1MiB", "--", "node", "x.js"},
		{"--name", "fs", "--max-message=1MiB", "--", "node", "x.js"},
	} {
		a, err := parseArgs(argv)
		if err != nil || a.maxMessage != "1MiB" || a.name != "fs" {
			t.Fatalf("%q: %+v, %v", argv, a, err)
		}
	}
	if _, err := parseArgs([]string{"--name", "fs", "--max-message"}); err == nil {
		t.Fatal("--max-message without a value was accepted")
	}
	var out, errb bytes.Buffer
	t.Setenv("AIRLOCK_MCP_MAX_MESSAGE", "tiny")
	if code := Main([]string{"--name", "fs", "--", "true"}, strings.NewReader(""), &out, &errb); code != exitConfig || !strings.Contains(errb.String(), "AIRLOCK_MCP_MAX_MESSAGE") {
		t.Fatalf("a bad AIRLOCK_MCP_MAX_MESSAGE: exit %d, %s", code, errb.String())
	}
}
