package demo

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for `airlock __demo-server`: the
// demo starts it behind the proxy as its MCP server.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "__demo") {
		// never fall through to m.Run: a child that runs the tests
		// would start children of its own
		if os.Args[1] != "__demo-server" {
			os.Exit(2)
		}
		fset := flag.NewFlagSet(os.Args[1], flag.ContinueOnError)
		server := fset.String("server", "", "")
		state := fset.String("state", "", "")
		if err := fset.Parse(os.Args[2:]); err != nil {
			os.Exit(2)
		}
		if err := Serve(*server, *state, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func selfServer(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "__demo-server"}
}

// userEnv stands in for the user's machine: a HOME and AIRLOCK_HOME of
// their own, and AIRLOCK_* settings that would change the outcome or
// reach their files if the demo let them through.
func userEnv(t *testing.T) (home string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AIRLOCK_HOME", filepath.Join(home, ".airlock"))
	t.Setenv("AIRLOCK_POLICY", filepath.Join(home, "no-such-policy.yaml"))
	t.Setenv("AIRLOCK_FAIL_OPEN", "1")
	t.Setenv("AIRLOCK_ANCHOR_DIR", filepath.Join(home, "anchors"))
	return home
}

func TestDemoStopsEveryStepOfTheAttack(t *testing.T) {
	home := userEnv(t)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var streamed []string
	res, err := Run(Options{Server: selfServer(t), OnStep: func(s Step) { streamed = append(streamed, s.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id    string
		got   outcome
		rules []string // any of these decided it
		says  string   // the reason contains this
	}{
		{StepKeyRead, Blocked, []string{"secrets.ssh"}, "~/.ssh/id_rsa"},
		{StepExfil, Blocked, []string{"secrets.ssh", "net.exfil-collector"}, ""},
		{StepPoisoned, Held, []string{"pins:held"}, "poisoned at first sight"},
		{StepBenignRead, Allowed, nil, ""},
		{StepBenignMCP, Allowed, nil, "pinned at first sight"},
		{StepRugPull, Held, []string{"pins:held"}, "changed search_notes (description)"},
		{StepVerify, Intact, nil, "records"},
	}
	if len(res.Steps) != len(want) {
		t.Fatalf("%d steps, want %d: %+v", len(res.Steps), len(want), res.Steps)
	}
	for i, w := range want {
		s := res.Steps[i]
		if s.ID != w.id || s.Got != w.got || !s.OK() {
			t.Errorf("step %d: %s came out %s, want %s to come out %s: %s", i, s.ID, s.Got, w.id, w.got, s.Detail)
			continue
		}
		if w.rules != nil && !contains(w.rules, s.Rule) {
			t.Errorf("%s: decided by %q, want one of %v", s.ID, s.Rule, w.rules)
		}
		if !strings.Contains(s.Reason, w.says) {
			t.Errorf("%s: reason %q does not say %q", s.ID, s.Reason, w.says)
		}
		if strings.Contains(s.Reason, res.Dir) {
			t.Errorf("%s: reason shows the temp directory: %q", s.ID, s.Reason)
		}
	}
	if !res.OK() {
		t.Errorf("Result.OK() = false; failed: %+v", res.Failed())
	}
	if last := res.Steps[len(res.Steps)-1]; last.Records < 6 {
		t.Errorf("verify saw %d records; every decision above should be one", last.Records)
	}
	if strings.Join(streamed, ",") != strings.Join(ids(res.Steps), ",") {
		t.Errorf("OnStep saw %v, the result has %v", streamed, ids(res.Steps))
	}

	// nothing of the user's touched, everything put back
	if _, err := os.Stat(res.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the temp directory %s is still there (err %v)", res.Dir, err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("the user's HOME was written: %v", entries)
	}
	if got := os.Getenv("HOME"); got != home {
		t.Errorf("HOME is %q after the demo, want %q", got, home)
	}
	if got := os.Getenv("AIRLOCK_FAIL_OPEN"); got != "1" {
		t.Errorf("AIRLOCK_FAIL_OPEN is %q after the demo, want it restored", got)
	}
	if now, _ := os.Getwd(); now != cwd {
		t.Errorf("working directory %s after the demo, want %s", now, cwd)
	}
	if res.Elapsed > 3*time.Second {
		t.Logf("the demo took %s; its budget is 3s", res.Elapsed)
	}
}

func TestDemoKeepLeavesTheWorldToLookAt(t *testing.T) {
	userEnv(t)
	res, err := Run(Options{Server: selfServer(t), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(res.Dir) })
	for _, p := range []string{
		"home/.ssh/id_rsa",
		"home/.airlock/audit.jsonl",
		"home/.airlock/pins.json",
		"work/.claude/skills/pdf-helper/SKILL.md",
	} {
		if _, err := os.Stat(filepath.Join(res.Dir, p)); err != nil {
			t.Errorf("--keep: %v", err)
		}
	}
	key, err := os.ReadFile(filepath.Join(res.Dir, "home/.ssh/id_rsa"))
	if err != nil || !strings.Contains(string(key), "not a real key") {
		t.Errorf("the fake key does not say it is fake: %q, %v", key, err)
	}
}

// A step that does not come out as it must is reported as such, with
// what happened instead: here no MCP server answers at all.
func TestDemoReportsAStepThatDoesNotComeOut(t *testing.T) {
	userEnv(t)
	silent, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to stand in for a server that never answers")
	}
	res, err := Run(Options{Server: []string{silent}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() {
		t.Fatal("Result.OK() with a server that never answered")
	}
	failed := ids(res.Failed())
	if strings.Join(failed, ",") != strings.Join([]string{StepPoisoned, StepBenignMCP, StepRugPull}, ",") {
		t.Errorf("failed steps %v, want the three MCP steps", failed)
	}
	for _, s := range res.Failed() {
		if s.Got != Failed || s.Detail == "" {
			t.Errorf("%s: got %s with detail %q, want failed with a detail", s.ID, s.Got, s.Detail)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func ids(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return out
}
