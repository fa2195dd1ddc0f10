package scan

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
)

// mayCarry is the cheap pass: false when s cannot hold anything
// ReadResult acts on. One table-driven pass folds ASCII the way the
// engine does where it matters (case, emphasis, line breaks and runs of
// spaces); the needles' first three bytes are looked up as it goes, and
// the needles themselves in the folded copy where those were seen. Long
// stretches without a break are then read for base64 that decodes to
// text.
func mayCarry(s string) bool { return cheapPass(s, false) }

// QuietJSON reports that the content of a JSON string literal (between
// its quotes, escapes as written) holds nothing ReadResult acts on, so a
// caller holding the raw JSON need not decode it to find out. The common
// escapes are read as what they stand for; \u, \b and \f (which can spell
// hidden or control characters) are not quiet.
func QuietJSON(inner string) bool { return !cheapPass(inner, true) }

// cheapPass folds s into a copy (foldCheap), then looks the needles up in it
// (needles.find). Two short loops, each with its few values in
// registers, cost less than one that does both: in one, the long path's
// values are spilled around every byte.
func cheapPass(s string, json bool) bool {
	if activeFeed.Load() != nil {
		// a feed can add indicators and raise them: their anchors are
		// not among the needles, so every text is read whole
		return true
	}
	buf := lowerPool.Get().(*[]byte)
	defer lowerPool.Put(buf)
	if cap(*buf) < len(s)+quadPad {
		*buf = make([]byte, len(s)+quadPad) // the folded copy is never longer than s
	}
	lower, stop := foldCheap(s, (*buf)[:len(s)+quadPad], json)
	if stop {
		return true
	}
	n := len(lower)
	p := lower[:n+quadPad]
	clear(p[n:])
	found := resultNeedleSet().find(p, n)
	switch {
	case found&(hitNeedle|hitExec) != 0:
		return true
	case found&hitUser != 0 && containsAny(lower, concealNeedles):
		return true
	case found&hitEvalCall != 0 && containsAny(lower, evalWith):
		return true
	case found&hitSecret != 0 && (found&hitCollector != 0 || mayExfil(lower)):
		return true
	case found&hitCollector != 0 && containsAny(lower, secretAny):
		return true
	}
	return false
}

// mayExfil reports whether the folded text t may hold what an
// exfiltration indicator needs (other than a collector's host, which is
// a needle): asked only where a credential's needle was seen, since a
// credential named with somewhere to send it is what makes an attack.
func mayExfil(t []byte) bool {
	switch {
	case containsAny(t, exfilWith):
		return true
	case containsAny(t, sendVerbs) && bytes.Contains(t, []byte(" to ")):
		return true // exfil.send: a verb, " to ", a destination
	case bytes.Contains(t, []byte("http")) && containsAny(t, placeholders):
		return true // exfil.payload: a URL with a slot for the data
	case bytes.Contains(t, []byte("cc")) && bytes.IndexByte(t, '@') >= 0:
		return true // exfil.email: bcc or cc with an address
	}
	return false
}

// foldCheap writes s folded into lower (as long as s) and returns the part
// written, or stop when s holds what the cheap pass does not read (hidden
// characters, look-alikes, control sequences, \u in JSON) or base64 that
// decodes to text. Most bytes (letters, digits, punctuation) take the
// short path, one table load; the rest (white space, emphasis, entities,
// escapes) take the long one, which is also the only place a base64 run
// can end: a run of minBase64 bytes lies inside a stretch between two of
// them, so only such stretches are read for runs (base64Text).
func foldCheap(s string, lower []byte, json bool) (_ []byte, stop bool) {
	short := &shortText
	if json {
		short = &shortJSON
	}
	n := 0   // bytes of lower written
	seg := 0 // where the stretch since the last byte that ends a base64 run starts
	for i := 0; i < len(s); i++ {
		m := short[s[i]]
		if m > ' ' {
			lower[n] = m
			n++
			continue
		}
		at, ends := i, true
		if m == 0 {
			if json && s[i] == '\\' && i+1 < len(s) && jsonSpace[s[i+1]] {
				m = ' ' // \n, \t, \r: the commonest long byte of a file's text
				i++
			} else if m, i, ends = longByte(s, i, json); m < 3 {
				if m == classStop {
					return nil, true
				}
				if !ends {
					continue
				}
				m = 0
			}
		}
		if ends {
			if at-seg >= minBase64 && base64Text(s[seg:at], json) {
				return nil, true
			}
			seg = i + 1
		}
		if m == 0 || m == ' ' && n > 0 && lower[n-1] == ' ' {
			continue
		}
		lower[n] = m
		n++
	}
	if len(s)-seg >= minBase64 && base64Text(s[seg:], json) {
		return nil, true
	}
	return lower[:n], false
}

