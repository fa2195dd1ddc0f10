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
// The keys are static data for the built-in forbids (forbids_gen.go
// carries them like the patterns), so a hook process builds no table.

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

// formKeys is the key set of a slash path: every segment, and every
// segment's extension (from its last '.', so ".env" is its own extension),
// segmented as matchPath segments it (empty segments skipped).
func formKeys(p string) keyMask {
	var m keyMask
	for i := 0; ; {
		seg, next, ok := nextSegment(p, i)
		if !ok {
			return m
		}
		i = next
		m.set(keyOf(keySegment, seg))
		if d := strings.LastIndexByte(seg, '.'); d >= 0 {
			m.set(keyOf(keyExtension, seg[d:]))
		}
	}
}

// altKey is the key of one brace-free pattern, or 0 when it has none: its
// last literal segment (every segment other than "**" consumes exactly one
// path segment, and a literal one only an equal segment), else the
// extension of the literal its last such segment ends in (a segment that
// ends in "x.pem" after its last wildcard has the extension ".pem").
func altKey(alt string) uint16 {
	lit, ext := "", ""
	for i := 0; ; {
		seg, next, ok := nextSegment(alt, i)
		if !ok {
			break
		}
		i = next
		if seg == "**" {
			continue
		}
		w := strings.LastIndexAny(seg, "*?")
		if w < 0 {
			lit = seg
			continue
		}
		if d := strings.LastIndexByte(seg[w+1:], '.'); d >= 0 {
			ext = seg[w+1+d:]
		}
	}
	switch {
	case lit != "":
		return keyOf(keySegment, lit)
	case ext != "":
		return keyOf(keyExtension, ext)
	}
	return 0
}

// altKeys returns the key of each alternative, or nil when none has one.
func altKeys(alts []string) []uint16 {
	var keys []uint16
	for i, a := range alts {
		k := altKey(a)
		if k == 0 {
			continue
		}
		if keys == nil {
			keys = make([]uint16, len(alts))
		}
		keys[i] = k
	}
	return keys
}

// matchKeyed is Match for a path whose key set is m: alternatives whose
// key is not in it are not tried.
func (pp *PathPattern) matchKeyed(p string, m *keyMask) bool {
	for i, a := range pp.alts {
		if i < len(pp.keys) && pp.keys[i] != 0 && !m.has(pp.keys[i]) {
			continue
		}
		if matchPath(a, p) {
			return true
		}
	}
	return false
}

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
			if j >= len(g.keys) || g.keys[j] == 0 {
				ix.full = false
				continue
			}
			ix.sum.set(g.keys[j])
		}
	}
	if !ix.full {
		ix.sum = keyMask{}
	}
	return ix
}

// skips reports whether no pattern of the list can match a path with the
// key set m.
func (ix *globIndex) skips(m *keyMask) bool {
	return ix.full && !ix.sum.intersects(m)
}

func matchAnyKeyed(globs []PathPattern, p string, m *keyMask) bool {
	for i := range globs {
		if globs[i].matchKeyed(p, m) {
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
