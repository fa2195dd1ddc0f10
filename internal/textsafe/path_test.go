package textsafe

import (
	"strings"
	"testing"
)

// TestPathHidesNothing: a repository path in a message shows every
// character of the table as an escape, a Hangul filler (which
// strconv.Quote keeps, being a letter) included, and a plain path as it is.
func TestPathHidesNothing(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/repo/plain", "/repo/plain"},
		{"/repo/日本", "/repo/日本"},
		{"/repo/a\u3164b", `"/repo/a\u3164b"`},
		{"/repo/evil\u202etxt", `"/repo/evil\u202etxt"`},
		{"/repo/line\nforged", `"/repo/line\nforged"`},
		{"/repo/q\"uote\x1b", `"/repo/q\"uote\x1b"`},
		{"/repo/bad\xff", `"/repo/bad\xff"`},
	} {
		got := Path(tc.in)
		if got != tc.want {
			t.Errorf("Path(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsFunc(got, Hidden) {
			t.Errorf("Path(%q) = %q holds a hidden character", tc.in, got)
		}
	}
}
