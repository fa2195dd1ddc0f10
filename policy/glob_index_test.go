package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/corpus"
)

// The glob index (glob_index.go) may only change how many globs are tried,
// never an answer. These tests compare it with the plain scan: every
// pattern of the built-in forbids and the bundled profiles, against every
// path of the corpora and paths made from the patterns themselves.

var indexVars = Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp", User: "dev", AirlockHome: "/home/dev/.airlock"}

// indexedRules is every rule with a path matcher: the built-in forbids and
// each bundled profile's rules (allow rules included: their patterns are
// compiled the same way).
func indexedRules(t testing.TB) []*Rule {
	t.Helper()
	forbids, _, err := builtins(indexVars)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Rule
	for _, r := range forbids {
		if r.path != nil {
			out = append(out, r)
		}
	}
	for _, name := range []string{"yolo", "default", "paranoid"} {
		p, err := LoadProfile(name, indexVars)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Rules {
			if r.path != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// corpusForms is every folded path form the corpora's calls yield, and the
// paths their texts spell, folded.
func corpusForms(t *testing.T) []string {
	t.Helper()
	names := []string{"attacks.txt", "benign.txt"}
	classes, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, classes...)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	env := CallEnv{Cwd: indexVars.Workspace, Home: indexVars.Home, User: indexVars.User, NoResolve: true}
	for _, name := range names {
		cases, err := corpus.Load(name, indexVars.Home, indexVars.Workspace, indexVars.User)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) == 0 {
			t.Fatalf("corpus %s has no cases", name)
		}
		for _, c := range cases {
			f := Classify(c.Tool, []byte(c.Input), env)
			for _, p := range f.Paths {
				add(p.fold)
				add(p.rfold)
			}
			for _, p := range ExtractPaths(c.Input) {
				add(FoldPath(ExpandPath(FoldText(p), env.Cwd, env.Home)))
			}
		}
	}
	return out
}

// patternForms makes paths from a brace-free pattern: its wildcards filled
// in several ways, under a prefix and with suffixes, so the patterns' own
// positives (and near misses) are in the set.
func patternForms(alt string) []string {
	fills := []struct{ dstar, star, q string }{
		{"", "", "q"}, {"a", "x", "é"}, {"a/b/c", "x.y", "."}, {"home/dev", ".hidden", "z"},
	}
	var out []string
	for _, f := range fills {
		var b strings.Builder
		for i := 0; i < len(alt); i++ {
			switch {
			case strings.HasPrefix(alt[i:], "**"):
				b.WriteString(f.dstar)
				i++
			case alt[i] == '*':
				b.WriteString(f.star)
			case alt[i] == '?':
				b.WriteString(f.q)
			default:
				b.WriteByte(alt[i])
			}
		}
		p := "/" + strings.TrimPrefix(b.String(), "/")
		out = append(out, p, p+"/x", p+".bak", p+"/deep/er/file.pem", "/home/dev/proj"+p, strings.TrimSuffix(p, "/")+"x")
	}
	return append(out, alt)
}

func checkIndexAgrees(t *testing.T, rules []*Rule, forms []string) (positives int) {
	t.Helper()
	for _, form := range forms {
		keys := formKeys(form)
		for _, r := range rules {
			any := false
			for _, globs := range [][]PathPattern{r.path.globs, r.path.except} {
				for i := range globs {
					g := &globs[i]
					want := g.Match(form)
					if got := g.matchKeyed(form, &keys); got != want {
						t.Errorf("rule %s: glob %q on %q: indexed %v, scan %v", r.ID, g.pattern, form, got, want)
					}
					if want {
						positives++
					}
				}
			}
			for i := range r.path.globs {
				any = any || r.path.globs[i].Match(form)
			}
			if any && r.path.index.skips(&keys) {
				t.Errorf("rule %s: the index skips %q, which one of its globs matches", r.ID, form)
			}
		}
	}
	return positives
}

// TestGlobIndexAgreesWithScanOverCorpus: indexed and plain matching agree
// on every corpus path for every pattern, and the rule-level skip never
// skips a rule a path matches.
func TestGlobIndexAgreesWithScanOverCorpus(t *testing.T) {
	rules := indexedRules(t)
	forms := corpusForms(t)
	if len(forms) < 200 {
		t.Fatalf("only %d corpus paths: the corpus reader lost most of them", len(forms))
	}
	pos := checkIndexAgrees(t, rules, forms)
	if pos < 200 {
		t.Fatalf("only %d glob matches over the corpus: the comparison says little", pos)
	}
	t.Logf("%d paths, %d rules, %d glob matches", len(forms), len(rules), pos)
}

// TestGlobIndexAgreesWithScanOnPatternInstances: the same over paths made
// from the patterns, where most globs match.
func TestGlobIndexAgreesWithScanOnPatternInstances(t *testing.T) {
	rules := indexedRules(t)
	var forms []string
	for _, r := range rules {
		for _, globs := range [][]PathPattern{r.path.globs, r.path.except} {
			for _, g := range globs {
				for _, a := range g.alts {
					forms = append(forms, patternForms(a)...)
				}
			}
		}
	}
	pos := checkIndexAgrees(t, rules, forms)
	if pos < len(forms)/4 {
		t.Fatalf("only %d glob matches over %d pattern instances", pos, len(forms))
	}
}

// TestGlobIndexDenyAgreesWithScan: the rule matcher with the index gives
// the same hit as the plain scan the matcher did before, fact by fact,
// for facts made by Classify and for facts without keys.
func TestGlobIndexDenyAgreesWithScan(t *testing.T) {
	rules := indexedRules(t)
	forms := corpusForms(t)
	for _, r := range rules {
		for i := 0; i+1 < len(forms); i++ {
			facts := []PathFact{{Path: forms[i], fold: forms[i], rfold: forms[i+1], Access: accessAny}}
			bare := facts[0]
			facts[0].setKeys()
			want, wantOK := scanDeny(r.path, facts)
			got, gotOK := r.path.deny(facts)
			gotBare, gotBareOK := r.path.deny([]PathFact{bare})
			if got != want || gotOK != wantOK || gotBare != want || gotBareOK != wantOK {
				t.Fatalf("rule %s on %q/%q: indexed %v %v, without keys %v %v, scan %v %v", r.ID, forms[i], forms[i+1], got, gotOK, gotBare, gotBareOK, want, wantOK)
			}
		}
	}
}

// scanDeny is pathMatcher.deny as it was before the index: every glob.
func scanDeny(m *pathMatcher, paths []PathFact) (Hit, bool) {
	for i := range paths {
		p := &paths[i]
		if p.Access&m.access == 0 {
			continue
		}
		for _, form := range [2]string{p.fold, p.rfold} {
			if form != "" && matchAny(m.globs, form) && !matchAny(m.except, form) {
				return Hit{Target: p.Path, Arg: p.Arg}, true
			}
		}
	}
	return Hit{}, false
}

// TestAltKeyOfTrickyPatterns: patterns whose key is easy to get wrong.
func TestAltKeyOfTrickyPatterns(t *testing.T) {
	for _, c := range []struct {
		pat   string
		paths []string // each one matches
		near  []string // none matches
	}{
		{"**/*.pem", []string{"/a/b.pem", "/.pem", "/a/x.y.pem"}, []string{"/a/b.pem/c", "/a/b.pe"}},
		{"**/x?.pem/**", []string{"/xé.pem", "/a/xq.pem/b/c"}, nil},
		{"a**.key", []string{"/a.key", "/abc.key"}, []string{"/a/b.key"}},
		{"/etc/**", []string{"/etc", "/etc/passwd", "etc"}, nil},
		{"//etc//passwd/", []string{"/etc/passwd", "etc/passwd/"}, nil},
		{"**/.ssh/**", []string{"/h/.ssh", "/h/.ssh/id", "/.ssh"}, []string{"/h/.sshx/id", "/h/ssh"}},
		{"*/*.tar.gz", []string{"/a/b.tar.gz", "/a/.tar.gz"}, nil},
		{"**/[id]", []string{"/x/[id]"}, nil},
		{"**/id_rsa.*", []string{"/h/.ssh/id_rsa.", "/id_rsa.pub"}, []string{"/id_rsa", "/id_rsa.pub/x"}},
		{"**", []string{"/", "", "/a"}, nil},
		{"*.{pem,key}", []string{"/x.pem", "/x.key"}, nil},
	} {
		pp, err := CompilePathGlob(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range append(c.paths, c.near...) {
			keys := formKeys(p)
			want := pp.Match(p)
			if want != (i < len(c.paths)) {
				t.Errorf("%q on %q: scan says %v: fix the case", c.pat, p, want)
			}
			if got := pp.matchKeyed(p, &keys); got != want {
				t.Errorf("%q on %q: indexed %v, scan %v", c.pat, p, got, want)
			}
		}
	}
}

// FuzzGlobIndex: for random paths, every built-in and bundled pattern gives
// the same answer indexed and scanned; and for a random pattern, too.
func FuzzGlobIndex(f *testing.F) {
	for _, s := range []string{
		"/home/dev/.ssh/id_rsa", "/home/dev/proj/src/App.tsx", "/etc/profile.d/x.sh",
		"/home/dev/.env.local", "/home/dev/.config/gh/hosts.yml", "//a//b/", "/tmp/ssh-XYZ/agent.123",
		"/x/y.pem", "/home/dev/Library/LaunchAgents/a.plist",
	} {
		f.Add(s, "**/*.pem")
	}
	f.Add("/a/xé.pem/b", "**/x?.pem/**")
	f.Add("/a/b.tar.gz", "*/*.tar.gz")
	rules := indexedRules(f)
	var alts []PathPattern
	for _, r := range rules {
		alts = append(alts, r.path.globs...)
		alts = append(alts, r.path.except...)
	}
	f.Fuzz(func(t *testing.T, p, pat string) {
		for _, form := range []string{p, FoldPath(p)} {
			keys := formKeys(form)
			for i := range alts {
				if alts[i].Match(form) != alts[i].matchKeyed(form, &keys) {
					t.Fatalf("glob %q on %q: indexed and scanned differ", alts[i].pattern, form)
				}
			}
			pp, err := CompilePathGlob(pat)
			if err != nil {
				continue
			}
			if pp.Match(form) != pp.matchKeyed(form, &keys) {
				t.Fatalf("glob %q on %q: indexed and scanned differ", pat, form)
			}
			ix := indexGlobs([]PathPattern{pp})
			if pp.Match(form) && ix.skips(&keys) {
				t.Fatalf("glob %q on %q: the index skips a match", pat, form)
			}
		}
	})
}

// TestLacksOnlyRulesThatCannotMatch: over every corpus call, a forbid the
// kinds filter passes over (Rule.lacks) is one Match refuses, for the call's
// own facts and what it only mentions.
func TestLacksOnlyRulesThatCannotMatch(t *testing.T) {
	p, err := LoadProfile("default", indexVars)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"attacks.txt", "benign.txt"}
	classes, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	env := CallEnv{Cwd: indexVars.Workspace, Home: indexVars.Home, User: indexVars.User, NoResolve: true}
	skipped, matched := 0, 0
	for _, name := range append(names, classes...) {
		cases, err := corpus.Load(name, indexVars.Home, indexVars.Workspace, indexVars.User)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			f := Classify(c.Tool, []byte(c.Input), env)
			for _, facts := range []*Facts{f, f.Mentioned} {
				if facts == nil {
					continue
				}
				k := kindsOf(facts)
				for _, r := range p.Forbids {
					_, ok := r.Match(facts)
					if ok {
						matched++
					}
					if r.lacks(&k) {
						skipped++
						if ok {
							t.Errorf("%s %s: forbid %s matches, but the kinds filter passes it over", c.Tool, c.Input, r.ID)
						}
					}
				}
			}
		}
	}
	if skipped < 10000 || matched < 1000 {
		t.Fatalf("%d rules passed over, %d matches: the comparison says little", skipped, matched)
	}
	t.Logf("%d rules passed over, %d matches", skipped, matched)
}

