// This file is derived from mvdan.cc/sh/v3/expand/braces.go,
// Copyright (c) 2018, Daniel Martí <mvdan@mvdan.cc>, BSD-3-Clause
// (the module's LICENSE); a rewrite of our own is left to do.

package shell

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// braces yields the words a word whose brace expressions
// syntax.SplitBraces has marked expands to, left to right, as bash does
// ({a,b}, {1..3}, {01..10..3}, {a..e}), and stops after limit words:
// more reports false, and the caller keeps the word unexpanded. It is
// mvdan.cc/sh's expand.BracesSeq with a cap (TestBracesAsMvdan and
// FuzzBraces hold the two together), except that a sequence stops at the
// ends of int64 where the expander wraps around; it is here so that the
// hook does not link the expander's package, whose initialisation (two
// regular expressions) every hook process would pay.
func braces(word *syntax.Word, limit int) (words []*syntax.Word, ok bool) {
	ok = bracesRec(word, func(w *syntax.Word) bool {
		if len(words) >= limit {
			return false
		}
		words = append(words, w)
		return true
	})
	return words, ok
}

// bracesRec yields each word with its first brace expression expanded and
// the rest expanded recursively; it returns false when yield stopped it.
func bracesRec(word *syntax.Word, yield func(*syntax.Word) bool) bool {
	var left []syntax.WordPart
	for i, wp := range word.Parts {
		br, ok := wp.(*syntax.BraceExp)
		if !ok {
			left = append(left, wp)
			continue
		}
		rest := word.Parts[i+1:]
		next := func(parts []syntax.WordPart) bool {
			return bracesRec(&syntax.Word{Parts: parts}, func(w *syntax.Word) bool {
				w.Parts = slices.Concat(left, w.Parts)
				return yield(w)
			})
		}
		if !br.Sequence {
			for _, elem := range br.Elems {
				if !next(slices.Concat(elem.Parts, rest)) {
					return false
				}
			}
			return true
		}
		return braceSeq(br, func(s string) bool {
			return next(append([]syntax.WordPart{&syntax.Lit{Value: s}}, rest...))
		})
	}
	return yield(&syntax.Word{Parts: left})
}

// braceSeq yields the values of a sequence {from..to[..step]}: numbers,
// zero-padded to the wider end when either end has a leading zero, or
// characters when an end is not a number (SplitBraces accepts only single
// letters there).
func braceSeq(br *syntax.BraceExp, yield func(string) bool) bool {
	fromLit, toLit := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(fromLit, 10, 64)
	to, err2 := strconv.ParseInt(toLit, 10, 64)
	chars := err1 != nil || err2 != nil
	if chars {
		if fromLit == "" || toLit == "" {
			return true
		}
		from, to = int64(fromLit[0]), int64(toLit[0])
	}
	width := 0
	if !chars && (leadingZero(fromLit) || leadingZero(toLit)) {
		width = max(len(fromLit), len(toLit))
	}
	step := int64(1)
	if len(br.Elems) > 2 {
		n, _ := strconv.ParseInt(br.Elems[2].Lit(), 10, 64)
		if n < 0 {
			n = -n
		}
		if n != 0 {
			step = n
		}
	}
	up := from <= to
	if !up {
		step = -step
	}
	for n := from; (up && n <= to) || (!up && n >= to); n += step {
		var s string
		switch {
		case chars:
			s = string(rune(n))
		case width > 0:
			s = padInt(n, width)
		default:
			s = strconv.FormatInt(n, 10)
		}
		if !yield(s) {
			return false
		}
		// the next step would overflow: the sequence ends here
		if (step > 0 && n > maxInt64-step) || (step < 0 && n < minInt64-step) {
			break
		}
	}
	return true
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// padInt is fmt's %0*d: the sign first, then zeros to width in all.
func padInt(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	if len(s) >= width {
		return s
	}
	if n < 0 {
		return "-" + strings.Repeat("0", width-len(s)) + s[1:]
	}
	return strings.Repeat("0", width-len(s)) + s
}
