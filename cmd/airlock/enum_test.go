package main

import "testing"

func TestOneOf(t *testing.T) {
	cases := []struct {
		got, want, suggest string
	}{
		{"block", "block", ""},
		{"BLOCK", "block", ""},
		{"blocked", "", "block"},
		{"alow", "", "allow"},
		{"as", "", "ask"},
		{"stop", "", "stopped"},
		{"xyzzy", "", ""},
		{"", "", ""},
		{"b", "", ""},
		{"blokc", "", "block"},
	}
	for _, tc := range cases {
		v, err := oneOf("decision", tc.got, decisionValues...)
		if v != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("oneOf(%q) = %q, %v; want %q", tc.got, v, err, tc.want)
		}
		if s := nearestValue(tc.got, decisionValues); tc.want == "" && s != tc.suggest {
			t.Errorf("nearestValue(%q) = %q, want %q", tc.got, s, tc.suggest)
		}
	}
}
