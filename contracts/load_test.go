package contracts

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/yamldoc"
	"github.com/agentairlock/airlock/policy"
)

var testVars = policy.Vars{Workspace: "/w", Home: "/h", Tmp: "/t", User: "u", AirlockHome: "/h/.airlock"}

// TestLoadErrorsNameFileLineAndFix loads every file in testdata/load_errors:
// each starts with "# want: REGEXP" that the error must match.
func TestLoadErrorsNameFileLineAndFix(t *testing.T) {
	files, err := filepath.Glob("testdata/load_errors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no load error corpus: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("%s: first line must be # want: REGEXP", file)
			}
			_, err = parse(data, "contracts.yaml", testVars)
			if err == nil {
				t.Fatalf("%s loaded; want an error matching %s", file, want)
			}
			if !regexp.MustCompile(want).MatchString(err.Error()) {
				t.Fatalf("%s:\n got: %v\nwant: %s", file, err, want)
			}
			var le *yamldoc.LoadError
			if !errors.As(err, &le) || le.File != "contracts.yaml" {
				t.Fatalf("%s: error is not a *yamldoc.LoadError naming the file: %#v", file, err)
			}
		})
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	_, err := parse([]byte("servers:\n  a:\n    tols: [x]\n  b:\n    default: maybe\n"), "contracts.yaml", testVars)
	var le *yamldoc.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 2 || le.Problems[0].Line != 3 || le.Problems[1].Line != 5 {
		t.Fatalf("want problems at lines 3 and 5, got %v", err)
	}
}

func TestLoadMissingFileIsNoContracts(t *testing.T) {
	home := t.TempDir()
	s, err := Load(home, testVars)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Names()) != 0 || s.Path() != filepath.Join(home, FileName) {
		t.Fatalf("names %v path %q", s.Names(), s.Path())
	}
}

func TestLoadDefaultsAndForms(t *testing.T) {
	s, err := parse([]byte(`# a comment only above
servers:
  fs:
    tools: read_file          # one string is a list of one
    fs: "${workspace}/**"
  web:
    enforced: false
    net: ["API.GitHub.com.", "*.npmjs.org", "10.0.0.0/8"]
    default: ask
  empty:
`), "contracts.yaml", testVars)
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := s.Get("fs")
	if !fs.Enforced || fs.Default != policy.Block || fs.Shell || len(fs.Tools) != 1 || fs.FS[0] != "${workspace}/**" || fs.Line != 3 {
		t.Fatalf("fs: %+v", fs)
	}
	web, _ := s.Get("web")
	if web.Enforced || web.Default != policy.Ask || len(web.Net) != 3 {
		t.Fatalf("web: %+v", web)
	}
	if got := strings.Join(s.Names(), ","); got != "empty,fs,web" {
		t.Fatalf("names %s", got)
	}
	for _, src := range []string{"", "# nothing\n", "servers:\n", "~\n"} {
		if s, err := parse([]byte(src), "c.yaml", testVars); err != nil || len(s.Names()) != 0 {
			t.Errorf("%q: %v %v", src, s, err)
		}
	}
}

func TestLoadDropsPatternsOfEmptyVariables(t *testing.T) {
	vars := testVars
	vars.Workspace = ""
	s, err := parse([]byte("servers:\n  fs:\n    tools: [r]\n    fs: ['${workspace}/**']\n"), "c.yaml", vars)
	if err != nil {
		t.Fatal(err)
	}
	if _, hit := s.Check("fs", "r", &policy.Facts{Paths: []policy.PathFact{{Raw: "/x", Path: "/x", Resolved: "/x"}}}); !hit {
		t.Fatal("${workspace} with no workspace matched a path")
	}
}

// FuzzLoad: the loader never panics on any bytes, and whatever loads has
// block or ask defaults and can check a call without panicking. Seeds are
// every YAML file in testdata.
func FuzzLoad(f *testing.F) {
	for _, pat := range []string{"testdata/*.yaml", "testdata/load_errors/*.yaml"} {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("servers: {a: {tools: ['*'], fs: ['/**'], net: ['*'], shell: true}}"))
	f.Add([]byte("servers:\n  a: &x {tools: [r]}\n  b: *x\n"))
	facts := policy.Classify("mcp__a__r", []byte(`{"path":"/w/%2e%2e/x","url":"http://0x7f000001/","command":"ls ~"}`), policy.CallEnv{Cwd: "/w", Home: "/h", NoResolve: true})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse(data, "fuzz.yaml", testVars)
		if err != nil {
			var le *yamldoc.LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		for _, name := range s.Names() {
			c, ok := s.Get(name)
			if !ok || (c.Default != policy.Block && c.Default != policy.Ask) {
				t.Fatalf("%q loaded with default %v", name, c.Default)
			}
			if v, hit := s.Check(name, "r", facts); hit && v.Decision.Action == policy.Allow {
				t.Fatalf("a contract decided allow: %+v", v)
			}
		}
	})
}
