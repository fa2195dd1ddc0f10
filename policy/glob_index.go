package policy

// The glob index: a path is matched against ~50 forbids of up to 30 globs
// each, and almost every glob names something a path must spell to match
// it — a literal segment (".ssh", ".bashrc", "profile.d") or, failing that,
// an extension the segment must end in ("*.pem"). Each brace-free
// alternative of a pattern carries the key of one such necessary piece,
// hashed to a bit; each folded path form carries the set of bits of all its
// segments and extensions (keys of a PathFact, computed once per call). An
// alternative whose bit is absent cannot match and is not tried; a rule
// none of whose bits is present is skipped whole. A bit present by a hash
// collision only costs a full match, which still decides: the index never
// changes an answer, only how many globs are tried (the differential tests
// and FuzzGlobIndex compare it with the plain scan).
//
// An alternative whose key is present is not yet matched: its shape is
// read first (altInfo, from the pattern once): how many segments a path
// needs, what its last segment must start and end with, and the literal
// segments it must start with. Each is a necessary condition of matchPath,
// read off the same segmentation, so a path that fails one cannot match;
// one that passes them all is matched in full. A Read of a workspace file
// used to meet ~17 alternatives in full (keys shared with "/tmp", "**/x.*"
// with no key at all); their shapes turn almost all of them away.
//
// The keys and shapes are static data for the built-in forbids
// (forbids_gen.go carries them like the patterns), so a hook process builds
// no table.

import "strings"

// keyBits is the size of a path's key set. With ~10 keys in a path, a
// keyed glob is tried by a collision about 2% of the time.
const keyBits = 512

// keyMask is a set of key bits.
type keyMask [keyBits / 64]uint64

// Key kinds: a whole segment, or what a segment ends in from its last '.'.
const (
	keySegment   = 's'
	keyExtension = 'e'
)

// keyOf hashes a key (FNV-1a) to a bit, 1-based: 0 means "no key".
func keyOf(kind byte, s string) uint16 {
	h := uint32(2166136261)
	h = (h ^ uint32(kind)) * 16777619
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return uint16(h%keyBits) + 1
}

func (m *keyMask) set(k uint16) {
	k--
	m[k>>6] |= 1 << (k & 63)
}

func (m *keyMask) has(k uint16) bool {
	k--
	return m[k>>6]&(1<<(k&63)) != 0
}

