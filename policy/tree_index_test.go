package policy

import (
	"strings"
	"testing"
)

// denyTreeScan is the tree check as it was before the compiled form
// (tree_index.go): every alternative, and every home for a "**/" one,
// through mayMeetTree and then the full check. The compiled form must
// answer as it does.
func denyTreeScan(m *pathMatcher, p *PathFact, form string) bool {
	b := splitPattern(form, p.Glob, p.Glob && !p.search)
	root := len(b) - 1
	b = append(b, segPat{deep: true})
	for i := range m.globs {
		for _, alt := range m.globs[i].alts {
			rest, lead := strings.CutPrefix(alt, "**/")
			if !lead {
				if mayMeetTree("", alt, form, p.Glob) && m.meetsOutsideExcept(alt, b, root) {
					return true
				}
				continue
			}
			homes := otherHomes[:]
			if p.home != "" {
				homes = append([]string{strings.TrimSuffix(p.home, "/")}, homes...)
			}
			for _, h := range homes {
				if mayMeetTree(h, rest, form, p.Glob) && m.meetsOutsideExcept(h+"/**/"+rest, b, root) {
					return true
				}
			}
		}
	}
	return false
}

// TestDenyTreeEqualsScan: the compiled tree check decides every tree as
// the plain scan does, for each matcher of the built-in forbids and of the
// default profile, with and without the caller's home, for literal trees
// and trees that are patterns, in the home, above it, beside it, on
// Windows drives and relative.
func TestDenyTreeEqualsScan(t *testing.T) {
	home := "/var/tmp/x/home/dev"
	vars := Vars{Home: home, Workspace: home + "/proj", Tmp: "/tmp", User: "dev", AirlockHome: home + "/.airlock"}
	rs, _, err := builtins(vars)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProfile("default", vars)
	if err != nil {
		t.Fatal(err)
	}
	rs = append(append(rs, p.Forbids...), p.Rules...)
	trees := []struct {
		t    string
		glob bool
	}{
		{"/", false}, {"/var", false}, {"/var/tmp/x/home", false}, {home, false}, {home + "/", false},
		{home + "/.config", false}, {home + "/.config/gh", false}, {home + "/.ssh", false}, {home + "/.aws", false},
		{home + "/proj", false}, {home + "/proj/src", false}, {home + "/proj/.git", false}, {home + "/proj/.git/hooks", false},
		{home + "/library/application support", false}, {home + "/.local/share", false}, {home + "/profile.d", false},
		{"/etc", false}, {"/etc/ssh", false}, {"/etc/profile.d", false}, {"/root", false}, {"/home", false},
		{"/home/alice", false}, {"/home/alice/.aws", false}, {"/users/bob", false}, {"/usr/share/doc", false},
		{"/proc", false}, {"/proc/self", false}, {"c:/users/ann", false}, {"src", false}, {"**", false}, {"/tmp/*", false}, {"/home/*", false}, {home + "/**", false},
		{home + "/.*", true}, {"/home/*/.ssh", true}, {"/etc/cron.*", true}, {"*", true},
	}
	checked, met := 0, 0
	for _, r := range rs {
		m := r.path
		if m == nil {
			continue
		}
		for _, tr := range trees {
			for _, h := range []string{"", FoldPath(home)} {
				f := PathFact{Path: tr.t, Tree: true, Glob: tr.glob, home: h, Access: accessRead}
				got, want := m.denyTree(&f, tr.t), denyTreeScan(m, &f, tr.t)
				checked++
				if got {
					met++
				}
				if got != want {
					t.Errorf("%s: tree %q (glob %v, home %q): compiled %v, scan %v", r.ID, tr.t, tr.glob, h, got, want)
				}
			}
		}
	}
	if met == 0 || met == checked {
		t.Errorf("%d of %d trees met: the spread no longer tells the two apart", met, checked)
	}
	t.Logf("%d matcher × tree checks, %d met", checked, met)
}

// TestTreeCacheSharesStaticGlobs: two loads share the compiled form of a
// built-in forbid's globs (one compile per process, not per load), and a
// matcher with no globs has an empty one.
func TestTreeCacheSharesStaticGlobs(t *testing.T) {
	vars := Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp"}
	a, _, err := builtins(vars)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := builtins(vars)
	if err != nil {
		t.Fatal(err)
	}
	if n := treeCache.n.Load(); n >= treeCacheMax {
		t.Fatalf("%d matchers compiled in this test binary fill the cache: it keys the globs too finely", n)
	}
	shared := 0
	for i := range a {
		if a[i].path == nil || len(a[i].path.globs) == 0 || &a[i].path.globs[0] != &b[i].path.globs[0] {
			continue
		}
		if a[i].path.treeAlts() != b[i].path.treeAlts() {
			t.Errorf("%s: two loads compiled the same static globs twice", a[i].ID)
		}
		shared++
	}
	if shared == 0 {
		t.Error("no built-in forbid's globs are shared between loads: the cache key no longer fits the static data")
	}
	if ta := (&pathMatcher{}).treeAlts(); len(ta.plain) != 0 || len(ta.lead) != 0 {
		t.Errorf("a matcher with no globs compiled to %+v", ta)
	}
}
