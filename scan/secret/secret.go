// Package secret is Airlock's one table of token and key shapes: forge,
// cloud, chat, package-registry and AI-API tokens, private key blocks,
// JWTs, and credentials in Authorization headers, URLs and assignments.
//
// Find reports where they are in a text; Mask replaces each one with its
// kind and a short digest ("[masked github-token sha256:1a2b3c4d]"). The
// audit log masks every record with it before the record is hashed, so
// the chain, every export and every report hold the mask, never the
// secret; the gate and the proxy's admission read the same table.
//
// The package is a leaf (regexp, crypto/sha256 and the standard library
// only) so that the hook can link it. Its cost on a text with no candidate
// is one pass over the bytes looking for the table's fixed keywords; the
// regular expressions, compiled once on first use, run only for the rules
// whose keyword was seen. docs/secrets.md says where each shape comes
// from and why the digest is as short as it is.
package secret

import (
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Match is one secret in a text: s[Start:End] is the secret itself (for a
// shape that needs context, such as "Authorization: Bearer …", only the
// value, not the context: the first submatch of the pattern that took
// part, or the whole match).
type Match struct {
	Kind       string
	Start, End int
	chosen     bool // a person picks such values: no digest
	rule       int
}

// shape describes one entry of the table, for documentation and tests.
type shape struct {
	Kind     string
	Keywords []string
	Chosen   bool   // masked without a digest
	Source   string // the public documentation of the shape
}

// shapes lists the table in order.
func shapes() []shape {
	out := make([]shape, len(rules))
	for i := range rules {
		r := &rules[i]
		out[i] = shape{Kind: r.kind, Keywords: append([]string(nil), r.keywords...), Chosen: r.chosen, Source: r.source}
	}
	return out
}

// keyword is one prefilter entry: the lower-cased keyword and the rules
// it makes candidates.
type keyword struct {
	word  string
	rules uint64
}

// The candidate set is a uint64: a table of more than 64 rules does not
// compile.
var _ [64 - len(rules)]struct{}

type table struct {
	// each rule's pattern, compiled when a text first makes it a
	// candidate: anchored (tried at a keyword) and, for a text with many
	// of its keywords, unanchored (one linear pass)
	anchored, anywhere [len(rules)]lazyRegexp
	// first holds the keywords by their first byte (lower-cased; an
	// upper-case letter shares its lower case's entry); pairs has a bit
	// for each (folded) byte pair a keyword starts with, so most bytes of
	// a text cost two loads and a test.
	first *[256][]keyword
	pairs *[1 << 16 / 64]uint64
}

// fold is ASCII lower-casing by table.
var fold = func() (f [256]byte) {
	for i := range f {
		f[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			f[i] = byte(i) + 'a' - 'A'
		}
	}
	return f
}()

// lazyRegexp is a pattern compiled on first use.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
}

// get compiles rule i's pattern, anchored at the start of the text or not.
func (l *lazyRegexp) get(i int, anchored bool) *regexp.Regexp {
	l.once.Do(func() {
		expr := rules[i].pattern
		if anchored {
			expr = `^(?:` + expr + `)`
		}
		// The patterns are constants of this package and a test
		// compiles every one: MustCompile cannot fail at run time.
		l.re = regexp.MustCompile(expr)
	})
	return l.re
}

// compiled is the prefilter's table: its keyword index is buildTable's,
// generated into table_gen.go (static data, so that the first record a
// hook process masks does not build and fault in 14 KB of it); a pattern
// is compiled only when a text first holds its keyword, so a hook call
// whose record has none compiles nothing.
var compiled = sync.OnceValue(func() *table {
	return &table{first: &genFirst, pairs: &genPairs}
})

// buildTable builds the table from rules: what table_gen.go is generated
// from and checked against (go test ./scan/secret -run TestTableGenerated
// -update).
func buildTable() *table {
	t := &table{first: new([256][]keyword), pairs: new([1 << 16 / 64]uint64)}
	// by index: ranging over the array by value would copy all of it (5 KB)
	// onto the stack, enough to grow a hook's goroutine stack once more
	for i := range rules {
		r := &rules[i]
		for _, k := range r.keywords {
			k = strings.ToLower(k)
			b := &t.first[k[0]]
			found := false
			for j := range *b {
				if (*b)[j].word == k {
					(*b)[j].rules |= 1 << i
					found = true
				}
			}
			if !found {
				*b = append(*b, keyword{word: k, rules: 1 << i})
			}
			pair := uint16(k[0])<<8 | uint16(k[1])
			t.pairs[pair/64] |= 1 << (pair % 64)
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		t.first[c-'a'+'A'] = t.first[c]
	}
	return t
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word k
// (whose first two bytes the caller has matched), ignoring the case of s.
func hasPrefixFold(s, k string) bool {
	if len(s) < len(k) {
		return false
	}
	for i := 2; i < len(k); i++ {
		if fold[s[i]] != k[i] {
			return false
		}
	}
	return true
}

// hit is a keyword found at a position of the text.
type hit struct {
	at    int
	rules uint64
}

// scan is the prefilter: every position where a keyword starts, with the
// rules it makes candidates. A text with no keyword allocates nothing.
func (t *table) scan(s string) []hit {
	var hs []hit
	if len(s) < 2 {
		return nil
	}
	pairs := t.pairs
	c0 := uint16(fold[s[0]])
	for j := 1; j < len(s); j++ {
		c1 := uint16(fold[s[j]])
		pair := c0<<8 | c1
		c0 = c1
		if pairs[pair>>6]&(1<<(pair&63)) == 0 {
			continue
		}
		i := j - 1
		var m uint64
		for _, k := range t.first[s[i]] {
			if m&k.rules != k.rules && k.word[1] == byte(c1) && hasPrefixFold(s[i:], k.word) {
				m |= k.rules
			}
		}
		if m != 0 {
			hs = append(hs, hit{at: i, rules: m})
		}
	}
	return hs
}

// candidates is the set of rules the prefilter lets run on s.
func (t *table) candidates(s string) uint64 {
	var m uint64
	for _, h := range t.scan(s) {
		m |= h.rules
	}
	return m
}

// Find returns the secrets in s, in order and not overlapping. Matches of
// different shapes that overlap are merged into one span, named after the
// most specific shape (the earliest in the table), so no part of either
// is left outside.
func Find(s string) []Match {
	t := compiled()
	hs := t.scan(s)
	if len(hs) == 0 {
		return nil
	}
	// A text with many keywords of one shape ("token=token=…") gets one
	// linear pass of that shape's pattern from its first keyword on,
	// instead of an anchored attempt at each: the cost stays linear in
	// the text.
	var count [len(rules)]int
	var first [len(rules)]int
	for _, h := range hs {
		for cand := h.rules; cand != 0; {
			i := bits.TrailingZeros64(cand)
			cand &^= 1 << i
			if count[i] == 0 {
				first[i] = h.at
			}
			count[i]++
		}
	}
	// A shape with more keywords than maxAnchored gets one pass only when
	// its anchored attempts would read more than anchoredBudget times the
	// text: a log with thirty "token"s stays thirty short attempts (a
	// case-insensitive pattern has no literal prefix to skip by, so its
	// unanchored pass is the slow NFA over every byte).
	var onePass [len(rules)]bool
	for i := range rules {
		onePass[i] = count[i] > maxAnchored && count[i]*rules[i].span(len(s)) > anchoredBudget*len(s)
	}
	var ms []Match
	add := func(i, a, b int) bool {
		r := &rules[i]
		if a == b || b-a < r.min || (r.max > 0 && b-a > r.max) {
			return false
		}
		v := s[a:b]
		if isReference(v) || (r.check != nil && !r.check(v)) {
			return false
		}
		ms = append(ms, Match{Kind: r.kind, Start: a, End: b, chosen: r.chosen, rule: i})
		return true
	}
	for i := range rules {
		if !onePass[i] {
			continue
		}
		r := &rules[i]
		from := max(0, first[i]-r.back)
		for _, loc := range t.anywhere[i].get(i, false).FindAllStringSubmatchIndex(s[from:], -1) {
			at := from + loc[0]
			if !prevOK(r, s, at) {
				continue
			}
			a, b := secretSpan(loc)
			add(i, from+a, from+b)
		}
	}
	var done [len(rules)]int // where each rule's last match ended
	for _, h := range hs {
		for cand := h.rules; cand != 0; {
			i := bits.TrailingZeros64(cand)
			cand &^= 1 << i
			r := &rules[i]
			at := h.at - r.back
			if onePass[i] || at < 0 || at < done[i] || !prevOK(r, s, at) {
				continue
			}
			end := min(len(s), at+r.span(len(s)))
			loc := t.anchored[i].get(i, true).FindStringSubmatchIndex(s[at:end])
			if loc == nil {
				continue
			}
			// A rejected match (too short, a $VAR) may hide a real one
			// that starts inside it: only an accepted one is skipped.
			if a, b := secretSpan(loc); add(i, at+a, at+b) {
				done[i] = at + loc[1]
			}
		}
	}
	return merge(ms)
}

// prevOK reports whether the text before a match at s[at:] is what the
// rule needs there. A written escape (\n, \t, \r: the agent's printf, a
// JSON string inside a command) counts as the white space it stands for.
func prevOK(r *rule, s string, at int) bool {
	if r.prev == nil || at == 0 || r.prev(s[at-1]) {
		return true
	}
	c := s[at-1]
	return at >= 2 && s[at-2] == '\\' && (c == 'n' || c == 't' || c == 'r')
}

// secretSpan is the part of a match that is the secret: the first group
// that took part, or the whole match.
func secretSpan(loc []int) (a, b int) {
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] >= 0 {
			return loc[g], loc[g+1]
		}
	}
	return loc[0], loc[1]
}

// span is how much text an anchored match of r reads in a text of n bytes.
func (r *rule) span(n int) int {
	switch {
	case r.window < 0:
		return n
	case r.window == 0:
		return min(n, defaultWindow)
	}
	return min(n, r.window)
}

// anchoredBudget bounds the text a shape's anchored attempts read, as a
// multiple of the text, before it is matched in one pass instead.
const anchoredBudget = 4

// shortWindow is the window of the generic carriers.
const shortWindow = 256

// maxAnchored is how many keywords of one shape a text may hold before
// the shape is matched in one pass instead of at each.
const maxAnchored = 16

func merge(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	slices.SortFunc(ms, func(x, y Match) int {
		if x.Start != y.Start {
			return x.Start - y.Start
		}
		return x.rule - y.rule
	})
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.Start >= last.End {
			out = append(out, m)
			continue
		}
		if m.End > last.End {
			last.End = m.End
		}
		// The most specific shape names the span and says whether it
		// gets a digest: a vendor token inside a password-shaped context
		// (GITHUB_TOKEN=ghp_…) is still a random value no guess can
		// confirm.
		if m.rule < last.rule {
			last.Kind, last.rule, last.chosen = m.Kind, m.rule, m.chosen
		}
	}
	return out
}

