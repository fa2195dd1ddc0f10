package contracts

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/policy"
)

// world is a real directory tree for a test: a workspace with a file and
// a symlink pointing out of it, a directory outside, a home and a tmp.
type world struct {
	root, ws, out, home, tmp string
	vars                     policy.Vars
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is /private/var
	if err != nil {
		t.Fatal(err)
	}
	w := &world{root: root, ws: filepath.Join(root, "ws"), out: filepath.Join(root, "out"),
		home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{w.ws + "/.git", w.ws + "/src", w.out, w.home, w.tmp + "/build"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{w.ws + "/src/a.go", w.out + "/secret.txt"} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(w.out, filepath.Join(w.ws, "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	w.vars = policy.Vars{Workspace: w.ws, Home: w.home, Tmp: w.tmp, User: "dev", AirlockHome: filepath.Join(w.home, ".airlock")}
	return w
}

// facts classifies a call of server's tool the way the gate does.
func (w *world) facts(server, tool, input string) *policy.Facts {
	return policy.Classify("mcp__"+NormName(server)+"__"+tool, []byte(input), policy.CallEnv{Cwd: w.ws, Home: w.home, User: "dev"})
}

func (w *world) expand(s string) string {
	return strings.NewReplacer("WS", filepath.ToSlash(w.ws), "OUT", filepath.ToSlash(w.out), "TMP", filepath.ToSlash(w.tmp)).Replace(s)
}

type checkCase struct {
	line                      int
	name, server, tool, input string
	want                      string // allow | none | block | ask | report
	reason                    string // substring of the reason
}

func readCheckCorpus(t *testing.T) []checkCase {
	t.Helper()
	f, err := os.Open("testdata/check.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []checkCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 5 {
			t.Fatalf("check.txt:%d: want 5 fields separated by |, got %d", n, len(parts))
		}
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		c := checkCase{line: n, name: parts[0], server: parts[1], tool: parts[2], input: parts[3]}
		c.want, c.reason, _ = strings.Cut(parts[4], ":")
		c.reason = strings.TrimSpace(c.reason)
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckCorpus runs every case of testdata/check.txt against
// testdata/contracts.yaml with facts from policy.Classify on real
// arguments and a real directory tree (the symlink cases need one).
func TestCheckCorpus(t *testing.T) {
	w := newWorld(t)
	data, err := os.ReadFile("testdata/contracts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, err := parse(data, "testdata/contracts.yaml", w.vars)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readCheckCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			input := w.expand(c.input)
			v, hit := set.Check(c.server, c.tool, w.facts(c.server, c.tool, input))
			where := "check.txt:" + strconv.Itoa(c.line)
			switch c.want {
			case "allow", "none":
				if hit {
					t.Fatalf("%s: %s %s %s: want no contract decision, got %s", where, c.server, c.tool, input, v.Decision.Explain())
				}
				if c.want == "none" {
					if _, ok := set.Get(c.server); ok {
						t.Fatalf("%s: server %q has a contract", where, c.server)
					}
				}
				return
			}
			if !hit {
				t.Fatalf("%s: %s %s %s: want %s (%q), the contract let it through", where, c.server, c.tool, input, c.want, c.reason)
			}
			d := v.Decision
			wantAction, wantEnforced := policy.Block, true
			switch c.want {
			case "ask":
				wantAction = policy.Ask
			case "report":
				wantEnforced = false
			case "block":
			default:
				t.Fatalf("%s: unknown want %q", where, c.want)
			}
			if d.Action != wantAction || v.Enforced != wantEnforced {
				t.Errorf("%s: got %s enforced=%v, want %s enforced=%v (%s)", where, d.Action, v.Enforced, wantAction, wantEnforced, d.Explain())
			}
			if d.Source != policy.FromContract || d.Rule != "contract:"+NormName(c.server) {
				t.Errorf("%s: source %q rule %q, want contract / contract:%s", where, d.Source, d.Rule, NormName(c.server))
			}
			if reason := w.expand(c.reason); !strings.Contains(d.Reason, reason) {
				t.Errorf("%s: reason %q does not contain %q", where, d.Reason, reason)
			}
			if !strings.Contains(d.Reason, `contract for "`+NormName(c.server)+`"`) {
				t.Errorf("%s: reason %q does not name the server", where, d.Reason)
			}
		})
	}
}

func TestCheckSymlinkOutOfWorkspaceNamesTarget(t *testing.T) {
	w := newWorld(t)
	set := mustParse(t, "servers:\n  fs:\n    tools: [read_file]\n    fs: ['${workspace}/**']\n", w.vars)
	v, hit := set.Check("fs", "read_file", w.facts("fs", "read_file", `{"path":"`+filepath.ToSlash(w.ws)+`/link/secret.txt"}`))
	if !hit {
		t.Fatal("a symlink out of the workspace was let through")
	}
	want := filepath.ToSlash(filepath.Join(w.out, "secret.txt"))
	if v.Decision.Target != want || v.Decision.Arg != "path" {
		t.Fatalf("target %q arg %q, want %q in path", v.Decision.Target, v.Decision.Arg, want)
	}
}

func TestCheckRefusesUnreadArguments(t *testing.T) {
	w := newWorld(t)
	set := mustParse(t, "servers:\n  fs:\n    tools: [read_file]\n    fs: ['/**']\n", w.vars)
	f := w.facts("fs", "read_file", `{"path":"/x"}`)
	f.TooLarge = "more than 4096 argument values"
	if _, hit := set.Check("fs", "read_file", f); !hit {
		t.Fatal("a call the classifier did not read whole passed the contract")
	}
}

func TestCheckNilSetAndNilFacts(t *testing.T) {
	var s *Set
	if _, hit := s.Check("fs", "read_file", &policy.Facts{}); hit {
		t.Fatal("a nil set decided")
	}
	if _, ok := s.Get("fs"); ok {
		t.Fatal("a nil set has a contract")
	}
	w := newWorld(t)
	set := mustParse(t, "servers:\n  fs: {tools: [read_file]}\n", w.vars)
	if _, hit := set.Check("fs", "read_file", nil); hit {
		t.Fatal("nil facts decided")
	}
}

func TestGateViewSpreadsVerdict(t *testing.T) {
	w := newWorld(t)
	set := mustParse(t, "servers:\n  fs: {enforced: false, tools: [read_file]}\n", w.vars)
	d, enforced, hit := GateView{Set: set}.Check("fs", "write_file", w.facts("fs", "write_file", `{}`))
	if !hit || enforced || d.Source != policy.FromContract {
		t.Fatalf("got %+v enforced=%v hit=%v", d, enforced, hit)
	}
}

func TestBaseOfReadsBackTheBase(t *testing.T) {
	for _, c := range []struct{ raw, path, base string }{
		{"a/b", "/w/a/b", "/w"},
		{"./a/./b/", "/w/a/b", "/w"},
		{".", "/w", "/w"},
		{"/etc/x", "/etc/x", "/"},
		{"a", "/a", "/"},
		{`sub\f`, "C:/w/sub/f", "C:/w"},
	} {
		got, ok := baseOf(policy.PathFact{Raw: c.raw, Path: c.path}, "/h")
		if !ok || got != c.base {
			t.Errorf("baseOf(%q, %q) = %q, %v; want %q", c.raw, c.path, got, ok, c.base)
		}
	}
	if b, ok := baseOf(policy.PathFact{Raw: "../x", Path: "/w/x"}, "/h"); ok {
		t.Errorf("a climbing relative path got base %q", b)
	}
}

func mustParse(t *testing.T, src string, vars policy.Vars) *Set {
	t.Helper()
	s, err := parse([]byte(src), "contracts.yaml", vars)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
