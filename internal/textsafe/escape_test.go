package textsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"a\\b", `a\\b`},
		{"ok\n2026-11-29T10:43:49.123Z allow Bash rm -rf /", `ok\n2026-11-29T10:43:49.123Z allow Bash rm -rf /`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"cr\roverwrite", `cr\roverwrite`},
		{"tab\there", `tab\there`},
		{"del\x7f", `del\x7f`},
		{"nul\x00", `nul\x00`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"evil\u202eexe.txt", `evil\u202eexe.txt`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"zero\u200bwidth\u200c\u200d\u200e\u200f\u2060\ufeff", `zero\u200bwidth\u200c\u200d\u200e\u200f\u2060\ufeff`},
		{"tag\U000e0041\U000e007f", `tag\U000e0041\U000e007f`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"soft\u00adhyphen\u061c", `soft\u00adhyphen\u061c`},
		{"vs\ufe0f\U000e0100", `vs\ufe0f\U000e0100`},
		{"filler\u3164", `filler\u3164`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{`literal \x1b stays distinct`, `literal \\x1b stays distinct`},
	}
	for _, c := range cases {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		checkEscaped(t, c.in, got)
	}
}

// FuzzEscape: the output never contains a control byte, is valid UTF-8,
// contains no hidden rune, and decodes back to the input (so two different
// strings never display the same).
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[2J", "\u202e", "\U000e0041", "\xff\xfe", `\x41`, "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkEscaped(t, s, Escape(s))
	})
}

func checkEscaped(t *testing.T, in, out string) {
	t.Helper()
	for i := 0; i < len(out); i++ {
		if out[i] < 0x20 || out[i] == 0x7f {
			t.Fatalf("Escape(%q) = %q contains control byte %#x", in, out, out[i])
		}
	}
	if !utf8.ValidString(out) {
		t.Fatalf("Escape(%q) = %q is not valid UTF-8", in, out)
	}
	for _, r := range out {
		if Hidden(r) {
			t.Fatalf("Escape(%q) = %q contains hidden rune %U", in, out, r)
		}
	}
	if back, err := unescapeForTest(out); err != nil || back != in {
		t.Fatalf("Escape(%q) = %q does not decode back (%q, %v)", in, out, back, err)
	}
}

// unescapeForTest inverts Escape.
func unescapeForTest(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", strconv.ErrSyntax
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			if i+n >= len(s) {
				return "", strconv.ErrSyntax
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", err
			}
			if s[i] == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += n
		default:
			return "", strconv.ErrSyntax
		}
	}
	return b.String(), nil
}

// TestEscapeLoose is scan's former Escape: the table escaped as Escape
// does, backslashes kept.
func TestEscapeLoose(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"ig\u200bnore", `ig\u200bnore`},
		{"a\u202eb\u2066c\u2069", `a\u202eb\u2066c\u2069`},
		{"\U000E0041\U000E0042", `\U000e0041\U000e0042`},
		{"line\nnext\ttab\r", `line\nnext\ttab\r`},
		{"esc\x1b[31m", `esc\x1b[31m`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"bom\ufeff", `bom\ufeff`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"emoji 👩\u200d💻 stays", `emoji 👩\u200d💻 stays`},
		{"日本語 é ü", "日本語 é ü"},
		{`C:\Users\me`, `C:\Users\me`},
		{"vs\ufe0f", `vs\ufe0f`},
		{"sep\u2028", `sep\u2028`},
	} {
		if got := EscapeLoose(tc.in); got != tc.want {
			t.Errorf("EscapeLoose(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !utf8.ValidString(EscapeLoose(tc.in)) {
			t.Errorf("EscapeLoose(%q) is not valid UTF-8", tc.in)
		}
	}
}
