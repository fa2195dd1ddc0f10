package textsafe

import (
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"日本語", 4, "日…"}, // a cut inside 本 backs up to its start
		{"日本語", 3, "日…"},
		{"日本語", 2, "…"},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
		{"\xff\xfe\xfd", 1, "\xff…"},
	} {
		got := Cut(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q split a rune", tc.in, tc.n, got)
		}
	}
}

func TestCutRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "ab…"},
		{"日本語です", 3, "日本…"},
		{"ab", 1, "…"},
		{"ab", 0, ""},
		{"", 0, ""},
	} {
		if got := CutRunes(tc.in, tc.n); got != tc.want {
			t.Errorf("CutRunes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// FuzzCut: Cut never grows a text by more than the mark, never splits a
// rune of valid text, and keeps a prefix.
func FuzzCut(f *testing.F) {
	f.Add("日本語", 4)
	f.Add("a\u200bb", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		got := Cut(s, n)
		if len(s) <= n {
			if got != s {
				t.Fatalf("Cut(%q, %d) = %q changed a short text", s, n, got)
			}
			return
		}
		body := got[:len(got)-len("…")]
		if len(body) > max(n, 0) || s[:len(body)] != body {
			t.Fatalf("Cut(%q, %d) = %q", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q split a rune", s, n, got)
		}
	})
}
