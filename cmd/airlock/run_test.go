package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestNotStartedIsEscaped: a command named with control characters (an
// escape sequence, a bell, a line break) is named in airlock run's error
// escaped: it once reached the terminal raw.
func TestNotStartedIsEscaped(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"\x1b[31mred\a", &exec.Error{Name: "\x1b[31mred\a", Err: exec.ErrNotFound},
			`airlock run: \x1b[31mred\x07: command not found on PATH`},
		{"./\x1b]0;title\a", &exec.Error{Name: "./\x1b]0;title\a", Err: exec.ErrNotFound},
			`airlock run: ./\x1b]0;title\x07: no such file`},
		{"a\nairlock run: sandboxed", fmt.Errorf("fork/exec %s: exec format error", "a\nairlock run: sandboxed"),
			`airlock run: a\nairlock run: sandboxed did not start: fork/exec a\nairlock run: sandboxed: exec format error`},
	} {
		got := notStarted(tc.name, tc.err)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("notStarted(%q):\n got %q\nwant %q…", tc.name, got, tc.want)
		}
		if strings.ContainsAny(got, "\x1b\a\n") {
			t.Errorf("notStarted(%q) = %q: a control character reaches the terminal", tc.name, got)
		}
	}
}
