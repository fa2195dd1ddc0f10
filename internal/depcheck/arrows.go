package depcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// room is one row of the rooms-and-arrows table: a project package, the
// project packages its non-test code imports, and what it must never link.
// Paths are relative to the module ("policy/shell").
type room struct {
	Pkg       string
	Imports   []string
	Never     []string
	TestsOnly bool
	Line      int // in the document
}

var backticked = regexp.MustCompile("`([^`]*)`")

// ParseRooms reads the first table after the line heading in doc: columns
// package, imports, never imports, then anything. Every `quoted` token of
// the imports and never cells is an entry; "—" means none. A package cell
// holds one quoted name, and "(tests only)" marks a package only tests may
// import.
func ParseRooms(doc []byte, heading string) ([]room, error) {
	lines := strings.Split(string(doc), "\n")
	start := slices.Index(lines, heading)
	if start < 0 {
		return nil, fmt.Errorf("no line %q", heading)
	}
	var rooms []room
	seen := map[string]int{}
	inTable := false
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			if inTable || strings.HasPrefix(l, "#") {
				break
			}
			continue
		}
		if !inTable { // the header row, then its separator
			inTable = true
			i++
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) < 3 {
			return nil, fmt.Errorf("line %d: %d cells, want package | imports | never imports | why", i+1, len(cells))
		}
		name := tokens(cells[0])
		if len(name) != 1 {
			return nil, fmt.Errorf("line %d: the package cell %q names %d packages, want one in backquotes", i+1, strings.TrimSpace(cells[0]), len(name))
		}
		r := room{Pkg: name[0], Imports: tokens(cells[1]), Never: tokens(cells[2]),
			TestsOnly: strings.Contains(cells[0], "(tests only)"), Line: i + 1}
		if prev, dup := seen[r.Pkg]; dup {
			return nil, fmt.Errorf("line %d: a second row for %s (the first is line %d)", i+1, r.Pkg, prev)
		}
		seen[r.Pkg] = r.Line
		rooms = append(rooms, r)
	}
	if len(rooms) == 0 {
		return nil, fmt.Errorf("no table rows after %q", heading)
	}
	return rooms, nil
}

func tokens(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// Package is what `go list -deps -json` says of one package.
type Package struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
	Module     *struct{ Main bool }
}

// graph is one platform's build: every package linked by the module's
// packages, the module's own ones marked.
type graph struct {
	GOOS    string
	Module  string // the module path
	Pkgs    map[string]*Package
	Project []string // module-relative, sorted
}

// List runs `go list -deps -json ./...` in dir for goos.
func List(dir, goos string) (*graph, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("GOOS=%s go list -deps -json ./...: %w (%s); the import test needs the go command on PATH", goos, err, strings.TrimSpace(stderr.String()))
	}
	m := exec.Command("go", "list", "-m")
	m.Dir = dir
	mod, err := m.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	g := &graph{GOOS: goos, Module: strings.TrimSpace(string(mod)), Pkgs: map[string]*Package{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(Package)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("GOOS=%s go list -deps -json: %w", goos, err)
		}
		g.Pkgs[p.ImportPath] = p
		if p.Module != nil && p.Module.Main {
			g.Project = append(g.Project, g.rel(p.ImportPath))
		}
	}
	slices.Sort(g.Project)
	return g, nil
}

func (g *graph) rel(path string) string {
	if path == g.Module {
		return "."
	}
	return strings.TrimPrefix(path, g.Module+"/")
}

func (g *graph) abs(rel string) string {
	if rel == "." {
		return g.Module
	}
	return g.Module + "/" + rel
}

// name is a path as the table names it: module-relative for the project's.
func (g *graph) name(path string) string {
	if g.isProject(path) {
		return g.rel(path)
	}
	return path
}

func (g *graph) isProject(path string) bool {
	return path == g.Module || strings.HasPrefix(path, g.Module+"/")
}