func (m *keyMask) intersects(o *keyMask) bool {
	for i := range m {
		if m[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// formIndex is what the index knows of one folded path form: its key set
// and its shape, computed once per call.
type formIndex struct {
	mask  keyMask
	base  string // the last segment ("" when there is none)
	segs  int    // segments, empty ones skipped
	clean bool   // starts with '/' and has no "//": its leading segments are a plain prefix
}

// formKeys indexes a slash path: every segment, and every segment's
// extension (from its last '.', so ".env" is its own extension), segmented
// as matchPath segments it (empty segments skipped).
func formKeys(p string) formIndex {
	fi := formIndex{clean: len(p) > 0 && p[0] == '/' && !strings.Contains(p, "//")}
	for i := 0; ; {
		seg, next, ok := nextSegment(p, i)
		if !ok {
			return fi
		}
		i = next
		fi.segs++
		fi.base = seg
		fi.mask.set(keyOf(keySegment, seg))
		if d := strings.LastIndexByte(seg, '.'); d >= 0 {
			fi.mask.set(keyOf(keyExtension, seg[d:]))
		}
	}
}

// altInfo is what one brace-free alternative needs of a path before it
// is matched in full (altInfoOf). Offsets index the alternative itself, so
// the built-in forbids carry it as a few numbers each.
type altInfo struct {
	key  uint16 // index key, 0: none
	segs uint16 // segments other than "**": a path has exactly as many (altDeep: at least)
	// alt[:head] is the leading wildcard-free segments, written "/a/b"
	// with no empty segment; 0: none or not so written
	head uint16
	// the last segment is alt[last:end]; with altLast, a path's last
	// segment starts with alt[last:pre] and ends with alt[suf:end]
	// (altLit: is alt[last:end])
	last, pre, suf, end uint16
	flags               uint8
}

const (
	altShaped uint8 = 1 << iota // segs and flags were read (the alternative is short enough)
	altDeep                     // a "**" segment
	altLast                     // the last segment is not "**"
	altLit                      // ... and has no wildcard
)

// maxShaped bounds the length of an alternative whose shape is kept in
// altInfo's offsets.
const maxShaped = 1<<16 - 1

// altInfoOf reads an alternative's key and shape. The key is its last
// literal segment (every segment other than "**" consumes exactly one path
// segment, and a literal one only an equal segment), else the extension of
// the literal its last such segment ends in (a segment that ends in "x.pem"
// after its last wildcard has the extension ".pem"), else 0.
func altInfoOf(alt string) altInfo {
	var ai altInfo
	lit, ext := "", ""
	shaped := len(alt) <= maxShaped
	headOpen := shaped && len(alt) > 0 && alt[0] == '/'
	segs := 0
	for i := 0; ; {
		seg, next, ok := nextSegment(alt, i)
		if !ok {
			break
		}
		start := next - len(seg)
		i = next
		if seg == "**" {
			ai.flags |= altDeep
			ai.flags &^= altLast | altLit
			headOpen = false
			continue
		}
		segs++
		ai.flags |= altLast
		ai.flags &^= altLit
		if shaped {
			ai.last, ai.end = uint16(start), uint16(next)
		}
		w := strings.LastIndexAny(seg, "*?")
		if w < 0 {
			lit = seg
			ai.flags |= altLit
			if headOpen && alt[start-1] == '/' && (start == 1 || alt[start-2] != '/') {
				ai.head = uint16(next)
			} else {
				headOpen = false
			}
			continue
		}
		headOpen = false
		if shaped {
			ai.pre = uint16(start + strings.IndexAny(seg, "*?"))
			ai.suf = uint16(start + w + 1)
		}
		if d := strings.LastIndexByte(seg[w+1:], '.'); d >= 0 {
			ext = seg[w+1+d:]
		}
	}
	switch {
	case lit != "":
		ai.key = keyOf(keySegment, lit)
	case ext != "":
		ai.key = keyOf(keyExtension, ext)
	}
	if shaped && segs <= maxShaped {
		ai.segs = uint16(segs)
		ai.flags |= altShaped
	} else {
		ai = altInfo{key: ai.key}
	}
	return ai
}

// altInfos returns the key and shape of each alternative.
func altInfos(alts []string) []altInfo {
	out := make([]altInfo, len(alts))
	for i, a := range alts {
		out[i] = altInfoOf(a)
	}
	return out
}

// admits reports whether a path with the index fi may match the
// alternative alt whose info is ai: false only when matchPath(alt, p)
// cannot hold.
func (ai *altInfo) admits(alt string, p string, fi *formIndex) bool {
	if ai.key != 0 && !fi.mask.has(ai.key) {
		return false
	}
	if ai.flags&altShaped == 0 {
		return true
	}
	if n := int(ai.segs); fi.segs < n || ai.flags&altDeep == 0 && fi.segs != n {
		return false
	}
	if ai.flags&altLast != 0 {
		b := fi.base
		if ai.flags&altLit != 0 {
			if b != alt[ai.last:ai.end] {
				return false
			}
		} else {
			pre, suf := alt[ai.last:ai.pre], alt[ai.suf:ai.end]
			if len(b) < len(pre)+len(suf) || b[:len(pre)] != pre || b[len(b)-len(suf):] != suf {
				return false
			}
		}
	}
	if h := int(ai.head); h > 0 && fi.clean {
		if len(p) < h || p[:h] != alt[:h] || len(p) > h && p[h] != '/' {
			return false
		}
	}
	return true
}

// matchKeyed is Match for a path p whose index is fi: alternatives it
// cannot meet are not tried.
func (pp *PathPattern) matchKeyed(p string, fi *formIndex) bool {
	if plainGlobScan {
		return pp.Match(p)
	}
	for i, a := range pp.alts {
		if i < len(pp.info) && !pp.info[i].admits(a, p, fi) && a != p {
			continue
		}
		if matchPath(a, p) {
			return true
		}
	}
	return false
}

// plainGlobScan turns the index off: every alternative is matched in
// full, and the forbids' loop meets every rule (factKinds passes none
// over). Only the differential tests set it, to decide the corpora both
// ways.
var plainGlobScan = false

// globIndex summarises a list of patterns: every key they carry, and
// whether each of their alternatives has one (only then can a path with
// none of the keys skip the list). The zero value skips nothing.
type globIndex struct {
	sum  keyMask
	full bool
}

func indexGlobs(globs []PathPattern) globIndex {
	ix := globIndex{full: len(globs) > 0}
	for i := range globs {
		g := &globs[i]
		for j := range g.alts {
			if j >= len(g.info) || g.info[j].key == 0 {
				ix.full = false
				continue
			}
			ix.sum.set(g.info[j].key)
		}
	}
	if !ix.full {
		ix.sum = keyMask{}
	}
	return ix
}

// skips reports whether no pattern of the list can match a path with the
// index fi.
func (ix *globIndex) skips(fi *formIndex) bool {
	return ix.full && !plainGlobScan && !ix.sum.intersects(&fi.mask)
}

func matchAnyKeyed(globs []PathPattern, p string, fi *formIndex) bool {
	for i := range globs {
		if globs[i].matchKeyed(p, fi) {
			return true
		}
	}
	return false
}

// setKeys computes the key sets of a fact's folded forms, once per call.
func (p *PathFact) setKeys() {
	p.keys[0] = formKeys(p.fold)
	p.keys[1] = formKeys(p.rfold)
	p.keyed = true
}
