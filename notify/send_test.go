package notify

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestOsascriptArgsKeepAppleScriptInjectionLiteral(t *testing.T) {
	hostile := `x" & do shell script "touch /tmp/pwned" & "`
	got := osascriptArgs("Airlock blocked "+hostile, hostile)
	want := append(append([]string(nil), osascriptScript...), "Airlock blocked "+hostile, hostile)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("argv\n got %q\nwant %q", got, want)
	}
	// The script is constant: agent text only ever arrives as run-handler
	// arguments, which AppleScript never compiles.
	for i := 0; i < len(osascriptScript); i += 2 {
		if got[i] != "-e" || strings.Contains(got[i+1], "shell") {
			t.Fatalf("script part %d is not a constant -e statement: %q", i, got[i:i+2])
		}
	}
	if !strings.HasPrefix(got[len(osascriptScript)], "Airlock") {
		t.Fatal("first argument could be read as an osascript flag")
	}
	// Calls do not share a backing array.
	a := osascriptArgs("Airlock a", "a")
	_ = osascriptArgs("Airlock b", "b")
	if a[len(a)-1] != "a" {
		t.Fatal("osascriptArgs reused the previous call's argv")
	}
}

func TestNotifySendArgsEndOptionsAndEscapeMarkup(t *testing.T) {
	got := notifySendArgs("Airlock blocked Read", `--icon=/x <a href="http://e">click</a> & <b>`)
	want := []string{"--", "Airlock blocked Read", `--icon=/x &lt;a href="http://e"&gt;click&lt;/a&gt; &amp; &lt;b&gt;`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("argv\n got %q\nwant %q", got, want)
	}
}

func TestDefaultSenderChoosesNothingWithoutAProgram(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		goos     string
		lookPath func(string) (string, error)
		want     bool
	}{
		{"linux", found, true},
		{"freebsd", found, true},
		{"darwin", found, true},
		{"linux", missing, false},
		{"darwin", missing, false},
		{"windows", found, false},
		{"plan9", found, false},
	} {
		n := New(Options{AirlockHome: "x", GOOS: tc.goos, LookPath: tc.lookPath, Getenv: envOf(nil)})
		if got := n.defaultSender() != nil; got != tc.want {
			t.Errorf("GOOS=%s: sender chosen %v, want %v", tc.goos, got, tc.want)
		}
	}
}

// The real start path: a stand-in notify-send records its argv; Wait
// returns once it has been reaped.
func TestDefaultSenderStartsProgramWithArgvOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stand-in program is a shell script")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "argv")
	prog := filepath.Join(dir, "notify-send")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + out + "'\n"
	if err := os.WriteFile(prog, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	n := New(Options{
		AirlockHome: t.TempDir(),
		Getenv:      envOf(nil),
		Now:         newClock().now,
		GOOS:        "linux",
		LookPath:    func(string) (string, error) { return prog, nil },
	})
	n.Blocked(Block{Tool: "Bash", Target: "$(id) `id` ; id", Rule: "r", Reason: "x", Fix: "airlock allow last"})
	n.Wait()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("notify-send was not run: %v", err)
	}
	want := "--\nAirlock blocked Bash\n\"$(id) `id` ; id\" — r: x. Fix: airlock allow last\n"
	if string(data) != want {
		t.Fatalf("argv\n got %q\nwant %q", data, want)
	}
}
