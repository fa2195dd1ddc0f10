package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/policy"
)

// TestObservePromoteRoundTrip: twelve files in one directory fold into one
// "dir/**" glob, the promoted contract admits every observed call and
// refuses its neighbours.
func TestObservePromoteRoundTrip(t *testing.T) {
	w := newWorld(t)
	ah := filepath.Join(w.home, ".airlock")
	pkg := filepath.Join(w.ws, "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var observed []string
	for i := range 12 {
		observed = append(observed, fmt.Sprintf(`{"path":%q}`, filepath.ToSlash(filepath.Join(pkg, fmt.Sprintf("f%02d.go", i)))))
	}
	observed = append(observed,
		fmt.Sprintf(`{"path":%q}`, filepath.ToSlash(filepath.Join(pkg, "sub", "deep.go"))), // covered by pkg/**
		fmt.Sprintf(`{"path":%q}`, filepath.ToSlash(filepath.Join(w.home, "notes", "todo.md"))),
		`{"path":"src/a.go","url":"https://API.github.com./x"}`,
	)
	for i, in := range observed {
		if err := Observe(ah, "fs", "read_file", w.facts("fs", "read_file", in), t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Promote(ah, "fs", w.vars)
	if err != nil {
		t.Fatal(err)
	}
	wantFS := []string{"${home}/notes/**", "${workspace}/pkg/**", "${workspace}/src/**"}
	if strings.Join(c.FS, " ") != strings.Join(wantFS, " ") {
		t.Fatalf("fs %q, want %q", c.FS, wantFS)
	}
	if strings.Join(c.Tools, ",") != "read_file" || strings.Join(c.Net, ",") != "api.github.com" || c.Shell || !c.Enforced || c.Default != policy.Block {
		t.Fatalf("contract %+v", c)
	}
	set, err := Load(ah, w.vars)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range observed {
		if v, hit := set.Check("fs", "read_file", w.facts("fs", "read_file", in)); hit {
			t.Errorf("promoted contract refuses an observed call %s: %s", in, v.Decision.Explain())
		}
	}
	for _, in := range []string{
		`{"path":"` + filepath.ToSlash(w.ws) + `/other.go"}`,
		`{"path":"` + filepath.ToSlash(w.out) + `/secret.txt"}`,
		`{"path":"src/a.go","url":"https://evil.example/"}`,
		`{"path":"src/a.go","command":"ls"}`,
	} {
		if _, hit := set.Check("fs", "read_file", w.facts("fs", "read_file", in)); !hit {
			t.Errorf("promoted contract admits an unobserved call %s", in)
		}
	}
	if _, hit := set.Check("fs", "write_file", w.facts("fs", "write_file", observed[0])); !hit {
		t.Error("promoted contract admits an unobserved tool")
	}
}

func TestPromoteKeepsCommentsAndOtherServers(t *testing.T) {
	w := newWorld(t)
	ah := filepath.Join(w.home, ".airlock")
	if err := os.MkdirAll(ah, 0o700); err != nil {
		t.Fatal(err)
	}
	orig := `# team contracts: reviewed every sprint
servers:
  # the GitHub server may only talk to GitHub
  github:
    tools: [get_issue]
    net: [api.github.com] # nothing else
  fs: # the filesystem server
    # old hand-written entry, replaced by promote
    tools: [everything]
  after:
    tools: [x]
`
	file := filepath.Join(ah, FileName)
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	in := `{"path":"` + filepath.ToSlash(w.ws) + `/src/a.go"}`
	if err := Observe(ah, "fs", "read_file", w.facts("fs", "read_file", in), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := Promote(ah, "fs", w.vars); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, keep := range []string{"# team contracts: reviewed every sprint", "# the GitHub server may only talk to GitHub", "# nothing else", "fs: # the filesystem server", "get_issue", "after:", "promoted by airlock from 1 observed call,"} {
		if !strings.Contains(got, keep) {
			t.Errorf("edited file lost %q:\n%s", keep, got)
		}
	}
	if strings.Contains(got, "everything") {
		t.Errorf("the old fs entry survived:\n%s", got)
	}
	set, err := Load(ah, w.vars)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if strings.Join(set.Names(), ",") != "after,fs,github" {
		t.Fatalf("servers %v", set.Names())
	}
	gh, _ := set.Get("github")
	if strings.Join(gh.Net, ",") != "api.github.com" {
		t.Fatalf("github entry changed: %+v", gh)
	}
	if st, _ := os.Stat(file); os.PathSeparator == '/' && st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
}

func TestPromoteCreatesFileWithHeader(t *testing.T) {
	w := newWorld(t)
	ah := filepath.Join(w.home, ".airlock")
	if err := Observe(ah, "web", "fetch", w.facts("web", "fetch", `{"url":"http://2130706433/"}`), t0); err != nil {
		t.Fatal(err)
	}
	c, err := Promote(ah, "web", w.vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.FS) != 0 || strings.Join(c.Net, ",") != "127.0.0.1" {
		t.Fatalf("contract %+v", c)
	}
	data, _ := os.ReadFile(filepath.Join(ah, FileName))
	if !strings.HasPrefix(string(data), "# Airlock per-server contracts") {
		t.Fatalf("no header:\n%s", data)
	}
}

func TestPromoteRefuses(t *testing.T) {
	w := newWorld(t)
	ah := filepath.Join(w.home, ".airlock")
	if _, err := Promote(ah, "fs", w.vars); err == nil || !strings.Contains(err.Error(), "nothing observed") {
		t.Fatalf("promote with no footprint: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ah, footprintsName), []byte(`{"version":1,"servers":{"fs":{"tools":["read_file"],"paths":["/w/a"],"calls":1500,"paths_truncated":true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Promote(ah, "fs", w.vars); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("promote of a truncated footprint: %v", err)
	}
	if err := Observe(ah, "ok", "read_file", &policy.Facts{}, t0); err != nil {
		t.Fatal(err)
	}
	bad := "servers:\n  x:\n    tols: [a]\n"
	file := filepath.Join(ah, FileName)
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Promote(ah, "ok", w.vars); err == nil || !strings.Contains(err.Error(), `did you mean "tools"`) {
		t.Fatalf("promote into a broken file: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != bad {
		t.Fatal("a broken contracts file was rewritten")
	}
}

func TestFromFootprintNarrowest(t *testing.T) {
	vars := policy.Vars{Workspace: "/home/u/proj", Home: "/home/u"}
	fp := &footprint{
		Tools: []string{"b", "a"},
		Paths: []string{
			"/home/u/proj/", // the workspace itself, as a directory
			"/home/u/proj/x/y.go",
			"/home/u/projects/z.go", // a sibling that shares a prefix
			"/srv/we*rd{dir}/f",
			"/srv/${x}/f",
			"/etc/hosts",
		},
		Hosts: []string{"b.example", "a.example"},
		Calls: 3,
	}
	c := fromFootprint("fs", fp, vars)
	want := "${home}/projects/** ${workspace}/** /etc/** /srv/??x?/** /srv/we?rd?dir?/**"
	if got := strings.Join(c.FS, " "); got != want {
		t.Fatalf("fs\n got %s\nwant %s", got, want)
	}
	if strings.Join(c.Tools, ",") != "a,b" || strings.Join(c.Net, ",") != "a.example,b.example" {
		t.Fatalf("%+v", c)
	}
	// every pattern written must compile and cover what it came from
	set := mustParse(t, "servers:\n  fs:\n    tools: ['*']\n    fs: ['"+strings.Join(c.FS, "', '")+"']\n", vars)
	for _, p := range []string{"/srv/we*rd{dir}/f", "/srv/${x}/f", "/home/u/proj/x/y.go"} {
		if _, hit := set.Check("fs", "t", &policy.Facts{Paths: []policy.PathFact{{Raw: p, Path: p, Resolved: p}}}); hit {
			t.Errorf("promoted fs does not cover %s", p)
		}
	}
}
