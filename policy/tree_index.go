package policy

// The tree check's view of a matcher's forbid globs, compiled once: a
// recursive read (Grep of a directory, tar, cp -r) meets a forbid when the
// place the forbid names lies under the tree (match_shapes.go). Before the
// full check, which parses both patterns, a cheap necessary condition
// (mayMeetTree) skips the alternatives that cannot meet: the tree must hold
// the alternative's literal start, or lie under it with a later segment
// naming the tree's own directory. Read per call, that condition scanned
// every alternative of every forbid once per home a leading "**" stands
// for (about 5,000 scans, 0.85 ms a Grep). Compiled, the literal starts
// and later segments are cut once per matcher, the homes are compared with
// the tree once per call, and the "**/" alternatives that name a segment
// are found by the segment: a Grep of a workspace directory tries only the
// few alternatives that name its last segment.

import (
	"path"
	"strings"
	"sync"
	"sync/atomic"
)

// treeStart is the literal start of a slash pattern (a forbid
// alternative, or a home a leading "**" stands for) and the segments from
// its first wildcard one on, which are what may name a tree's directory.
type treeStart struct {
	always bool     // not absolute: no literal start to compare
	drive  bool     // a Windows drive ("c:/…")
	lit    string   // the literal start, e.g. "/home/dev" or "/home"
	after  []string // the segments from the first wildcard one on
}

func startOf(a string) treeStart {
	if len(a) > 2 && a[1] == ':' && a[2] == '/' {
		return treeStart{drive: true}
	}
	if !strings.HasPrefix(a, "/") {
		return treeStart{always: true}
	}
	var s treeStart
	lit, inLit := 0, true
	for i := 0; i < len(a); {
		j := strings.IndexByte(a[i:], '/')
		if j < 0 {
			j = len(a)
		} else {
			j += i
		}
		if sg := a[i:j]; sg != "" {
			if inLit && !isWildSeg(sg) {
				lit = j
			} else {
				inLit = false
				s.after = append(s.after, sg)
			}
		}
		i = j + 1
	}
	s.lit = a[:lit]
	return s
}

func isWildSeg(sg string) bool { return strings.ContainsAny(sg, "*?[{\\") }

// segNames: the pattern segment sg may name the directory last. A partial
// wildcard ("*.d") is asked of path.Match; one it cannot read names it.
func segNames(sg, last string) bool {
	switch {
	case sg == last:
		return true
	case sg == "*" || sg == "**" || !isWildSeg(sg):
		return false
	}
	ok, err := path.Match(sg, last)
	return ok || err != nil
}

func namesAny(segs []string, last string) bool {
	for _, sg := range segs {
		if segNames(sg, last) {
			return true
		}
	}
	return false
}

// treeMeet is what a literal start says of a tree: apart, meets, or meets
// only if a later segment names the tree's directory.
type treeMeet uint8

const (
	meetNo treeMeet = iota
	meetYes
	meetIfNamed
)

// treeView is the tree of a recursive read as the prefilter reads it:
// the directory t (a folded form) without its trailing '/', and its last
// segment. glob: t is itself a pattern (any doubt meets).
type treeView struct {
	t, tt, last string
	glob        bool
}

func viewOf(t string, glob bool) treeView {
	tt := strings.TrimSuffix(t, "/")
	return treeView{t: t, tt: tt, last: tt[strings.LastIndexByte(tt, '/')+1:], glob: glob}
}

func (v *treeView) meet(s *treeStart) treeMeet {
	switch {
	case s.drive:
		// a Windows drive: apart from a Unix tree below the root
		if v.glob || !strings.HasPrefix(v.t, "/") || v.tt == "" {
			return meetYes
		}
		return meetNo
	case v.glob || s.always || v.tt == "":
		return meetYes
	case v.tt == s.lit || s.lit == "" || below(s.lit, v.tt):
		return meetYes // the tree holds the literal start
	case !below(v.tt, s.lit):
		return meetNo
	}
	return meetIfNamed
}

