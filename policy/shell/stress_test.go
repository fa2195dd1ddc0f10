package shell

import (
	"strings"
	"testing"
	"time"
)

// TestParseBudgets feeds hostile shapes and checks every call stays
// bounded in time and output.
func TestParseBudgets(t *testing.T) {
	save := recoverPanics
	recoverPanics = false
	defer func() { recoverPanics = save }()
	cases := []struct {
		name    string
		src     string
		tooDeep bool
	}{
		{"deep arithmetic parens", strings.Repeat("(", 5000) + "ls" + strings.Repeat(")", 5000), false},
		{"deep subshells", strings.Repeat("( ", 3000) + "ls" + strings.Repeat(" )", 3000), false},
		{"deep substitutions", strings.Repeat("$(", 2000) + "ls" + strings.Repeat(")", 2000), true},
		{"long pipeline", strings.Repeat("cat x | ", 20000) + "sh", true},
		{"many words", "echo " + strings.Repeat("a ", 100000), false},
		{"huge brace sequence", "echo {1..100000000}", false},
		{"brace product", "echo {1..100}{1..100}{1..100}", false},
		{"many braces", strings.Repeat("{a,b}", 40), false},
		{"deep sh -c", nestC(12, "id"), true},
		{"eval chain", strings.Repeat("eval ", 1000) + "id", true},
		{"many heredocs", strings.Repeat("cat <<E\nx\nE\n", 2000), false},
		{"deep blocks", strings.Repeat("{ ", 3000) + "ls;" + strings.Repeat(" }", 3000), false},
		{"deep if", strings.Repeat("if true; then ", 2000) + "ls" + strings.Repeat("; fi", 2000), false},
		{"long unparsed", strings.Repeat("cat 'x ", 20000), false},
		{"mutual recursion", "f(){ g; }; g(){ f; }; f", false},
		{"many functions", strings.Repeat("f(){ f; f; };", 500) + "f", false},
		{"function fan-out", "a(){ b; b; }; b(){ c; c; }; c(){ d; d; }; d(){ e; e; }; e(){ f; f; }; f(){ g; g; }; g(){ h; h; }; h(){ ls; ls; }; a", false},
		{"echo to sh chain", strings.Repeat("echo 'echo x' | sh | ", 2000) + "sh", true},
		{"loop product", "for a in 1 2 3 4; do for b in 1 2 3 4; do for c in 1 2 3 4; do for d in 1 2 3 4; do for e in 1 2 3 4; do for f in 1 2 3 4; do for g in 1 2 3 4; do ls; done; done; done; done; done; done; done", true},
		{"variable doubling", "a=x; " + strings.Repeat("a=$a$a$a$a; ", 40) + "echo $a", false},
		{"printf fan-out", "printf '%s%s%s%s' " + strings.Repeat("x ", 5000) + "| sh", false},
	}
	for _, tc := range cases {
		st := time.Now()
		r := Parse(tc.src, testCwd, testHome, testUser)
		if d := time.Since(st); d > 5*time.Second {
			t.Errorf("%s took %v", tc.name, d)
		}
		if r.TooDeep != tc.tooDeep {
			t.Errorf("%s: TooDeep = %v, want %v", tc.name, r.TooDeep, tc.tooDeep)
		}
		if len(r.Commands) > maxCommands {
			t.Errorf("%s: %d commands", tc.name, len(r.Commands))
		}
		for _, c := range r.Commands {
			for _, a := range c.Argv {
				if len(a) > maxWord {
					t.Fatalf("%s: word of %d bytes", tc.name, len(a))
				}
			}
		}
	}
}
