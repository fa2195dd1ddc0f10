package policy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPathGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		// Literals.
		{"/etc/passwd", "/etc/passwd", true},
		{"/etc/passwd", "/etc/passwd/", true},
		{"/etc/passwd", "//etc//passwd", true},
		{"etc/passwd", "/etc/passwd", true},
		{"/etc/passwd", "/etc/passwd2", false},
		{"/etc/passwd", "/etc", false},
		{"/etc", "/etc/passwd", false},
		{"/", "/", true},
		{"/", "/x", false},
		{"/Etc/passwd", "/etc/passwd", false}, // case-sensitive
		// '*' and '?' stay within a segment.
		{"/etc/*", "/etc/passwd", true},
		{"/etc/*", "/etc/ssh/sshd_config", false},
		{"/etc/*", "/etc", false},
		{"/h/.ssh/*", "/h/.ssh/id_rsa", true},
		{"/h/.ssh/*", "/h/.ssh/.hidden", true},
		{"/h/*/id_rsa", "/h/.ssh/id_rsa", true},
		{"/h/*/id_rsa", "/h/a/b/id_rsa", false},
		{"/h/id_*", "/h/id_rsa", true},
		{"/h/id_*.pub", "/h/id_rsa.pub", true},
		{"/h/id_*.pub", "/h/id_rsa", false},
		{"/h/*.*", "/h/a.b", true},
		{"/h/*.*", "/h/ab", false},
		{"/h/*a*a*b", "/h/xaxxab", true},
		{"/h/*a*a*b", "/h/xaxxa", false},
		{"/h/id_rs?", "/h/id_rsa", true},
		{"/h/id_rs?", "/h/id_rs", false},
		{"/h/id_rs?", "/h/id_rsaa", false},
		{"/h/?", "/h/é", true},
		{"/h/??", "/h/é", false},
		{"/h/*??", "/h/€", false},
		{"/h/*?", "/h/€", true},
		{"/h/a?c", "/h/a/c", false},
		{"/h/*", "/h/", false},
		// "**".
		{"/**", "/", true},
		{"/**", "/a/b/c", true},
		{"**", "/a", true},
		{"/h/.ssh/**", "/h/.ssh", true},
		{"/h/.ssh/**", "/h/.ssh/id_rsa", true},
		{"/h/.ssh/**", "/h/.ssh/a/b/c", true},
		{"/h/.ssh/**", "/h/.sshx", false},
		{"/h/.ssh/**", "/h", false},
		{"**/.env", "/.env", true},
		{"**/.env", "/a/b/.env", true},
		{"**/.env", "/a/b/.env.local", false},
		{"**/.env*", "/a/b/.env.local", true},
		{"**/.git/config", "/w/p/.git/config", true},
		{"**/.git/config", "/w/p/.git/x/config", false},
		{"/a/**/z", "/a/z", true},
		{"/a/**/z", "/a/b/z", true},
		{"/a/**/z", "/a/b/c/d/z", true},
		{"/a/**/z", "/a/b/c/d/zz", false},
		{"/a/**/z", "/b/z", false},
		{"/a/**/b/**/c", "/a/x/b/y/b/z/c", true},
		{"/a/**/b/**/c", "/a/x/c/b", false},
		{"/a/**/**/z", "/a/z", true},
		{"**/secrets/**", "/srv/app/secrets", true},
		{"**/secrets/**", "/srv/app/secrets/db/pw", true},
		{"**/secrets/**", "/srv/app/secretsx/db", false},
		{"/a/x**y/z", "/a/xqqy/z", true}, // "**" inside a segment is '*'
		{"/a/x**y/z", "/a/x/y/z", false},
		// Alternation.
		{"/h/.{ssh,aws,gnupg}/**", "/h/.aws/credentials", true},
		{"/h/.{ssh,aws,gnupg}/**", "/h/.gnupg", true},
		{"/h/.{ssh,aws,gnupg}/**", "/h/.config/x", false},
		{"**/*.{pem,key}", "/a/tls.key", true},
		{"**/*.{pem,key}", "/a/tls.pem", true},
		{"**/*.{pem,key}", "/a/tls.crt", false},
		{"/x/{a,}b", "/x/b", true},
		{"/x/{a,}b", "/x/ab", true},
		{"/x/{a,{b,c}}d", "/x/cd", true},
		{"/x/{a}", "/x/a", true},
		{"/x/a}", "/x/a}", true},
		{"/x/{a,b", "/x/a", false}, // invalid pattern
		// '[' is literal.
		{"/x/[id]/page", "/x/[id]/page", true},
		{"/x/[id]/page", "/x/i/page", false},
		{"/x/[a-z]*", "/x/[a-z]foo", true},
		{"/x/[a-z]*", "/x/b", false},
		{`/x/\*`, `/x/\abc`, true}, // no escapes
		// Empty pattern.
		{"", "/", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := PathGlob(tt.pattern, tt.path); got != tt.want {
			t.Errorf("PathGlob(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
		pp, err := CompilePathGlob(tt.pattern)
		if err != nil {
			continue
		}
		if got := pp.Match(tt.path); got != tt.want {
			t.Errorf("CompilePathGlob(%q).Match(%q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestCompilePathGlobErrors(t *testing.T) {
	for _, p := range []string{"", "{", "/x/{a,b", "/x/{a,{b}", strings.Repeat("{a,b}", 9), strings.Repeat("{a}", 33)} {
		if _, err := CompilePathGlob(p); err == nil {
			t.Errorf("CompilePathGlob(%q): no error", p)
		}
	}
	for _, p := range []string{"/", "}", "/x/}{a}", strings.Repeat("{a,b}", 8), strings.Repeat("{a}", 32), "**"} {
		if _, err := CompilePathGlob(p); err != nil {
			t.Errorf("CompilePathGlob(%q): %v", p, err)
		}
	}
	var zero PathPattern
	if zero.Match("/") {
		t.Error("zero PathPattern matched")
	}
	pp, _ := CompilePathGlob("/h/{a,b}")
	if pp.String() != "/h/{a,b}" {
		t.Errorf("String() = %q", pp.String())
	}
}

func TestPathGlobNoAlloc(t *testing.T) {
	pp, err := CompilePathGlob("/home/*/.{ssh,aws}/**")
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(100, func() {
		PathGlob("**/.git/config", "/w/p/.git/config")
		PathGlob("/home/u/.ssh/**", "/home/u/.ssh/id_rsa")
		pp.Match("/home/u/.aws/credentials")
	})
	if n != 0 {
		t.Errorf("%v allocs, want 0", n)
	}
}

func TestTextGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		// Substring tests.
		{"rm -rf", "sudo rm -rf /", true},
		{"rm -rf", "rm -r", false},
		{"*rm -rf*", "sudo rm -rf /", true},
		{"*rm -rf*", "rm -r", false},
		{"[x]", "a[x]b", true},
		{"*[x]*", "a[x]b", true},
		{"[x]", "x", false},
		// Anchored globs.
		{"rm *", "rm -rf /", true},
		{"rm *", "sudo rm -rf /", false},
		{"*/etc/passwd", "cat /etc/passwd", true},
		{"*/etc/passwd", "cat /etc/passwd2", false},
		{"*.ssh/*", "/h/.ssh/a/b", true},
		{"curl * | sh", "curl -s x | sh", true},
		{"curl * | sh", "curl -s x | shx", false},
		{"*curl*|*sh*", "curl x |bash", true},
		{"*", "", true},
		{"*", "anything\nat all", true},
		{"**", "x", true},
		{"?", "é", true},
		{"?", "", false},
		{"??", "é", false},
		{"a?c*", "abcdef", true},
		{"*a?c", "xxabc", true},
		{"*a?c", "xxab", false},
		{"*a?c*", "xxabcxx", true},
		{"*a?c*", "xxacxx", false},
		{"*b?d*f", "abcdef", true},
		{"*x?*?y*", "x12y", true},
		{"*x?*?y*", "xy", false},
		{"*a*a*a*a*b", strings.Repeat("a", 100) + "b", true},
		{"*a*a*a*a*b", strings.Repeat("a", 100), false},
		{"a*", "a", true},
		{"*a", "a", true},
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := TextGlob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("TextGlob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
		tp, err := CompileTextGlob(tt.pattern)
		if err != nil {
			if tt.pattern != "" {
				t.Errorf("CompileTextGlob(%q): %v", tt.pattern, err)
			}
			continue
		}
		if got := tp.Match(tt.s); got != tt.want {
			t.Errorf("CompileTextGlob(%q).Match(%q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
	var zero TextPattern
	if zero.Match("x") {
		t.Error("zero TextPattern matched")
	}
}

// TestGlobNoBlowup runs patterns that make backtracking matchers
// exponential against 1 MB inputs. It asserts only the results; a
// regression shows up as a test timeout.
func TestGlobNoBlowup(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	for _, p := range []string{"*a*a*a*a*b", "*a*a*a*a*a*a*a*a*a*a*b", "a*a*a*a*a*?b", "*?a*?a*?a*?b*"} {
		if TextGlob(p, big) {
			t.Errorf("TextGlob(%q, 1MB of a) = true", p)
		}
	}
	if !TextGlob("*a*a*a*a*a", big) {
		t.Error("TextGlob(*a*a*a*a*a) = false")
	}
	seg := "/" + strings.Repeat("a", 1<<20)
	if PathGlob("/*a*a*a*a*b", seg) {
		t.Error("PathGlob matched")
	}
	deep := strings.Repeat("/a", 1<<14)
	if PathGlob("/**/a/**/a/**/b", deep) {
		t.Error("PathGlob deep matched")
	}
}

// FuzzPathGlob checks that the glob matchers never panic, and that
// compiled and uncompiled forms agree.
func FuzzPathGlob(f *testing.F) {
	for _, s := range [][2]string{
		{"/h/.ssh/**", "/h/.ssh"},
		{"**/*.{pem,key}", "/a/tls.key"},
		{"/x/[id]/*", "/x/[id]/y"},
		{"*a*a*?b", "aaaab"},
		{"/x/{a,{b,c}}d", "/x/cd"},
		{"?*?", "é"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		got := PathGlob(pattern, s)
		if pp, err := CompilePathGlob(pattern); err == nil {
			if pp.Match(s) != got {
				t.Fatalf("PathGlob(%q, %q) = %v, compiled disagrees", pattern, s, got)
			}
		}
		got = TextGlob(pattern, s)
		if tp, err := CompileTextGlob(pattern); err == nil {
			if tp.Match(s) != got {
				t.Fatalf("TextGlob(%q, %q) = %v, compiled disagrees", pattern, s, got)
			}
		}
		if !strings.ContainsAny(pattern, "*?") && pattern != "" && TextGlob(pattern, s) != strings.Contains(s, pattern) {
			t.Fatalf("TextGlob(%q, %q) is not a substring test", pattern, s)
		}
		if !strings.ContainsAny(s, "*?") && s != "" && !TextGlob("*"+s+"*", "x"+s+"y") {
			t.Fatalf("TextGlob(*%s*) does not match itself", s)
		}
		// Differential check against a naive backtracking reference.
		if len(pattern) > 40 || len(s) > 40 || !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return
		}
		if want := refGlob([]rune(pattern), []rune(s)); globMatch(pattern, s) != want {
			t.Fatalf("globMatch(%q, %q) = %v, reference %v", pattern, s, !want, want)
		}
		if pattern != "" && !strings.Contains(pattern, "{") {
			if want := refPath(segments(pattern), segments(s)); PathGlob(pattern, s) != want {
				t.Fatalf("PathGlob(%q, %q) = %v, reference %v", pattern, s, !want, want)
			}
		}
	})
}

// refGlob is the textbook dynamic-programming glob matcher: '*' any
// runes, '?' one rune. m[i][j] says whether p[i:] matches s[j:].
func refGlob(p, s []rune) bool {
	m := make([][]bool, len(p)+1)
	for i := range m {
		m[i] = make([]bool, len(s)+1)
	}
	m[len(p)][len(s)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(s); j >= 0; j-- {
			switch {
			case p[i] == '*':
				m[i][j] = m[i+1][j] || j < len(s) && m[i][j+1]
			case j < len(s) && (p[i] == '?' || p[i] == s[j]):
				m[i][j] = m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}

// refPath is the obvious backtracking segment matcher (exponential in the
// number of "**", fine for fuzz-sized inputs).
func refPath(p, s []string) bool {
	if len(p) == 0 {
		return len(s) == 0
	}
	if p[0] == "**" {
		for i := 0; i <= len(s); i++ {
			if refPath(p[1:], s[i:]) {
				return true
			}
		}
		return false
	}
	return len(s) > 0 && refGlob([]rune(p[0]), []rune(s[0])) && refPath(p[1:], s[1:])
}

func segments(p string) []string {
	var out []string
	for _, seg := range strings.Split(p, "/") {
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

func TestGlobReference(t *testing.T) {
	pats := []string{"*", "**", "?", "a*", "*a", "*a*", "a?c", "*?*", "??*", "*a*b*", "a*b*c", "*ab*ab*", "?*?b"}
	strs := []string{"", "a", "ab", "abc", "aab", "abab", "é", "aéb", "xaybzc", "abcab"}
	for _, p := range pats {
		for _, s := range strs {
			if got, want := globMatch(p, s), refGlob([]rune(p), []rune(s)); got != want {
				t.Errorf("globMatch(%q, %q) = %v, want %v", p, s, got, want)
			}
		}
	}
	ppats := []string{"/**", "/**/a", "/a/**", "/**/a/**", "/a/**/b/**/c", "/**/*/a", "/*/**/a/*", "/**/**/a", "/a/*/**/b"}
	paths := []string{"/", "/a", "/a/a", "/b/a", "/a/b", "/a/b/c", "/a/x/b/y/c", "/x/a/y", "/a/c/b", "/a/b/a/c"}
	for _, p := range ppats {
		for _, s := range paths {
			if got, want := PathGlob(p, s), refPath(segments(p), segments(s)); got != want {
				t.Errorf("PathGlob(%q, %q) = %v, want %v", p, s, got, want)
			}
		}
	}
}

func BenchmarkPathGlob(b *testing.B) {
	for _, bc := range []struct{ name, pattern, path string }{
		{"literal", "/etc/passwd", "/etc/passwd"},
		{"dir_suffix", "/home/u/.ssh/**", "/home/u/.ssh/id_rsa"},
		{"any_depth", "**/.env", "/home/u/work/project/app/.env"},
		{"any_depth_miss", "**/.env", "/home/u/work/project/app/src/main.go"},
		{"middle", "/home/*/work/**/secrets/*.json", "/home/u/work/a/b/c/secrets/db.json"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				PathGlob(bc.pattern, bc.path)
			}
		})
	}
	b.Run("compiled_braces", func(b *testing.B) {
		pp, err := CompilePathGlob("**/*.{pem,key,p12,pfx}")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			pp.Match("/home/u/work/project/certs/server.pfx")
		}
	})
}

func BenchmarkTextGlob(b *testing.B) {
	big := strings.Repeat("a", 1<<20)
	for _, bc := range []struct{ name, pattern, s string }{
		{"substring", "*rm -rf*", "cd /tmp && sudo rm -rf / --no-preserve-root"},
		{"glob", "curl * | *sh", "curl -fsSL https://x.example/install.sh | bash"},
		{"pathological_1MB", "*a*a*a*a*b", big},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tp, err := CompileTextGlob(bc.pattern)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				tp.Match(bc.s)
			}
		})
	}
}