// below: p lies strictly under the directory dir.
func below(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// mayMeetTree is a cheap necessary condition for the forbid alternative
// head + "/**/" + rest (rest alone when head is "") to meet the tree at the
// literal directory t (segsMeetRoot decides when it holds): the literal
// start of the alternative must lie in the tree or above it, and when t is
// deeper, the alternative must name t's own directory by a later segment,
// since a forbid's wildcards may not stand for the tree's root. Any doubt
// (t is a pattern, a relative alternative, a segment that is a wildcard
// but not a whole "*" or "**") answers true. The matchers' compiled form
// (treeAlts) answers the same for every alternative at once.
func mayMeetTree(head, rest, t string, tGlob bool) bool {
	v := viewOf(t, tGlob)
	if head == "" {
		s := startOf(rest)
		return v.admits(&s)
	}
	s := startOf(head)
	switch v.meet(&s) {
	case meetNo:
		return false
	case meetYes:
		return true
	}
	return v.headNames(&s) || namesAny(segmentsOf(rest), v.last)
}

// admits: the alternative whose start is s may meet the tree.
func (v *treeView) admits(s *treeStart) bool {
	switch v.meet(s) {
	case meetNo:
		return false
	case meetYes:
		return true
	}
	return namesAny(s.after, v.last)
}

// headNames: a home's own wildcards, or the "**" after it, name the tree's
// directory.
func (v *treeView) headNames(s *treeStart) bool {
	return v.last == "**" || namesAny(s.after, v.last)
}

func segmentsOf(p string) []string {
	var out []string
	for i := 0; ; {
		seg, next, ok := nextSegment(p, i)
		if !ok {
			return out
		}
		out = append(out, seg)
		i = next
	}
}

// treeAlts is a matcher's globs compiled for the tree check.
type treeAlts struct {
	plain []plainAlt // alternatives without a leading "**/"
	lead  []string   // what follows the "**/" of the others
	// named: segment → the lead alternatives whose rest has it, as
	// written (a "*" names only a directory called "*"); wild: their
	// partial wildcard segments, asked per call.
	named map[string][]int32
	wild  []wildAlt
}

type plainAlt struct {
	alt   string
	start treeStart
}

type wildAlt struct {
	seg string
	alt int32
}

func compileTreeAlts(globs []PathPattern) *treeAlts {
	ta := &treeAlts{}
	for i := range globs {
		for _, alt := range globs[i].alts {
			rest, lead := strings.CutPrefix(alt, "**/")
			if !lead {
				ta.plain = append(ta.plain, plainAlt{alt: alt, start: startOf(alt)})
				continue
			}
			k := int32(len(ta.lead))
			ta.lead = append(ta.lead, rest)
			for _, sg := range segmentsOf(rest) {
				if ta.named == nil {
					ta.named = map[string][]int32{}
				}
				if n := ta.named[sg]; len(n) == 0 || n[len(n)-1] != k {
					ta.named[sg] = append(n, k)
				}
				if isWildSeg(sg) && sg != "*" && sg != "**" {
					ta.wild = append(ta.wild, wildAlt{seg: sg, alt: k})
				}
			}
		}
	}
	return ta
}

// namedLeads appends the lead alternatives that may name the directory
// last by a segment of their rest.
func (ta *treeAlts) namedLeads(dst []int32, last string) []int32 {
	dst = append(dst, ta.named[last]...)
	for _, w := range ta.wild {
		if segNames(w.seg, last) {
			dst = append(dst, w.alt)
		}
	}
	return dst
}

// treeCacheMax bounds the matchers whose compiled form is kept: a process
// that loads policies without end (a test binary) compiles the rest per
// call, as before, instead of growing.
const treeCacheMax = 4096

var treeCache struct {
	m sync.Map // treeKey → *treeAlts
	n atomic.Int32
}

// treeKey names a matcher's globs by their backing array: the built-in
// forbids' globs are static data, shared by every load and by the copies
// a load makes to add its own exceptions.
type treeKey struct {
	first *PathPattern
	n     int
}

// treeAlts returns the compiled form of m's globs.
func (m *pathMatcher) treeAlts() *treeAlts {
	if len(m.globs) == 0 {
		return &treeAlts{}
	}
	k := treeKey{&m.globs[0], len(m.globs)}
	if v, ok := treeCache.m.Load(k); ok {
		return v.(*treeAlts)
	}
	ta := compileTreeAlts(m.globs)
	if treeCache.n.Add(1) <= treeCacheMax {
		treeCache.m.Store(k, ta)
	}
	return ta
}

// homeStarts are the starts of otherHomes, cut once.
var homeStarts = sync.OnceValue(func() []treeStart {
	s := make([]treeStart, len(otherHomes))
	for i, h := range otherHomes {
		s[i] = startOf(h)
	}
	return s
})

// denyTree decides a Tree fact in the folded form form against the
// matcher's globs (not its first check, which match_shapes.go makes): does
// an alternative that passes the prefilter meet the tree outside the
// exceptions? b, the tree's segments, is parsed only when one passes.
func (m *pathMatcher) denyTree(p *PathFact, form string) bool {
	ta := m.treeAlts()
	v := viewOf(form, p.Glob)
	var b []segPat
	root := -1
	meets := func(alt string) bool {
		if b == nil {
			b = splitPattern(form, p.Glob, p.Glob && !p.search)
			root = len(b) - 1
			b = append(b, segPat{deep: true})
		}
		return m.meetsOutsideExcept(alt, b, root)
	}
	for i := range ta.plain {
		if a := &ta.plain[i]; v.admits(&a.start) && meets(a.alt) {
			return true
		}
	}
	if len(ta.lead) == 0 {
		return false
	}
	var buf [16]int32
	var named []int32
	namedDone := false
	homes := homeStarts()
	for k := -1; k < len(otherHomes); k++ {
		var h string
		var s treeStart
		if k < 0 {
			if p.home == "" {
				continue
			}
			h = strings.TrimSuffix(p.home, "/")
			s = startOf(h)
		} else {
			h, s = otherHomes[k], homes[k]
		}
		all := false
		switch v.meet(&s) {
		case meetNo:
			continue
		case meetYes:
			all = true
		default:
			all = v.headNames(&s)
		}
		if all {
			for _, rest := range ta.lead {
				if meets(h + "/**/" + rest) {
					return true
				}
			}
			continue
		}
		if !namedDone {
			named, namedDone = ta.namedLeads(buf[:0], v.last), true
		}
		for _, i := range named {
			if meets(h + "/**/" + ta.lead[i]) {
				return true
			}
		}
	}
	return false
}
