package doctor

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/sandbox"
)

// TestDoctorNothingWired: a machine where no agent's tool call passes the
// gate is not enforcing, whatever else is clean, and the verdict says
// what to run; one wired agent (the hook, or one server behind
// airlock-mcp) is enough to lift it.
func TestDoctorNothingWired(t *testing.T) {
	cases := []struct {
		name    string
		files   func(e *docEnv) map[string]string
		unwired bool
	}{
		{"fresh home, no agent at all", func(e *docEnv) map[string]string { return nil }, true},
		{"Claude Code installed, not wired", func(e *docEnv) map[string]string {
			return map[string]string{filepath.Join(e.home, ".claude", "settings.json"): "{}\n"}
		}, true},
		{"only a remote server", func(e *docEnv) map[string]string {
			return map[string]string{filepath.Join(e.home, ".cursor", "mcp.json"): `{"mcpServers": {"docs": {"url": "https://docs.example.com/mcp"}}}`}
		}, true},
		{"the hook wired but silenced", func(e *docEnv) map[string]string {
			w := e.wired("", "")
			return map[string]string{e.settings(): strings.Replace(w, "{\n", "{\n  \"disableAllHooks\": true,\n", 1)}
		}, true},
		{"the hook wired", func(e *docEnv) map[string]string {
			return map[string]string{e.settings(): e.wired("", "")}
		}, false},
		{"one server behind airlock-mcp, no Claude Code", func(e *docEnv) map[string]string {
			return map[string]string{filepath.Join(e.home, ".cursor", "mcp.json"): `{"mcpServers": {"gh": {"command": ` + jq(e.mcpPath()) +
				`, "args": ["--name", "gh", "--", "npx", "-y", "gh-mcp"]}}}`}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newDocEnv(t)
			for p, data := range c.files(e) {
				writeFile(t, p, data, 0o600)
			}
			r := e.run(t)
			var out bytes.Buffer
			if err := r.WriteText(&out, false); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if r.NothingWired != c.unwired {
				t.Fatalf("NothingWired %v, want %v:\n%s", r.NothingWired, c.unwired, text)
			}
			if !c.unwired {
				if strings.Contains(text, "nothing is wired") {
					t.Errorf("wired, yet the report says nothing is:\n%s", text)
				}
				return
			}
			if r.Enforcing() {
				t.Errorf("nothing wired, yet enforcing")
			}
			if a := check(t, r, "agents"); a.Status != fail || !strings.Contains(a.Fix, "airlock init") {
				t.Errorf("agents check %+v; want a FAIL naming airlock init", a)
			}
			first, _, _ := strings.Cut(text, "\n")
			if !strings.HasPrefix(first, "NOT enforcing: nothing is wired") || !strings.Contains(first, "airlock init") {
				t.Errorf("first line %q; want the verdict that nothing is wired, naming airlock init", first)
			}
			if strings.Contains(text, "everything checked is in force") {
				t.Errorf("nothing wired, yet:\n%s", text)
			}
		})
	}
}

// TestDoctorTextVerdictFirstOneScreen: the verdict is the first line; by
// default the kernel sandbox is one line naming its gap count and
// --verbose, a long list is cut short; verbose prints every item.
func TestDoctorTextVerdictFirstOneScreen(t *testing.T) {
	kernel := kernelCheck("linux", sandbox.Report{KernelABI: 7, ABI: 7, Rights: []string{"execute", "read_file"},
		Network: "TCP connect and bind refused", Seccomp: true, Scoped: true,
		Gaps: []string{"UDP is not restricted", "mmap(PROT_EXEC) is not mediated", "inherited descriptors keep their access"}})
	var long []string
	for i := range 12 {
		long = append(long, fmt.Sprintf("remote server %q: a stdio proxy cannot gate it", fmt.Sprint("s", i)))
	}
	base := []Check{
		{Name: "policy", Status: OK, Detail: "guard mode", Items: []string{"loaded from the bundled profile default"}},
		{Name: "Claude Code hook", Status: OK, Detail: "wired"},
		{Name: "coverage gaps", Status: warn, Detail: "12 thing(s) Airlock cannot enforce", Items: long},
		{Name: "ask channel", Status: info, Detail: "asks reach nobody now", Brief: "asks reach nobody now",
			Items: []string{"socket: not ready", "tty: not ready", "desktop: not ready", "fallback: ready"}},
		kernel,
	}
	failing := append([]Check{{Name: "environment", Status: fail, Detail: "AIRLOCK_FAIL_OPEN=1", Fix: "unset it"}}, base...)
	cases := []struct {
		name    string
		checks  []Check
		verdict string
	}{
		{"enforcing with warnings", base, "enforcing: everything checked is in force; 1 warning(s) below are limits"},
		{"a failure", failing, "NOT enforcing: 1 check(s) FAIL below"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &report{Checks: c.checks}
			var short, full bytes.Buffer
			if err := r.WriteText(&short, false); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteText(&full, true); err != nil {
				t.Fatal(err)
			}
			for _, out := range []string{short.String(), full.String()} {
				if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, c.verdict) {
					t.Errorf("first line %q, want the verdict %q", first, c.verdict)
				}
			}
			s := short.String()
			if n := strings.Count(s, "\n"); n > 25 {
				t.Errorf("default report is %d lines, more than a screen:\n%s", n, s)
			}
			if !strings.Contains(s, "kernel sandbox    airlock run: sandboxed (Landlock ABI 7, seccomp, egress proxy) — 4 not enforced: airlock doctor --verbose\n") {
				t.Errorf("kernel sandbox not one line with its gap count:\n%s", s)
			}
			for _, hidden := range []string{"not enforced: UDP", "socket: not ready", `"s11"`} {
				if strings.Contains(s, hidden) {
					t.Errorf("default report shows %q:\n%s", hidden, s)
				}
			}
			if !strings.Contains(s, "and 7 more: airlock doctor --verbose") {
				t.Errorf("a long list is not cut short naming --verbose:\n%s", s)
			}
			f := full.String()
			for _, it := range append(append(append([]string{}, kernel.Items...), long...), "socket: not ready") {
				if !strings.Contains(f, it) {
					t.Errorf("--verbose lacks %q", it)
				}
			}
			if strings.Contains(f, "airlock doctor --verbose") {
				t.Errorf("--verbose still points to --verbose:\n%s", f)
			}
		})
	}
}

// TestDoctorTextEscapesNames: a detail or item naming a path a repository
// chose reaches the terminal escaped; a Windows path keeps its
// backslashes as they are.
func TestDoctorTextEscapesNames(t *testing.T) {
	r := &report{Checks: []Check{
		{Name: "policy", Status: fail, Detail: "/w/ev\x1b[2Jil/.airlock.yaml: bad", Items: []string{"overlay \u202egnp.exe"}, Fix: "fix \x07 it"},
		{Name: "audit log", Status: OK, Detail: `C:\Users\dev\.airlock\audit.jsonl`},
	}}
	for _, verbose := range []bool{false, true} {
		var out bytes.Buffer
		if err := r.WriteText(&out, verbose); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("raw control characters reach the terminal: %q", s)
		}
		for _, want := range []string{`ev\x1b[2Jil`, `\u202egnp.exe`, `fix \x07 it`, `C:\Users\dev\.airlock\audit.jsonl`} {
			if !strings.Contains(s, want) {
				t.Errorf("output lacks %q:\n%s", want, s)
			}
		}
	}
}
