package depcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	architectureDoc = "docs/architecture.md"
	roomsHeading    = "## Rooms and arrows"
)

// TestImportArrows: the arrows docs/architecture.md names are the only ones
// between the project's packages, on every platform Airlock builds for, and
// no package links what its row says it must never import.
func TestImportArrows(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := ParseRooms(doc, roomsHeading)
	if err != nil {
		t.Fatalf("%s, %q: %v", architectureDoc, roomsHeading, err)
	}
	var graphs []*graph
	for _, goos := range []string{"linux", "darwin", "windows"} {
		g, err := List(root, goos)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	for _, p := range Check(architectureDoc, rooms, graphs) {
		t.Error(p)
	}
}

// A small module: a → b → c, a → x (third-party), c → os; t only for tests.
func fakeGraph() *graph {
	const m = "example.com/m"
	pkgs := []*Package{
		{ImportPath: m + "/a", Imports: []string{m + "/b", "x.org/x", "fmt"}, Deps: []string{m + "/b", m + "/c", "x.org/x", "x.org/x/inner", "fmt", "os"}},
		{ImportPath: m + "/b", Imports: []string{m + "/c"}, Deps: []string{m + "/c", "os"}},
		{ImportPath: m + "/c", Imports: []string{"os"}, Deps: []string{"os"}},
		{ImportPath: m + "/t"},
		{ImportPath: "x.org/x", Imports: []string{"x.org/x/inner"}, Deps: []string{"x.org/x/inner"}},
		{ImportPath: "x.org/x/inner"},
		{ImportPath: "fmt", Standard: true, Imports: []string{"os"}, Deps: []string{"os"}},
		{ImportPath: "os", Standard: true},
	}
	g := &graph{GOOS: "linux", Module: m, Pkgs: map[string]*Package{}}
	for _, p := range pkgs {
		if strings.HasPrefix(p.ImportPath, m) {
			p.Module = &struct{ Main bool }{Main: true}
			g.Project = append(g.Project, g.rel(p.ImportPath))
		}
		g.Pkgs[p.ImportPath] = p
	}
	slices.Sort(g.Project)
	return g
}

func TestCheckArrows(t *testing.T) {
	agree := []room{
		{Pkg: "a", Imports: []string{"b"}, Never: []string{"t", "os"}},
		{Pkg: "b", Imports: []string{"c"}, Never: []string{"a"}},
		{Pkg: "c", Never: []string{"..."}},
		{Pkg: "t", TestsOnly: true, Never: []string{"..."}},
	}
	with := func(change func([]room) []room) []room {
		rs := slices.Clone(agree)
		for i := range rs {
			rs[i].Imports = slices.Clone(rs[i].Imports)
			rs[i].Never = slices.Clone(rs[i].Never)
		}
		return change(rs)
	}
	cases := []struct {
		name  string
		rooms []room
		want  []string // each a part of one problem, in order
	}{
		{"the table and the code agree", agree, nil},
		{"an import the table does not name",
			with(func(rs []room) []room { rs[0].Imports = nil; return rs }),
			[]string{"a imports b, which doc.md does not allow: add the arrow there with a reason or remove the import"}},
		{"an arrow the code does not have",
			with(func(rs []room) []room { rs[1].Imports = append(rs[1].Imports, "a"); rs[1].Never = nil; return rs }),
			[]string{"doc.md line 0 lets b import a, but no build of b does: remove the arrow"}},
		{"a package with no row",
			with(func(rs []room) []room { return rs[1:] }),
			[]string{"a has no row in doc.md's rooms table"}},
		{"a row with no package",
			with(func(rs []room) []room { return append(rs, room{Pkg: "gone", Line: 9}) }),
			[]string{"doc.md line 9 has a row for gone, which is no package: remove it"}},
		{"a project package linked through another",
			with(func(rs []room) []room { rs[0].Never = []string{"c"}; return rs }),
			[]string{"a links c (a → b → c; GOOS=linux), which doc.md says it must never import (c)"}},
		{"every project package",
			with(func(rs []room) []room { rs[1].Never = []string{"..."}; return rs }),
			[]string{"b links c (b → c; GOOS=linux)"}},
		{"every project package outside a tree",
			with(func(rs []room) []room { rs[0].Never = []string{"!b/..."}; return rs }),
			[]string{"a links c (a → b → c; GOOS=linux), which doc.md says it must never import (!b/...)"}},
		{"a third-party tree, linked through its own package",
			with(func(rs []room) []room { rs[0].Never = []string{"x.org/x/inner"}; return rs }),
			[]string{"a links x.org/x/inner (a → x.org/x → x.org/x/inner; GOOS=linux)"}},
		{"the standard library: the package's own imports",
			with(func(rs []room) []room { rs[2].Never = []string{"os"}; return rs }),
			[]string{"c links os (c → os; GOOS=linux)"}},
		{"a tests-only package imported by code",
			with(func(rs []room) []room { rs[1].Imports = append(rs[1].Imports, "t"); rs[1].Line = 4; return rs }),
			[]string{"doc.md line 4 lets b import t, which is for tests only", "lets b import t, but no build of b does"}},
		{"an entry that names nothing",
			with(func(rs []room) []room { rs[0].Never = []string{"nosuch"}; return rs }),
			[]string{"the never-imports of a: nosuch names no package any build links"}},
		{"a negation of one package",
			with(func(rs []room) []room { rs[0].Never = []string{"!b"}; return rs }),
			[]string{"the never-imports of a: !b: a negated entry must be !P/..."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Check("doc.md", tc.rooms, []*graph{fakeGraph()})
			if len(got) != len(tc.want) {
				t.Fatalf("Check = %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// The arrows are the union of the platforms' builds, and a forbidden link
// is named once with every platform that has it.
func TestCheckArrowsAcrossPlatforms(t *testing.T) {
	linux, darwin := fakeGraph(), fakeGraph()
	darwin.GOOS = "darwin"
	a := darwin.Pkgs["example.com/m/a"]
	a.Imports = append(a.Imports, "example.com/m/c") // a file built on darwin alone
	rooms := []room{
		{Pkg: "a", Imports: []string{"b"}, Never: []string{"c"}},
		{Pkg: "b", Imports: []string{"c"}},
		{Pkg: "c"},
		{Pkg: "t", TestsOnly: true},
	}
	got := Check("doc.md", rooms, []*graph{linux, darwin})
	want := []string{
		"a imports c, which doc.md does not allow",
		"a links c (a → b → c; GOOS=linux,darwin), which doc.md says it must never import (c)",
	}
	if len(got) != len(want) {
		t.Fatalf("Check = %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
		}
	}
}

func TestParseRooms(t *testing.T) {
	doc := strings.Join([]string{
		"# Doc",
		"| other | table |",
		"|---|---|",
		"| `not` | `this` |",
		"## Rooms and arrows",
		"",
		"Some text with `quotes`.",
		"",
		"| package | imports | never imports | why |",
		"|---|---|---|---|",
		"| `a` | `b`, `c` | `...`, `os` | why, with `quotes` that are no entries |",
		"| `t` (tests only) | — | `!internal/...` | |",
		"",
		"| `after` | the table | ended | |",
	}, "\n")
	got, err := ParseRooms([]byte(doc), "## Rooms and arrows")
	if err != nil {
		t.Fatal(err)
	}
	want := []room{
		{Pkg: "a", Imports: []string{"b", "c"}, Never: []string{"...", "os"}, Line: 11},
		{Pkg: "t", Never: []string{"!internal/..."}, TestsOnly: true, Line: 12},
	}
	if len(got) != len(want) {
		t.Fatalf("ParseRooms = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Pkg != w.Pkg || !slices.Equal(g.Imports, w.Imports) || !slices.Equal(g.Never, w.Never) || g.TestsOnly != w.TestsOnly || g.Line != w.Line {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}

	for _, bad := range []struct{ name, doc, want string }{
		{"no heading", "# Doc\n", "no line"},
		{"no rows", "## Rooms and arrows\n\ntext\n## Next\n| a | b |\n", "no table rows"},
		{"two packages in a cell", "## Rooms and arrows\n| p | i | n |\n|-|-|-|\n| `a` `b` | — | — |\n", "names 2 packages"},
		{"a second row", "## Rooms and arrows\n| p | i | n |\n|-|-|-|\n| `a` | — | — |\n| `a` | — | — |\n", "a second row for a (the first is line 4)"},
		{"too few cells", "## Rooms and arrows\n| p | i | n |\n|-|-|-|\n| `a` | — |\n", "2 cells"},
	} {
		if _, err := ParseRooms([]byte(bad.doc), "## Rooms and arrows"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: ParseRooms error = %v, want one containing %q", bad.name, err, bad.want)
		}
	}
}