// longByte is the cheap pass's long path at s[i]: the byte it folds to
// (or classSkip, classStop), the index of the last byte it read, and
// whether it ends a base64 run. Kept out of the loop, which runs on
// every byte.
//
//go:noinline
func longByte(s string, i int, json bool) (m byte, last int, ends bool) {
	c := s[i]
	if json && c == '\\' && i+1 < len(s) {
		i++
		switch s[i] {
		case 'n', 't', 'r':
			c = ' '
		case '"', '\\', '/':
			c = s[i]
		default: // \u, \b, \f
			return classStop, i, true
		}
	}
	ends = b64Mask[c] == 0
	if m = foldClass[c]; m == classAmp {
		// an entity folds to the character it spells
		var k int
		m, k = ampFold(s[i:])
		i += k
	}
	return m, i, ends
}

// ampFold is what the cheap pass reads at an '&': the character an entity
// spells, and how many bytes more it takes; kept out of the loop, which
// runs on every byte.
//
//go:noinline
func ampFold(s string) (byte, int) {
	r, n := entity(s)
	if n == 0 {
		return '&', 0
	}
	if m := foldClass[byte(r)]; m >= 3 || m == classSkip {
		// an entity for '_' or '*' folds away as the character does
		return m, n - 1
	}
	return byte(r), n - 1
}

// containsAny reports whether t holds one of ns.
func containsAny(t []byte, ns []string) bool {
	for _, n := range ns {
		if bytes.Contains(t, []byte(n)) {
			return true
		}
	}
	return false
}

var lowerPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// foldClass maps a byte to what mayCarry's copy holds: itself in lower
// case, a space for white space and quote markers, or one of the classes.
const (
	classSkip byte = 0
	classStop byte = 1
	classAmp  byte = 2
)

var foldClass, b64Mask = func() (f [256]byte, b [256]int) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80, c < 0x20 && c != '\n' && c != '\t' && c != '\r', c == 0x7f:
			f[c] = classStop
		case c == '*' || c == '_':
			f[c] = classSkip // emphasis folds away: "**ignore** all", "ignore_all"
		case c == '&':
			f[c] = classAmp
		case c == '\n' || c == '\t' || c == '\r' || c == '>' || c == ' ':
			f[c] = ' ' // a quote marker or a line break between two words
		case 'A' <= c && c <= 'Z':
			f[c] = byte(c) + 'a' - 'A'
		default:
			f[c] = byte(c)
		}
		if isB64(byte(c)) {
			b[c] = -1
		}
	}
	return f, b
}()

// jsonSpace are the escapes that stand for white space.
var jsonSpace = [256]bool{'n': true, 't': true, 'r': true}

// shortText and shortJSON are the cheap pass's short path: the folded
// byte, or 0 for a byte the long path reads (a class, white space, and in
// JSON the backslash of an escape).
var shortText, shortJSON = func() (t, j [256]byte) {
	for c := range 256 {
		if m := foldClass[c]; m >= 3 {
			t[c], j[c] = m, m
		}
	}
	j['\\'] = 0
	return t, j
}()

// needleSet finds any of a set of lower-case needles (each at least three
// bytes) in a folded text. Every four bytes starting at an even offset
// are hashed (quad): a needle of five bytes or more holds the four at its
// start or the four after it, one of them at an even offset, so a set
// keyed by both finds it reading every other position. A needle of three
// or four bytes is keyed by each four its own and one neighbour make (the
// byte before it, or after it: any byte the fold writes, or the padding
// after the text). A bit of the bitmap says whether a key is a needle's;
// only there are they compared.
type needleSet struct {
	bits    [1 << keyBits / 64]uint64
	bucket  [257]uint16 // the entries whose key's high byte is b: entries[bucket[b]:bucket[b+1]]
	entries []needleAt  // by key
}

type needleAt struct {
	key  uint32
	off  int8  // where the four keyed bytes start in the needle (-1: the byte before it; keyAt)
	mark uint8 // what finding it means: hitNeedle, or a word that needs another (hitUser, hitDefault …)
	at   uint8 // where it may stand: anywhere, at a word's start (atWord), glued to a word before it (atGlued)
	n    string
}

// Where a needle may stand in the folded text, as the indicator's
// pattern requires: atWord after a byte that is not a letter or digit
// (the pattern's \b: "curl", not "libcurl"), atGlued right after one
// ("DEPLOY_TOKEN", which folds to "deploytoken").
const (
	atAny uint8 = iota
	atWord
	atGlued
)

