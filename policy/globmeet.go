package policy

// Symbolic glob intersection: can a shell pattern (or the tree under a
// directory) name a path a forbid glob covers? Both sides are glob
// languages over path segments, so the question is whether two languages
// meet — decided on the patterns, never by listing the file system.
//
// The forbid side is a PathGlob alternative: '*', '?', "**" segments,
// '[' literal. The other side is what a shell would expand: '*', '?',
// '[…]' / '[!…]' classes, and bash's rule that a wildcard does not match a
// leading '.' (the attack spellings always write the dot: ~/.*, ~/.[a-z]sh).
// A recursive read adds a trailing "**" that does match dot files.

import (
	"strings"
	"unicode/utf8"
)

// meetBudget bounds the states one intersection explores; past it the
// answer is "they meet" (the safe reading for a forbid).
const meetBudget = 4096

type elemKind uint8

const (
	elLit   elemKind = iota
	elAny            // '?': one rune, not '/'
	elStar           // '*': any run of runes, not '/'
	elClass          // '[…]'
)

type runeRange struct{ lo, hi rune }

// pred is a set of runes: the ranges, or everything but them when neg.
type pred struct {
	neg    bool
	ranges []runeRange
}

func (p *pred) has(r rune) bool {
	in := false
	for _, rg := range p.ranges {
		if r >= rg.lo && r <= rg.hi {
			in = true
			break
		}
	}
	return in != p.neg
}

type elem struct {
	kind elemKind
	p    pred // for elLit (one range) and elClass
}

var slashPred = pred{neg: true, ranges: []runeRange{{'/', '/'}}}

// pred returns the runes one step of e can consume.
func (e *elem) pred() *pred {
	if e.kind == elAny || e.kind == elStar {
		return &slashPred
	}
	return &e.p
}

// segPat is one segment of a pattern; dot: a wildcard cannot match a
// leading '.' (shell semantics).
type segPat struct {
	deep  bool // "**": zero or more whole segments
	dot   bool
	elems []elem
}

// noLeadDot: under shell rules a name starting with '.' matches only a
// segment that starts with a literal '.' (fnmatch's FNM_PERIOD).
func (sp *segPat) noLeadDot() bool {
	if !sp.dot {
		return false
	}
	return len(sp.elems) == 0 || sp.elems[0].kind != elLit || !sp.elems[0].p.has('.')
}

// parseSeg compiles one segment. classes: '[…]' is a character class (the
// shell side); otherwise '[' is literal (PathGlob).
func parseSeg(s string, classes, dot bool) segPat {
	if s == "**" {
		return segPat{deep: true}
	}
	sp := segPat{dot: dot}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '*':
			if n := len(sp.elems); n == 0 || sp.elems[n-1].kind != elStar {
				sp.elems = append(sp.elems, elem{kind: elStar})
			}
			i++
			continue
		case c == '?':
			sp.elems = append(sp.elems, elem{kind: elAny})
			i++
			continue
		case c == '[' && classes:
			if e, n, ok := parseClass(s[i:]); ok {
				sp.elems = append(sp.elems, e)
				i += n
				continue
			}
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		sp.elems = append(sp.elems, elem{kind: elLit, p: pred{ranges: []runeRange{{r, r}}}})
		i += w
	}
	return sp
}

// parseClass reads a bracket expression at the start of s.
func parseClass(s string) (elem, int, bool) {
	i := 1
	e := elem{kind: elClass}
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		e.p.neg = true
		i++
	}
	first := true
	for i < len(s) {
		if s[i] == ']' && !first {
			if e.p.neg {
				e.p.ranges = append(e.p.ranges, runeRange{'/', '/'})
			}
			return e, i + 1, true
		}
		first = false
		lo, w := utf8.DecodeRuneInString(s[i:])
		i += w
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, w = utf8.DecodeRuneInString(s[i+1:])
			i += 1 + w
		}
		if hi < lo {
			lo, hi = hi, lo
		}
		e.p.ranges = append(e.p.ranges, runeRange{lo, hi})
	}
	return elem{}, 0, false
}

// splitPattern compiles a slash pattern into segments.
func splitPattern(p string, classes, dot bool) []segPat {
	var out []segPat
	for i := 0; ; {
		seg, next, ok := nextSegment(p, i)
		if !ok {
			return out
		}
		out = append(out, parseSeg(seg, classes, dot))
		i = next
	}
}

// overlap reports whether some rune other than '/' satisfies every
// predicate (and is not '.' when noDot). Exact for interval sets: a common
// rune, if any, is an endpoint of some range, next to one, or outside all.
func overlap(noDot bool, ps ...*pred) bool {
	try := func(r rune) bool {
		if r < 0 || r == '/' || (noDot && r == '.') || r > utf8.MaxRune {
			return false
		}
		for _, p := range ps {
			if !p.has(r) {
				return false
			}
		}
		return true
	}
	for _, r := range [...]rune{'a', 'x', '0', '_', 0xE000} {
		if try(r) {
			return true
		}
	}
	for _, p := range ps {
		for _, rg := range p.ranges {
			for _, r := range [...]rune{rg.lo, rg.hi, rg.lo - 1, rg.hi + 1} {
				if try(r) {
					return true
				}
			}
		}
	}
	return false
}

