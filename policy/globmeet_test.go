package policy

import (
	"regexp"
	"strings"
	"testing"
)

func TestGlobsMeet(t *testing.T) {
	for _, c := range []struct {
		forbid, pat string
		tree, want  bool
	}{
		{"**/.ssh/**", "/h/.ss?/id_*", false, true},
		{"**/.ssh/**", "/h/.[a-z]sh/id_rsa", false, true},
		{"**/.ssh/**", "/h/.[!s]sh/id_rsa", false, false},
		{"**/.aws/**", "/h/.*/credentials", false, true},
		{"**/.npmrc", "/h/.*rc", false, true},
		{"**/.npmrc", "/h/*rc", false, false}, // a wildcard does not match a leading dot
		{"**/.npmrc", "/h/.n?mrc", false, true},
		{"**/.aws/**", "/home/*/.aws/credentials", false, true},
		{"**/gh/hosts.yml", "/h/.config/*/hosts.yml", false, true},
		{"**/.env", "/ws/.env*", false, true},
		{"**/.env", "/ws/.e?v", false, true},
		{"**/.env", "/ws/src/*.go", false, false},
		{"**/id_rsa.*", "/ws/*.md", false, false},       // a crossing: id_rsa.md names nothing either side means
		{"**/.ssh/**", "/ws/src/**/*.ts", false, false}, // a crossing at the segment level
		{"**/.ssh/**", "/h", true, true},
		{"/etc/shadow", "/etc", true, true},
		{"/etc/shadow", "/tmp/x", true, false},
	} {
		if got := GlobsMeet(c.forbid, c.pat, c.tree); got != c.want {
			t.Errorf("GlobsMeet(%q, %q, tree=%v) = %v, want %v", c.forbid, c.pat, c.tree, got, c.want)
		}
	}
}

// refShellSeg matches one name against a shell pattern segment: classes,
// and a leading '.' only by a literal '.'.
func refShellSeg(pat, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			if j := strings.IndexByte(pat[i+2:], ']'); j >= 0 {
				body := pat[i+1 : i+2+j]
				neg := body[0] == '!' || body[0] == '^'
				if neg {
					body = body[1:]
				}
				if body != "" {
					b.WriteString("[")
					if neg {
						b.WriteString("^/")
					}
					b.WriteString(regexp.QuoteMeta(body))
					b.WriteString("]")
					i += 1 + j + 1
					continue
				}
			}
			b.WriteString(regexp.QuoteMeta("["))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(name)
}

// refShellPath matches a path against a shell pattern with ** segments.
func refShellPath(pat, p []string) bool {
	if len(pat) == 0 {
		return len(p) == 0
	}
	if pat[0] == "**" {
		for k := 0; k <= len(p); k++ {
			if refShellPath(pat[1:], p[k:]) {
				return true
			}
		}
		return false
	}
	return len(p) > 0 && refShellSeg(pat[0], p[0]) && refShellPath(pat[1:], p[1:])
}

func segs(s string) []string {
	var out []string
	for _, x := range strings.Split(s, "/") {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// bruteMeet enumerates every path of at most two segments of at most
// three runes over {a, b, .} and reports whether one matches both.
func bruteMeet(forbid, pat string) bool {
	alpha := []string{"a", "b", "."}
	var names []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if prefix != "" {
			names = append(names, prefix)
		}
		if n == 0 {
			return
		}
		for _, c := range alpha {
			gen(prefix+c, n-1)
		}
	}
	gen("", 3)
	ps := segs(pat)
	try := func(p string) bool {
		return matchPath(forbid, p) && refShellPath(ps, segs(p))
	}
	for _, x := range names {
		if try("/" + x) {
			return true
		}
		for _, y := range names {
			if try("/" + x + "/" + y) {
				return true
			}
		}
	}
	return false
}

// smallPattern makes a pattern of at most two segments over a small
// alphabet from fuzz bytes; classes only when shell is set.
func smallPattern(data []byte, shell bool) string {
	pieces := []string{"a", "b", ".", "*", "?"}
	if shell {
		pieces = append(pieces, "[ab]", "[!a]", "[.a]")
	}
	var segsOut []string
	nseg := 1 + int(len(data)%2)
	k := 0
	for s := 0; s < nseg; s++ {
		if k < len(data) && data[k]%5 == 0 {
			segsOut = append(segsOut, "**")
			k++
			continue
		}
		var b strings.Builder
		n := 1
		if k < len(data) {
			n = 1 + int(data[k]%2)
			k++
		}
		for i := 0; i < n; i++ {
			c := byte(0)
			if k < len(data) {
				c = data[k]
				k++
			}
			b.WriteString(pieces[int(c)%len(pieces)])
		}
		segsOut = append(segsOut, b.String())
	}
	return "/" + strings.Join(segsOut, "/")
}

func FuzzGlobsMeet(f *testing.F) {
	for _, s := range []string{"\x00\x01\x02", "\x05\x03\x04\x00", "\x01\x02\x03\x04\x05\x06\x07", "\x0a\x00\x01\x09\x08"} {
		f.Add([]byte(s), []byte(s[1:]))
	}
	f.Fuzz(func(t *testing.T, fa, fb []byte) {
		forbid := smallPattern(fa, false)
		pat := smallPattern(fb, true)
		exact := globsMeetExact(forbid, pat)
		if want := bruteMeet(forbid, pat); exact != want {
			t.Fatalf("globsMeetExact(%q, %q) = %v, brute force says %v", forbid, pat, exact, want)
		}
		if GlobsMeet(forbid, pat, false) && !exact {
			t.Fatalf("GlobsMeet(%q, %q) without an exact meet", forbid, pat)
		}
		a, b := splitPattern(forbid, false, false), splitPattern(pat, true, true)
		for _, w := range witnesses(a, b, 8) {
			if !matchPath(forbid, w) || !refShellPath(segs(pat), segs(w)) {
				t.Fatalf("witness %q of (%q, %q) is not in both", w, forbid, pat)
			}
		}
	})
}