// What the needles found.
const (
	hitNeedle    uint = 1 << iota // a needle: read the text whole
	hitUser                       // "user": concealment, with concealNeedles
	hitDefault                    // "default", "standard": with defaultBefore
	hitExec                       // what a download-and-execute, a reverse shell or decoded code run needs: read the text whole
	hitEvalCall                   // eval( or exec(: code run from what evalWith names
	hitSecret                     // a credential's name or material: with somewhere to send it (mayExfil, a collector)
	hitCollector                  // a collector's host: with a credential (hitSecret, secretAny)
)

// quadPad is the padding find reads after a folded text: four keys from
// one load at its last byte or two.
const quadPad = 8

// keyBits is how many bits a key has: the bitmap is 1<<keyBits bits
// (32 KB), sparse enough that few keys of ordinary text fall on a
// needle's by chance.
const keyBits = 18

// quad is the key of the four bytes of w (little-endian): the high
// keyBits bits of a multiplicative hash.
func quad(w uint32) uint32 { return (w * 0x9e3779b1) >> (32 - keyBits) }

func quadOf(a, b, c, d byte) uint32 {
	return quad(uint32(a) | uint32(b)<<8 | uint32(c)<<16 | uint32(d)<<24)
}

// foldedBytes are the bytes a folded text can hold next to a needle: what
// the fold writes (no upper case) and the padding (0).
var foldedBytes = func() (bs []byte) {
	for c := range 128 {
		if c == 0 || c >= 3 && !('A' <= c && c <= 'Z') {
			bs = append(bs, byte(c))
		}
	}
	return bs
}()

// riskMarks are the marks of riskNeedles, which are keyed where they
// are rarest (keyAt); the others are keyed by their start.
const riskMarks = hitExec | hitEvalCall | hitSecret | hitCollector

// needle is one needle with what it means and where it may stand: at
// (the byte before it, atWord or atGlued) and after (the byte after a
// needle of three bytes: afterWord, afterOther). Where they are known,
// a short needle is keyed only by the neighbours it can have, so fewer
// keys of ordinary text ("func " for "nc ") are candidates.
type needle struct {
	n         string
	mark      uint
	at, after uint8
}

// What the byte after a needle of three bytes may be.
const (
	afterWord  uint8 = 1 // a letter or digit ("ghp" of a token, which folds to "ghpabc…")
	afterOther uint8 = 2 // not one ("iex" before its argument)
)

// neighbours are the bytes a folded text can hold next to a needle:
// all of foldedBytes when c is 0, else those that are letters or digits
// when c is word, those that are not when c is other.
func neighbours(c, word, other uint8) []byte {
	if c != word && c != other {
		return foldedBytes
	}
	var bs []byte
	for _, x := range foldedBytes {
		if foldedWord(x) == (c == word) {
			bs = append(bs, x)
		}
	}
	return bs
}

// keyAt is where in a needle of five bytes or more its two keys start:
// the two fours that ordinary text holds least (by the letters' rank in
// English text, punctuation and digits rarest), so that "requestbin." is
// keyed by "tbin" and "bin.", not by the "requ" of every request_id.
func keyAt(n string) int {
	best, at := -1, 0
	for j := 0; j+5 <= len(n); j++ {
		score := 0
		for _, c := range []byte(n[j : j+5]) {
			score += rarity(c)
		}
		if score > best {
			best, at = score, j
		}
	}
	return at
}

// rarity ranks a byte of folded text: the commonest letters and the space
// lowest.
func rarity(c byte) int {
	const common = " etaoinsrhldcumfpgwybvkxjqz"
	if i := strings.IndexByte(common, c); i >= 0 {
		return i
	}
	return len(common) + 4
}

func newNeedleSet(ns []needle) *needleSet {
	s := &needleSet{}
	for _, nd := range ns {
		n, mark, where := nd.n, uint8(nd.mark), nd.at
		add := func(k uint32, off int8) {
			s.entries = append(s.entries, needleAt{key: k, off: off, mark: mark, at: where, n: n})
		}
		before := neighbours(where, atGlued, atWord)
		switch {
		case len(n) >= 5:
			j := 0
			if nd.mark&riskMarks != 0 {
				j = keyAt(n)
			}
			add(quadOf(n[j], n[j+1], n[j+2], n[j+3]), int8(j))
			add(quadOf(n[j+1], n[j+2], n[j+3], n[j+4]), int8(j+1))
		case len(n) == 4:
			add(quadOf(n[0], n[1], n[2], n[3]), 0)
			for _, x := range before {
				add(quadOf(x, n[0], n[1], n[2]), -1)
			}
		default:
			for _, x := range neighbours(nd.after, afterWord, afterOther) {
				add(quadOf(n[0], n[1], n[2], x), 0)
			}
			for _, x := range before {
				add(quadOf(x, n[0], n[1], n[2]), -1)
			}
		}
	}
	slices.SortStableFunc(s.entries, func(x, y needleAt) int { return int(x.key) - int(y.key) })
	for _, e := range s.entries {
		s.bits[e.key/64] |= 1 << (e.key % 64)
		s.bucket[int(e.key>>(keyBits-8))+1]++ // fewer than 65536 entries: TestNeedleKeysFit
	}
	for b := 1; b <= 256; b++ {
		s.bucket[b] += s.bucket[b-1]
	}
	return s
}

