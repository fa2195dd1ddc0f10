package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// braceWords parses src as one word, marks its braces as the analyzer
// does (syntax.SplitBraces) and returns the word, or nil when src is not
// one word with a brace expression.
func braceWords(t testing.TB, src string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	w := call.Args[1]
	if !syntax.SplitBraces(w) {
		return nil
	}
	return w
}

// printWords prints each word as the shell would write it.
func printWords(t testing.TB, ws []*syntax.Word) []string {
	t.Helper()
	var out []string
	pr := syntax.NewPrinter()
	for _, w := range ws {
		var b strings.Builder
		if err := pr.Print(&b, w); err != nil {
			t.Fatalf("print: %v", err)
		}
		out = append(out, b.String())
	}
	return out
}

// theirs is mvdan.cc/sh's expansion with the analyzer's cap: its words,
// or ok false past limit words.
func theirs(w *syntax.Word, limit int) ([]*syntax.Word, bool) {
	var ws []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(ws) >= limit {
			return ws, false
		}
		ws = append(ws, bw)
	}
	return ws, true
}

// TestBracesAsMvdan: the analyzer's own brace expansion gives the words
// mvdan.cc/sh's expander gives (the hook used it until it was replaced to
// keep the expander's package initialisation out of every hook process),
// and gives up past the cap as the analyzer did.
func TestBracesAsMvdan(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // the words, space-separated; "-" when past the cap
	}{
		{"{a,b}", "a b"},
		{"x{a,b}y", "xay xby"},
		{"{a,b}{c,d}", "ac ad bc bd"},
		{"{a,{b,c}}", "a b c"},
		{"{,a}", " a"},
		{"~/.ssh/{id_rsa,id_ed25519}", "~/.ssh/id_rsa ~/.ssh/id_ed25519"},
		{"/etc/{passwd,shadow}", "/etc/passwd /etc/shadow"},
		{"$HOME/{a,b}", "$HOME/a $HOME/b"},
		{`"q"{a,b}`, `"q"a "q"b`},
		{"{1..3}", "1 2 3"},
		{"{3..1}", "3 2 1"},
		{"{-2..2}", "-2 -1 0 1 2"},
		{"{01..03}", "01 02 03"},
		{"{-05..5..5}", "-05 000 005"},
		{"{1..10..4}", "1 5 9"},
		{"{10..1..-4}", "10 6 2"},
		{"{1..3..0}", "1 2 3"},
		{"{a..e}", "a b c d e"},
		{"{e..a..2}", "e c a"},
		{"f{1..2}{a,b}", "f1a f1b f2a f2b"},
		{"{1..64}", ""},                              // exactly at the cap: expanded (checked by count below)
		{"{1..65}", "-"},                             // past it: left unexpanded
		{"{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", "-"}, // 128 words
		{"{1..9223372036854775807}", "-"},
	} {
		w := braceWords(t, c.src)
		if w == nil {
			t.Fatalf("%q: not a brace word", c.src)
		}
		mine, ok := braces(w, maxBraceResults)
		w2 := braceWords(t, c.src)
		ref, refOK := theirs(w2, maxBraceResults)
		if ok != refOK {
			t.Fatalf("%q: ok %v, mvdan %v", c.src, ok, refOK)
		}
		got, exp := printWords(t, mine), printWords(t, ref)
		if ok && strings.Join(got, "\x00") != strings.Join(exp, "\x00") {
			t.Fatalf("%q: %q, mvdan %q", c.src, got, exp)
		}
		switch {
		case c.want == "-":
			if ok {
				t.Fatalf("%q: expanded %d words past the cap", c.src, len(got))
			}
		case c.want == "":
			if !ok || len(got) != maxBraceResults {
				t.Fatalf("%q: %d words (ok %v), want %d", c.src, len(got), ok, maxBraceResults)
			}
		case strings.Join(got, " ") != c.want:
			t.Fatalf("%q: %q, want %q", c.src, strings.Join(got, " "), c.want)
		}
	}
}

// TestBraceSeqEndsAtInt64: a sequence that reaches the end of int64 stops
// there (mvdan.cc/sh's expander wraps around and runs on to its cap).
func TestBraceSeqEndsAtInt64(t *testing.T) {
	w := braceWords(t, "{9223372036854775806..9223372036854775807}")
	ws, ok := braces(w, maxBraceResults)
	if got := strings.Join(printWords(t, ws), " "); !ok || got != "9223372036854775806 9223372036854775807" {
		t.Fatalf("got %q ok %v", got, ok)
	}
	w = braceWords(t, "{-9223372036854775807..-9223372036854775808}")
	ws, ok = braces(w, maxBraceResults)
	if got := strings.Join(printWords(t, ws), " "); !ok || got != "-9223372036854775807 -9223372036854775808" {
		t.Fatalf("got %q ok %v", got, ok)
	}
}

// FuzzBraces holds the analyzer's brace expansion to mvdan.cc/sh's for
// any word syntax.SplitBraces accepts, except a sequence that would run
// past the ends of int64 (where the expander wraps around).
func FuzzBraces(f *testing.F) {
	for _, s := range []string{"{a,b}", "x{1..3}y", "{01..10..3}", "{a..e}", "{a,{b,c}d}{1..2}", "{-3..3..2}", "{,}", "~/{a,b}/$x{c,d}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 200 {
			return
		}
		w := braceWords(t, src)
		if w == nil {
			return
		}
		huge := hugeSeq(w.Parts)
		if huge {
			return
		}
		mine, ok := braces(w, maxBraceResults)
		ref, refOK := theirs(braceWords(t, src), maxBraceResults)
		if ok != refOK {
			t.Fatalf("%q: ok %v, mvdan %v", src, ok, refOK)
		}
		if !ok {
			return
		}
		got, exp := printWords(t, mine), printWords(t, ref)
		if strings.Join(got, "\x00") != strings.Join(exp, "\x00") {
			t.Fatalf("%q: %q, mvdan %q", src, got, exp)
		}
	})
}

// hugeSeq reports a sequence with an end of 18 digits or more, one that
// could step past the ends of int64.
func hugeSeq(parts []syntax.WordPart) bool {
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		for _, e := range br.Elems {
			if br.Sequence && len(strings.TrimPrefix(e.Lit(), "-")) >= 18 || hugeSeq(e.Parts) {
				return true
			}
		}
	}
	return false
}