// segState is a position in both segments; started: a rune was consumed.
// aLit/bLit: a literal of a (of b) was consumed by the other side's
// wildcard. A meet where both happened is a crossing — `*.md` meets
// `id_rsa.*` only as id_rsa.md, each side's name supplied by the other's
// wildcard — and names nothing either side means; it does not count.
type segState struct {
	i, j       int
	started    bool
	aLit, bLit bool
}

// segsMeet reports whether segments a and b (neither "**") share a
// non-empty name.
func segsMeet(a, b *segPat, exact bool) bool {
	seen := make(map[segState]bool, 16)
	stack := []segState{{}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[st] {
			continue
		}
		seen[st] = true
		if len(seen) > meetBudget {
			return true
		}
		if st.i == len(a.elems) && st.j == len(b.elems) && st.started && (exact || !(st.aLit && st.bLit)) {
			return true
		}
		if st.i < len(a.elems) && a.elems[st.i].kind == elStar {
			stack = append(stack, segState{st.i + 1, st.j, st.started, st.aLit, st.bLit})
		}
		if st.j < len(b.elems) && b.elems[st.j].kind == elStar {
			stack = append(stack, segState{st.i, st.j + 1, st.started, st.aLit, st.bLit})
		}
		if st.i == len(a.elems) || st.j == len(b.elems) {
			continue
		}
		ea, eb := &a.elems[st.i], &b.elems[st.j]
		noDot := !st.started && (a.noLeadDot() || b.noLeadDot())
		if !overlap(noDot, ea.pred(), eb.pred()) {
			continue
		}
		ni, nj := st.i+1, st.j+1
		if ea.kind == elStar {
			ni = st.i
		}
		if eb.kind == elStar {
			nj = st.j
		}
		aLit := st.aLit || ea.kind == elLit && eb.kind != elLit
		bLit := st.bLit || eb.kind == elLit && ea.kind != elLit
		stack = append(stack, segState{ni, nj, true, aLit, bLit})
	}
	return false
}

// segsMeetAll runs the segment-sequence product: "**" on either side
// swallows whole segments of the other. As within a segment, a crossing
// does not count: once the pattern's "**" has swallowed a named segment of
// the forbid, the forbid's "**" may not swallow a named segment of the
// pattern (src/**/*.ts meets **/.ssh/** only as src/.ssh/x.ts).
func segsMeetAll(a, b []segPat, exact bool) bool {
	return segsMeetRoot(a, b, exact, -1)
}

// pureWild: a segment of wildcards only (*, ?), which names no place.
func (sp *segPat) pureWild() bool {
	if sp.deep {
		return true
	}
	for i := range sp.elems {
		if sp.elems[i].kind == elLit || sp.elems[i].kind == elClass {
			return false
		}
	}
	return true
}

// segsMeetRoot is segsMeetAll for a tree: root is the index in b of the
// tree's own directory. The forbid must name that directory — a literal,
// not a wildcard or "**" — or lie above it: a recursive read of
// ~/.config/nvim does not meet <root>/**/cookies merely because any
// directory could hold a file of that name, while one of ~/.config/gh
// meets **/gh/hosts.yml and one of ~ meets ~/.ssh/**.
func segsMeetRoot(a, b []segPat, exact bool, root int) bool {
	type st struct {
		i, j  int
		aSeg  bool // a named segment of a went into b's "**"
		cross bool
	}
	seen := make(map[st]bool, 16)
	stack := []st{{}}
	memo := map[[2]int]bool{}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] || s.cross && !exact {
			continue
		}
		seen[s] = true
		if len(seen) > meetBudget {
			return true
		}
		if s.i == len(a) && s.j == len(b) {
			return true
		}
		aDeep := s.i < len(a) && a[s.i].deep
		bDeep := s.j < len(b) && b[s.j].deep
		if aDeep {
			stack = append(stack, st{s.i + 1, s.j, s.aSeg, false})
			if s.j < len(b) && !(s.j == root && !exact) {
				stack = append(stack, st{s.i, s.j + 1, s.aSeg, s.aSeg && !bDeep})
			}
		}
		if bDeep {
			stack = append(stack, st{s.i, s.j + 1, s.aSeg, false})
			if s.i < len(a) {
				stack = append(stack, st{s.i + 1, s.j, s.aSeg || !aDeep, false})
			}
		}
		if aDeep || bDeep || s.i == len(a) || s.j == len(b) {
			continue
		}
		if s.j == root && !exact && a[s.i].pureWild() {
			continue
		}
		k := [2]int{s.i, s.j}
		ok, done := memo[k]
		if !done {
			ok = segsMeet(&a[s.i], &b[s.j], exact)
			memo[k] = ok
		}
		if ok {
			stack = append(stack, st{s.i + 1, s.j + 1, s.aSeg, false})
		}
	}
	return false
}