// find reports what the needles found in the folded text p[:n]; p holds
// at least quadPad bytes of padding (0) after it. Most positions cost a
// load, a multiplication and a bit; a text with more places to compare
// than fit on the stack is compared at every place.
func (s *needleSet) find(p []byte, n int) uint {
	var cands [512]int32
	nc := 0
	bits := &s.bits
	for i := 0; i < n; i += 4 {
		// the keys at i and i+2 from one load
		w := binary.LittleEndian.Uint64(p[i : i+8])
		k, l := quad(uint32(w)), quad(uint32(w>>16))
		if (bits[k/64]>>(k%64)|bits[l/64]>>(l%64))&1 == 0 {
			continue
		}
		if nc+2 > len(cands) {
			return s.any(p, n)
		}
		cands[nc], cands[nc+1] = int32(i), int32(i+2)
		nc += 2
	}
	var found uint
	for _, at := range cands[:nc] {
		if int(at) < n {
			found |= s.at(p, n, int(at))
		}
	}
	return found
}

func (s *needleSet) any(p []byte, n int) uint {
	var found uint
	for i := 0; i < n; i += 2 {
		if found |= s.at(p, n, i); found&hitNeedle != 0 {
			return found
		}
	}
	return found
}

// at says what the needles keyed by the four bytes at p[i] found in p[:n].
func (s *needleSet) at(p []byte, n, i int) uint {
	k := quad(binary.LittleEndian.Uint32(p[i : i+4]))
	t := p[:n]
	var found uint
	for _, e := range s.entries[s.bucket[k>>(keyBits-8)]:s.bucket[int(k>>(keyBits-8))+1]] {
		start := i - int(e.off)
		if e.key != k || start < 0 || start+len(e.n) > n || string(t[start:start+len(e.n)]) != e.n {
			continue
		}
		if e.at != atAny && (start > 0 && foldedWord(t[start-1])) != (e.at == atGlued) {
			continue
		}
		if e.mark == uint8(hitDefault) {
			// "instead of the default …": only with what steers from it
			if containsAny(t[max(0, start-40):start], defaultBefore) {
				found |= hitNeedle
			}
			continue
		}
		found |= uint(e.mark)
	}
	return found
}

// resultNeedleSet is built on first use: a hook process that reads no
// result (every pre-tool call) does not build its index.
var resultNeedleSet = sync.OnceValue(func() *needleSet { return newNeedleSet(resultNeedleList()) })

// resultNeedleList is every needle of the cheap pass with its mark.
func resultNeedleList() []needle {
	var ns []needle
	for _, n := range resultNeedles {
		ns = append(ns, needle{n: n, mark: hitNeedle})
	}
	ns = append(ns, needle{n: "user", mark: hitUser}, needle{n: "default", mark: hitDefault}, needle{n: "standard", mark: hitDefault})
	for _, g := range riskNeedles {
		for _, n := range g.ns {
			ns = append(ns, needle{n: n, mark: g.mark, at: g.at, after: g.after})
		}
	}
	return ns
}

// foldedWord: a letter or digit of a folded text (the fold drops '_').
func foldedWord(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// base64Text reports a base64 run in s long enough to be reported that
// decodes to text (its start is enough to tell): a picture is binary. In
// JSON (json true, s a string's content with no escape but \/, which the
// cheap pass ends a stretch at) \/ is the '/' it stands for.
func base64Text(s string, json bool) bool {
	var dec [maxB64Read]byte
	for i := 0; i < len(s); {
		if b64Mask[s[i]] == 0 && !(json && s[i] == '\\') {
			i++
			continue
		}
		// the run from i, its length in decoded bytes, and its first
		// maxB64Read of them in dec
		j, n := i, 0
		for j < len(s) {
			c := s[j]
			if json && c == '\\' {
				if j+1 == len(s) || s[j+1] != '/' {
					break
				}
				c = '/'
				j++
			} else if b64Mask[c] == 0 {
				break
			}
			if n < len(dec) {
				dec[n] = c
			}
			n++
			j++
		}
		if n >= minBase64 {
			if _, ok := decodeText(string(dec[:min(n, maxB64Read)&^3])); ok {
				return true
			}
		}
		i = max(j, i+1)
	}
	return false
}

// maxB64Read is how much of a base64 run the cheap pass decodes.
const maxB64Read = 400
