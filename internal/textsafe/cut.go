package textsafe

import "unicode/utf8"

// Cut shortens s to at most n bytes on a rune boundary, marking a cut with
// "…" (so the result may be up to n+3 bytes): for a piece of a file or a
// record a message quotes. Cut a text before escaping it and no escape is
// split; after, and n bounds what is shown.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// CutRunes shortens s to at most n runes, the "…" that marks a cut among
// them: for a field of fixed width (a notification's title, a finding's
// match). n <= 0 gives "".
func CutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}
