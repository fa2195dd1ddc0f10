package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/mcpproxy"
	"github.com/agentairlock/airlock/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	sandbox.MaybeChild() // `airlock run` re-executes this binary as its launcher child
	// the scripts' managed directory: test binaries only (the shipped
	// binaries have no way to move it)
	if d := os.Getenv("AIRLOCK_TEST_MANAGED_DIR"); d != "" {
		home.SetManagedDirForTest(d)
	}
	testscript.Main(m, map[string]func(){
		"airlock":     func() { os.Exit(run(os.Args)) },
		"airlock-mcp": func() { os.Exit(mcpproxy.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"airlock-hook": func() {
			post := len(os.Args) > 1 && os.Args[1] == "--post"
			os.Exit(hook.Run(hook.Options{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				Post: post, Getenv: os.Getenv, EnvFunc: home.FromOS}))
		},
	})
}

// TestScripts runs the CLI scenarios in testdata/script: each sets up
// files, runs airlock, and asserts output and exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			home := e.WorkDir + "/home"
			e.Setenv("HOME", home)
			e.Setenv("USER", "dev")
			e.Setenv("AIRLOCK_HOME", home+"/.airlock")
			e.Setenv("AIRLOCK_TEST_MANAGED_DIR", e.WorkDir+"/managed") // absent unless a script makes it
			return os.MkdirAll(home+"/proj/.git", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"tamper": tamper,
			"status": status,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Getuid() == 0, nil
			}
			if cond != "kernel-sandbox" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			// A kernel without Landlock network rules fails the sandbox
			// scripts, unless AIRLOCK_KERNEL_TESTS=optional lets them skip.
			return sandbox.Probe().ABI >= 4 || os.Getenv("AIRLOCK_KERNEL_TESTS") != "optional", nil
		},
	})
}

// tamper edits an audit log line by line: tamper OP FILE LINE [LINE2]
//
//	edit N     change the reason of record N
//	delete N   remove record N
//	insert N   insert a copy of record N after it
//	swap N M   exchange records N and M
//	truncate N keep only the first N records
func tamper(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! tamper")
	}
	if len(args) < 3 {
		ts.Fatalf("usage: tamper edit|delete|insert|swap|truncate FILE N [M]")
	}
	file := ts.MkAbs(args[1])
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	f, err := os.Open(file)
	ts.Check(err)
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	f.Close()
	ts.Check(sc.Err())
	if n < 1 || n > len(lines) {
		ts.Fatalf("line %d out of range (1..%d)", n, len(lines))
	}
	i := n - 1
	switch args[0] {
	case "edit":
		if !strings.Contains(lines[i], `"reason":"`) {
			ts.Fatalf("line %d has no reason to edit", n)
		}
		lines[i] = strings.Replace(lines[i], `"reason":"`, `"reason":"EDITED `, 1)
	case "delete":
		lines = append(lines[:i], lines[i+1:]...)
	case "insert":
		lines = append(lines[:i+1], append([]string{lines[i]}, lines[i+1:]...)...)
	case "swap":
		if len(args) < 4 {
			ts.Fatalf("swap needs two lines")
		}
		m, err := strconv.Atoi(args[3])
		ts.Check(err)
		lines[i], lines[m-1] = lines[m-1], lines[i]
	case "truncate":
		lines = lines[:n]
	default:
		ts.Fatalf("unknown tamper op %q", args[0])
	}
	out := strings.Join(lines, "\n") + "\n"
	ts.Check(os.WriteFile(file, []byte(out), 0o600))
	fmt.Fprintf(ts.Stdout(), "tampered: %s line %d\n", args[0], n)
}

// status runs a program and asserts its exact exit code:
// status CODE PROG [ARGS…]. Its output is kept for stdout/stderr checks.
func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
