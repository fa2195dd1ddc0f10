package yamldoc

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestLoadErrorFormat: one line per problem, FILE:LINE: MESSAGE: FIX,
// sorted by line, the file as a whole without a line, and a file name
// that would print a control character quoted.
func TestLoadErrorFormat(t *testing.T) {
	p := Problems{File: "policy.yaml"}
	p.AddFix(7, `did you mean "action"?`, "unknown key %q in %s", "acton", "a rule")
	p.Add(0, "the file is empty")
	p.Add(3, "mode: %v", errors.New("bad"))
	err := p.Err()
	var le *LoadError
	if !errors.As(err, &le) || le.File != "policy.yaml" || len(le.Problems) != 3 {
		t.Fatalf("not a *LoadError of three problems: %#v", err)
	}
	want := "policy.yaml: the file is empty\n" +
		"policy.yaml:3: mode: bad\n" +
		`policy.yaml:7: unknown key "acton" in a rule: did you mean "action"?`
	if got := err.Error(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	forged := (&LoadError{File: "/repo/x\n/etc/passwd:1", Problems: []problem{{Line: 1, Msg: "m"}}}).Error()
	if strings.Contains(forged, "\n") || !strings.HasPrefix(forged, `"/repo/x\n/etc/passwd:1":1: m`) {
		t.Fatalf("a file name forged a line: %q", forged)
	}
	if (&Problems{File: "f"}).Err() != nil {
		t.Fatal("no problem is an error")
	}
}

// TestProblemsBoundAndEscape: what a message quotes from the file is cut
// and escaped, and a file of many problems lists MaxShown and a count.
func TestProblemsBoundAndEscape(t *testing.T) {
	p := Problems{File: "f"}
	p.Add(1, "value %q", "\x1b]0;pwned\a"+strings.Repeat("x", 1000))
	p.AddProblem(problem{Line: 2, Msg: "raw \x1b[2J", Fix: "fix \u202e"})
	for i := range 30 {
		p.Add(10+i, "problem %d", i)
	}
	le := new(LoadError)
	if !errors.As(p.Err(), &le) {
		t.Fatal("not a LoadError")
	}
	if len(le.Problems) != MaxShown+1 || le.Problems[MaxShown].Msg != fmt.Sprintf("and %d more problems from here on: fix these first", 32-MaxShown) {
		t.Fatalf("%d problems listed, last %q", len(le.Problems), le.Problems[len(le.Problems)-1].Msg)
	}
	msg := le.Error()
	if strings.ContainsAny(msg, "\x1b\a\u202e") {
		t.Fatalf("a control character reached the message: %q", msg)
	}
	if l := len(le.Problems[0].Msg); l > 2*MaxQuoted {
		t.Fatalf("a quoted value of %d bytes", l)
	}
	if p.Len() != 32 {
		t.Fatalf("Len = %d", p.Len())
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"id", "tool", "path", "action", "reason"}
	for _, tc := range []struct{ in, want string }{
		{"acton", "action"},
		{"ACTION", "action"},
		{"aciton", "action"}, // a transposition is one edit
		{"toool", "tool"},
		{"resaon", "reason"},
		{"xyzzy", ""},
	} {
		if got := Suggest(tc.in, known); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"scna", "scan", 1}, {"", "abc", 3}, {"日本", "日木", 1}, {"kitten", "sitting", 3}} {
		if d := Distance(tc.a, tc.b); d != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("tols: [x]\nzzzzzz: 1\nenforced: true\n"), &doc); err != nil {
		t.Fatal(err)
	}
	p := Problems{File: "contracts.yaml"}
	UnknownKeys(doc.Content[0], []string{"enforced", "tools"}, `the contract for "fs"`, &p)
	want := `contracts.yaml:1: unknown key "tols" in the contract for "fs": did you mean "tools"?` + "\n" +
		`contracts.yaml:2: unknown key "zzzzzz" in the contract for "fs": known keys are enforced, tools`
	if err := p.Err(); err == nil || err.Error() != want {
		t.Fatalf("got:\n%v\nwant:\n%s", err, want)
	}
}

// TestParseNamesTheColumn: a problem at a key carries the key's column
// for a program that reads the error; the message names the line alone.
func TestParseNamesTheColumn(t *testing.T) {
	_, probs := Parse([]byte("rules:\n  - id: a\n    id: b\n"))
	if len(probs) != 1 || probs[0].Line != 3 || probs[0].Column != 5 {
		t.Fatalf("problems %+v, want one at line 3, column 5", probs)
	}
}