// FuzzGlobShape: for a random pattern (any glob a profile can write:
// braces, "**" anywhere, '?', doubled and trailing slashes, no leading
// slash) and a random path, the index's key and shape checks give the
// plain match's answer, in the written and the folded form. Cheaper per
// input than FuzzGlobIndex, so it explores the shapes further.
func FuzzGlobShape(f *testing.F) {
	for _, c := range [][2]string{
		{"/tmp/ssh-*/agent.*", "/tmp/ssh-a/agent.1"}, {"etc//passwd/", "/etc/passwd"},
		{"/a/**/b/*.key", "a//q/b/.key"}, {"{,/x}", ""}, {"/a/?é*", "/a/xé"},
		{"**/.env.*", "/w/.env.local"}, {"/p/{a,b/**/c}.{pem,key}", "/p/b/z/c.pem"},
		{"/u/**/**/x", "/u/a/x"}, {"/x/*y?", "/x/\xffy\xfe"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pat, p string) {
		pp, err := CompilePathGlob(pat)
		if err != nil {
			return
		}
		for _, form := range []string{p, FoldPath(p), "/" + p, strings.ReplaceAll(p, "//", "/")} {
			fi := formKeys(form)
			want := pp.Match(form)
			if got := pp.matchKeyed(form, &fi); got != want {
				t.Fatalf("glob %q on %q: indexed %v, scan %v", pat, form, got, want)
			}
			if ix := indexGlobs([]PathPattern{pp}); want && ix.skips(&fi) {
				t.Fatalf("glob %q on %q: the index skips a match", pat, form)
			}
		}
	})
}