// matchPath reports whether pattern (P or P/...) matches path.
func matchPath(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// never is one compiled never-imports entry.
type never struct {
	project bool // matches module-relative paths
	std     bool // holds for the package's own imports only
	match   func(string) bool
}

// compileNever classifies an entry against the graphs: a project pattern
// (it matches a project package, or is "..." or "!P/..."), a standard
// library package, or a third-party one; an entry that names no package
// any of the builds links guards nothing, and is an error.
func compileNever(entry string, graphs []*graph) (never, error) {
	if entry == "..." {
		return never{project: true, match: func(string) bool { return true }}, nil
	}
	if neg, ok := strings.CutPrefix(entry, "!"); ok {
		if !strings.HasSuffix(neg, "/...") {
			return never{}, fmt.Errorf("%s: a negated entry must be !P/... (every project package outside P)", entry)
		}
		return never{project: true, match: func(p string) bool { return !matchPath(neg, p) }}, nil
	}
	for _, g := range graphs {
		for _, p := range g.Project {
			if matchPath(entry, p) {
				return never{project: true, match: func(p string) bool { return matchPath(entry, p) }}, nil
			}
		}
	}
	for _, g := range graphs {
		for path, p := range g.Pkgs {
			if !g.isProject(path) && matchPath(entry, path) {
				return never{std: p.Standard, match: func(p string) bool { return matchPath(entry, p) }}, nil
			}
		}
	}
	return never{}, fmt.Errorf("%s names no package any build links: a typo, or a package gone (remove the entry)", entry)
}

// Check compares the rooms with the builds and returns every disagreement,
// each a sentence saying what to change. doc names the document in the
// messages.
func Check(doc string, rooms []room, graphs []*graph) []string {
	var problems []string
	addf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	byPkg := map[string]*room{}
	for i := range rooms {
		byPkg[rooms[i].Pkg] = &rooms[i]
	}
	exists := map[string]bool{}
	for _, g := range graphs {
		for _, p := range g.Project {
			exists[p] = true
		}
	}
	// Every package has a row, and every row a package.
	for _, p := range sortedKeys(exists) {
		if byPkg[p] == nil {
			addf("%s has no row in %s's rooms table: add one (what it imports, what it must never import, why)", p, doc)
		}
	}
	for _, r := range rooms {
		if !exists[r.Pkg] {
			addf("%s line %d has a row for %s, which is no package: remove it", doc, r.Line, r.Pkg)
		}
		for _, imp := range r.Imports {
			if to := byPkg[imp]; to != nil && to.TestsOnly {
				addf("%s line %d lets %s import %s, which is for tests only: remove the arrow", doc, r.Line, r.Pkg, imp)
			}
		}
	}

	// The arrows: the union over the builds, against the imports column.
	used := map[string]map[string]bool{}
	for _, g := range graphs {
		for _, p := range g.Project {
			for _, imp := range g.Pkgs[g.abs(p)].Imports {
				if !g.isProject(imp) {
					continue
				}
				if used[p] == nil {
					used[p] = map[string]bool{}
				}
				used[p][g.rel(imp)] = true
			}
		}
	}
	for _, r := range rooms {
		if !exists[r.Pkg] {
			continue
		}
		for _, imp := range sortedKeys(used[r.Pkg]) {
			if !slices.Contains(r.Imports, imp) {
				addf("%s imports %s, which %s does not allow: add the arrow there with a reason or remove the import", r.Pkg, imp, doc)
			}
		}
		for _, imp := range r.Imports {
			if !used[r.Pkg][imp] {
				addf("%s line %d lets %s import %s, but no build of %s does: remove the arrow", doc, r.Line, r.Pkg, imp, r.Pkg)
			}
		}
	}

	// What each package must never link.
	for _, r := range rooms {
		if !exists[r.Pkg] {
			continue
		}
		for _, e := range r.Never {
			n, err := compileNever(e, graphs)
			if err != nil {
				addf("%s line %d, the never-imports of %s: %v", doc, r.Line, r.Pkg, err)
				continue
			}
			// One message per forbidden package, naming the platforms
			// whose builds link it and the chain of the first.
			var order []string
			oses, chains := map[string][]string{}, map[string]string{}
			for _, g := range graphs {
				p := g.Pkgs[g.abs(r.Pkg)]
				if p == nil {
					continue
				}
				for _, hit := range n.hits(g, p) {
					name := g.name(hit)
					if oses[name] == nil {
						order = append(order, name)
						chains[name] = strings.Join(g.chain(p.ImportPath, hit), " → ")
					}
					oses[name] = append(oses[name], g.GOOS)
				}
			}
			for _, name := range order {
				addf("%s links %s (%s; GOOS=%s), which %s says it must never import (%s): remove the import",
					r.Pkg, name, chains[name], strings.Join(oses[name], ","), doc, e)
			}
		}
	}
	return problems
}

// hits lists the import paths of p's build the entry forbids: its own
// imports for a standard-library entry, everything it links for the others.
func (n never) hits(g *graph, p *Package) []string {
	from := p.Deps
	if n.std {
		from = p.Imports
	}
	var hits []string
	for _, d := range from {
		switch {
		case n.project && g.isProject(d) && d != p.ImportPath:
			if n.match(g.rel(d)) {
				hits = append(hits, d)
			}
		case !n.project && !g.isProject(d) && n.match(d):
			hits = append(hits, d)
		}
	}
	return hits
}

// chain is one shortest import path from one package to another (import
// paths), named as the table names them, for a message a reader can act on.
func (g *graph) chain(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var path []string
			for at := to; at != ""; at = prev[at] {
				path = append([]string{g.name(at)}, path...)
			}
			return path
		}
		if p := g.Pkgs[cur]; p != nil {
			for _, imp := range p.Imports {
				if _, ok := prev[imp]; !ok {
					prev[imp] = cur
					queue = append(queue, imp)
				}
			}
		}
	}
	return []string{g.name(from), "…", g.name(to)}
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