// isReference reports a value that names a secret instead of holding it:
// a shell variable ($TOKEN, ${TOKEN}), a placeholder (<token>), or a mask
// already written.
func isReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "$"):
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "$"), "{"), "}")
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
		return name != ""
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"):
		return true
	}
	return false
}

// defaultWindow bounds the text an anchored match reads (a JWT may read
// more, a private key block to its end): the regexp engine's cost grows
// with the input it is handed, not only with the match, and a text full of
// keywords ("bearer bearer …") must not cost a pass over the rest of the
// text at each. No token shape is this long.
const defaultWindow = 1024

// maxPasses bounds Mask's passes. Masking a secret can expose another
// (an AWS key id glued to a token is only a word on its own once the
// token is a mask), so Mask runs until a pass finds nothing; each pass
// replaces secret text by masks, so two passes are the rule.
const maxPasses = 8

// digestMin is the shortest secret that gets a digest: below it, even a
// vendor-shaped value may be guessable.
const digestMin = 20

// Mask returns s with every secret replaced by its mask. A text with no
// secret is returned as it is (the same string, no allocation).
func Mask(s string) string {
	for pass := 0; ; pass++ {
		ms := Find(s)
		if len(ms) == 0 {
			return s
		}
		if pass == maxPasses {
			// Never seen, but a bound that gives up must not give up
			// into writing a secret.
			return tooMany
		}
		s = replace(s, ms)
	}
}

// tooMany replaces a text that kept yielding new matches.
const tooMany = "[masked: the text kept yielding new matches]"

func replace(s string, ms []Match) string {
	var b strings.Builder
	b.Grow(len(s) + 40*len(ms))
	at := 0
	for _, m := range ms {
		b.WriteString(s[at:m.Start])
		b.WriteString(tag(m.Kind, s[m.Start:m.End], m.chosen))
		at = m.End
	}
	b.WriteString(s[at:])
	return b.String()
}

// tag is the mask of the secret v of the given kind: "[masked KIND
// sha256:XXXXXXXX]", the first 32 bits of SHA-256(v) in hex, or "[masked
// KIND]" for a value a person chose or one shorter than digestMin. Short
// on purpose: enough to tell two secrets in one log apart and to see the
// same one again, never enough to confirm a guess of a weak one.
func tag(kind, v string, chosen bool) string {
	if chosen || len(v) < digestMin {
		return "[masked " + kind + "]"
	}
	return "[masked " + kind + " sha256:" + digest(v) + "]"
}

// digest is the short digest a mask carries: the first 8 hex digits of
// SHA-256(v), so it equals the start of the digest the gate records for
// the same content (gate.DigestOf).
func digest(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:4])
}
