package main

import "testing"

// TestShownHidesNothing: a command-line word an error names is quoted
// with every hidden character escaped, a Hangul filler (which
// strconv.Quote keeps) and a no-break space among them.
func TestShownHidesNothing(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"日本", "日本"},
		{"two words", `"two words"`},
		{"fil\u3164ler", `"fil\u3164ler"`},
		{"no\u00a0break", `"no\u00a0break"`},
		{"esc\x1b[2J", `"esc\x1b[2J"`},
		{"zw\u200bsp", `"zw\u200bsp"`},
	} {
		if got := shown(tc.in); got != tc.want {
			t.Errorf("shown(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