// BenchmarkForbidPaths is the path part of the forbids for one fact, a
// workspace file not under any forbid (what a Read pays), with the index
// and with the plain scan it replaced.
func BenchmarkForbidPaths(b *testing.B) {
	forbids, _, err := builtins(indexVars)
	if err != nil {
		b.Fatal(err)
	}
	var ms []*pathMatcher
	for _, r := range forbids {
		if r.path != nil {
			ms = append(ms, r.path)
		}
	}
	fold := "/home/dev/proj/src/components/app.tsx"
	for _, c := range []struct {
		name string
		deny func(*pathMatcher, []PathFact) (Hit, bool)
	}{
		{"indexed", (*pathMatcher).deny},
		{"scan", scanDeny},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				facts := []PathFact{{Path: fold, fold: fold, Access: accessRead}}
				facts[0].setKeys()
				for _, m := range ms {
					if _, ok := c.deny(m, facts); ok {
						b.Fatal("the workspace file is forbidden")
					}
				}
			}
		})
	}
}

// TestAltInfoOfTrickyShapes: alternatives whose shape (segment count, last
// segment, leading literal segments) is easy to read wrong; each path is
// decided by the index exactly as by the plain match, and the cases say
// which way.
func TestAltInfoOfTrickyShapes(t *testing.T) {
	for _, c := range []struct {
		pat   string
		paths []string // each one matches
		near  []string // none matches
	}{
		{"etc/passwd", []string{"/etc/passwd", "etc/passwd", "//etc/passwd/"}, []string{"/etc/passwd/x", "/x/etc/passwd"}},
		{"/etc//pass?d", []string{"/etc/passwd", "/etc//passwd", "etc/passwd"}, []string{"/etc/pass/d", "/etc/passd"}},
		{"/home/dev/.ssh", []string{"/home/dev/.ssh", "/home/dev/.ssh/", "/home//dev/.ssh", "home/dev/.ssh"}, []string{"/home/dev/.sshx", "/home/dev/.ssh/id", "/home/devx/.ssh"}},
		{"/tmp/ssh-*/agent.*", []string{"/tmp/ssh-a/agent.1", "/tmp/ssh-/agent.", "//tmp/ssh-x//agent.9"}, []string{"/var/tmp/ssh-a/agent.1", "/tmp/ssh-a/agent", "/tmp/ssh-a/b/agent.1"}},
		{"/a/**/b/*.key", []string{"/a/b/x.key", "/a/q/r/b/.key", "a//b/k.key"}, []string{"/a/b.key", "/a/b/x.keys", "/b/a/b/x.key"}},
		{"**/.env.*", []string{"/.env.local", "/w/.env.", "/w/x/.env.prod"}, []string{"/w/.env", "/w/.env.local/x", "/w/x.env.local"}},
		{"/x/*", []string{"/x/y", "/x/.y"}, []string{"/x", "/x/y/z", "/y/x/y"}},
		{"/x/**", []string{"/x", "/x/y/z", "x"}, []string{"/xy", "/y/x"}},
		{"**", []string{"", "/", "/a/b"}, nil},
		{"/", []string{"", "/", "//"}, []string{"/a"}},
		{"/a/?é*", []string{"/a/xé", "/a/éé.txt"}, []string{"/a/é", "/a/xe"}},
		{"/a/*x*y?", []string{"/a/xyz", "/a/axbyc"}, []string{"/a/xy", "/a/yx1"}},
		{"/[id]/**/id_rsa", []string{"/[id]/id_rsa", "/[id]/a/b/id_rsa"}, []string{"/i/id_rsa", "/[id]/id_rsa.pub"}},
		{"/a/b\\c/*", []string{"/a/b\\c/d"}, []string{"/a/b/c/d"}},
		{"{,/x}", []string{"", "/", "/x"}, []string{"/y"}},
		{"/p/{a,b/**/c}.{pem,key}", []string{"/p/a.pem", "/p/b/c.key", "/p/b/z/c.pem"}, []string{"/p/b.pem", "/p/a.pem/x"}},
		{"/u/**/**/x", []string{"/u/x", "/u/a/x", "/u/a/b/c/x"}, []string{"/u", "/u/x/y"}},
		{"/a**b/c", []string{"/ab/c", "/axxb/c"}, []string{"/a/b/c"}},
	} {
		pp, err := CompilePathGlob(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range append(c.paths, c.near...) {
			fi := formKeys(p)
			want := pp.Match(p)
			if want != (i < len(c.paths)) {
				t.Errorf("%q on %q: scan says %v: fix the case", c.pat, p, want)
			}
			if got := pp.matchKeyed(p, &fi); got != want {
				t.Errorf("%q on %q: indexed %v, scan %v", c.pat, p, got, want)
			}
		}
	}
}

// TestGlobIndexDecidesCorporaAsScan: every call of every corpus, classified
// once and decided by each bundled profile with the index and with the
// plain scan of every alternative, gets the same decision (action, rule,
// target). The built-in forbids' static keys and shapes and the ones
// compiled at load are both on this path.
func TestGlobIndexDecidesCorporaAsScan(t *testing.T) {
	names := []string{"attacks.txt", "benign.txt"}
	classes, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, classes...)
	env := CallEnv{Cwd: indexVars.Workspace, Home: indexVars.Home, User: indexVars.User, NoResolve: true}
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	calls, forbidden := 0, 0
	for _, profile := range []string{"yolo", "default", "paranoid"} {
		p, err := LoadProfile(profile, indexVars)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			cases, err := corpus.Load(name, indexVars.Home, indexVars.Workspace, indexVars.User)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				decide := func(plain bool) Decision {
					plainGlobScan = plain
					defer func() { plainGlobScan = false }()
					return p.Decide(Classify(c.Tool, []byte(c.Input), env), now, Stages{}).Decision
				}
				got, want := decide(false), decide(true)
				if got.Action != want.Action || got.Rule != want.Rule || got.Target != want.Target || got.Reason != want.Reason {
					t.Errorf("%s, %s %s: indexed %s by %s (%s), scan %s by %s (%s)", profile, name, c.Input, got.Action, got.Rule, got.Target, want.Action, want.Rule, want.Target)
				}
				calls++
				if want.Source == FromForbid {
					forbidden++
				}
			}
		}
	}
	if calls < 1000 || forbidden < 300 {
		t.Fatalf("%d calls, %d decided by a forbid: the comparison says little", calls, forbidden)
	}
	t.Logf("%d calls, %d decided by a forbid", calls, forbidden)
}
