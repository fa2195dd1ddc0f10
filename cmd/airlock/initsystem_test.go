package main

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestInitSystemNeedsRoot: init --system and uninstall --system refuse a
// user who is not root, saying why and what to run, before they read or
// write anything (the wiring itself is setup's TestInitSystem, under a
// fake root: no test writes the real /etc).
func TestInitSystemNeedsRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("init --system is refused on Windows before the user is looked at")
	}
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 1000 }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"airlock", "init", "--system"}, "airlock init --system: run it as root (sudo airlock init --system)"},
		{[]string{"airlock", "uninstall", "--system", "-y"}, "airlock uninstall --system: run it as root (sudo airlock uninstall --system)"},
		{[]string{"airlock", "init", "--system", "--profile", "paranoid"}, "--profile and --mcp-config are for a user's init"},
	} {
		app := newApp()
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(tc.args)
		var ee *exitError
		if !errors.As(err, &ee) || !strings.Contains(ee.msg, tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v printed a report before refusing:\n%s", tc.args, out.String())
		}
	}
}