// GlobsMeet reports whether the brace-free PathGlob pattern forbid and
// the shell pattern pat can name the same path. pat uses shell rules
// ('[…]' classes, no wildcard match of a leading '.'); tree appends the
// everything-below "**" of a recursive read.
func GlobsMeet(forbid, pat string, tree bool) bool {
	a := splitPattern(forbid, false, false)
	b := splitPattern(pat, true, true)
	if tree {
		b = append(b, segPat{deep: true})
	}
	return segsMeetAll(a, b, false)
}

// globsMeetExact is the plain language intersection, crossings included:
// GlobsMeet implies it (the fuzz target holds both to a brute-force
// enumeration).
func globsMeetExact(forbid, pat string) bool {
	return segsMeetAll(splitPattern(forbid, false, false), splitPattern(pat, true, true), true)
}

// witnesses returns up to max concrete paths the shell pattern pat can
// name that the forbid glob also covers: the samples an except list is
// checked against (every sample excepted means the pattern names only
// excepted paths, such as ~/.ssh/*.pub).
func witnesses(a, b []segPat, max int) []string {
	var out []string
	var segs []string
	var walk func(i, j, depth int)
	walk = func(i, j, depth int) {
		if len(out) >= max || depth > 64 {
			return
		}
		if i == len(a) && j == len(b) {
			out = append(out, "/"+strings.Join(segs, "/"))
			return
		}
		if i < len(a) && a[i].deep {
			walk(i+1, j, depth+1)
			if j < len(b) && !b[j].deep {
				for _, w := range segWitnesses(&segPat{elems: []elem{{kind: elStar}}}, &b[j], 2) {
					segs = append(segs, w)
					walk(i, j+1, depth+1)
					segs = segs[:len(segs)-1]
				}
			} else if j < len(b) {
				walk(i, j+1, depth+1)
			}
			return
		}
		if j < len(b) && b[j].deep {
			walk(i, j+1, depth+1)
			if i < len(a) {
				for _, w := range segWitnesses(&a[i], &segPat{elems: []elem{{kind: elStar}}}, 2) {
					segs = append(segs, w)
					walk(i+1, j, depth+1)
					segs = segs[:len(segs)-1]
				}
			}
			return
		}
		if i == len(a) || j == len(b) {
			return
		}
		for _, w := range segWitnesses(&a[i], &b[j], 3) {
			segs = append(segs, w)
			walk(i+1, j+1, depth+1)
			segs = segs[:len(segs)-1]
		}
	}
	walk(0, 0, 0)
	return out
}

// segWitnesses returns up to max distinct names both segments match,
// shortest choices first, varying the runes a wildcard pair consumes.
func segWitnesses(a, b *segPat, max int) []string {
	var out []string
	var buf []rune
	seen := map[string]bool{}
	var walk func(st segState, budget int)
	walk = func(st segState, budget int) {
		if len(out) >= max || budget < 0 {
			return
		}
		if st.i == len(a.elems) && st.j == len(b.elems) && st.started {
			if s := string(buf); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
			return
		}
		if st.i < len(a.elems) && a.elems[st.i].kind == elStar {
			walk(segState{i: st.i + 1, j: st.j, started: st.started}, budget)
		}
		if st.j < len(b.elems) && b.elems[st.j].kind == elStar {
			walk(segState{i: st.i, j: st.j + 1, started: st.started}, budget)
		}
		if st.i == len(a.elems) || st.j == len(b.elems) {
			return
		}
		ea, eb := &a.elems[st.i], &b.elems[st.j]
		noDot := !st.started && (a.noLeadDot() || b.noLeadDot())
		ni, nj := st.i+1, st.j+1
		if ea.kind == elStar {
			ni = st.i
		}
		if eb.kind == elStar {
			nj = st.j
		}
		n := 0
		for _, r := range sampleRunes(noDot, ea.pred(), eb.pred()) {
			if n == 2 {
				break
			}
			n++
			buf = append(buf, r)
			walk(segState{i: ni, j: nj, started: true}, budget-1)
			buf = buf[:len(buf)-1]
		}
	}
	walk(segState{}, len(a.elems)+len(b.elems)+2)
	return out
}

// sampleRunes lists runes every predicate holds, in a stable order.
func sampleRunes(noDot bool, ps ...*pred) []rune {
	var out []rune
	try := func(r rune) {
		if r < 0 || r == '/' || (noDot && r == '.') || r > utf8.MaxRune {
			return
		}
		for _, p := range ps {
			if !p.has(r) {
				return
			}
		}
		for _, o := range out {
			if o == r {
				return
			}
		}
		out = append(out, r)
	}
	for _, p := range ps {
		for _, rg := range p.ranges {
			try(rg.lo)
			try(rg.hi)
			try(rg.lo - 1)
			try(rg.hi + 1)
		}
	}
	for _, r := range [...]rune{'a', 'x', '0', '_', 0xE000} {
		try(r)
	}
	return out
}
