package policy

// Glob matchers for paths and text. Both are allocation-free once compiled
// and never backtrack exponentially: no regexp. Character classes are
// deliberately not supported: '[' and ']' are ordinary characters, because
// real paths and attack strings contain brackets and a rule author writing
// "[id]" means those bytes. There is no escape character either: '\' is an
// ordinary character.

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// maxBraceAlternatives bounds the expansion of {a,b} groups in one
// pattern, and maxBraceGroups the number of groups, so compiling costs at
// most about maxBraceGroups × maxBraceAlternatives × len(pattern).
const (
	maxBraceAlternatives = 256
	maxBraceGroups       = 32
)

var (
	errEmptyPattern     = errors.New("empty glob pattern")
	errUnbalancedBrace  = errors.New("unbalanced '{' in glob pattern")
	errTooManyAlternate = errors.New("glob pattern has too many {…} alternatives")
)

// PathPattern is a compiled PathGlob pattern. The zero value matches
// nothing.
type PathPattern struct {
	pattern string
	alts    []string  // brace-expanded, brace-free patterns
	info    []altInfo // each alternative's index key and shape (glob_index.go)
}

// CompilePathGlob compiles a PathGlob pattern. It fails on an empty
// pattern, an unbalanced '{', more than 32 '{' or more than 256 brace
// alternatives.
func CompilePathGlob(pattern string) (PathPattern, error) {
	if pattern == "" {
		return PathPattern{}, errEmptyPattern
	}
	if strings.Count(pattern, "{") > maxBraceGroups {
		return PathPattern{}, errTooManyAlternate
	}
	alts, err := expandBraces(pattern, nil)
	if err != nil {
		return PathPattern{}, err
	}
	return PathPattern{pattern: pattern, alts: alts, info: altInfos(alts)}, nil
}

// String returns the pattern as written.
func (pp PathPattern) String() string { return pp.pattern }

// Match reports whether the slash path p matches the pattern.
func (pp PathPattern) Match(p string) bool {
	for _, a := range pp.alts {
		if matchPath(a, p) {
			return true
		}
	}
	return false
}

// PathGlob reports whether the slash path p matches pattern, a glob over
// path segments:
//
//   - '*' matches any run of characters within one segment (not '/'),
//     including a leading '.': "~/.ssh/*" matches "id_rsa" and ".hidden";
//   - '?' matches one character (one UTF-8 rune, not '/');
//   - "**" as a whole segment matches zero or more segments, so
//     "/h/.ssh/**" also matches "/h/.ssh" itself and a pattern starting
//     with "**/" matches at any depth; "**" inside a longer segment is '*';
//   - "{a,b,c}" is alternation (nesting works; an alternative may even
//     contain '/', though that is not its purpose);
//   - '[' is literal; there is no escape character.
//
// Empty segments are ignored on both sides ("//" and a trailing '/'), and a
// pattern is always anchored at the root: "etc/passwd" and "/etc/passwd"
// are the same pattern. Matching is case-sensitive: fold both sides
// (FoldPath) for deny matching.
//
// PathGlob does not allocate unless the pattern contains '{'; use
// CompilePathGlob for those. An invalid pattern matches nothing.
func PathGlob(pattern, p string) bool {
	if pattern == "" {
		return false
	}
	if strings.IndexByte(pattern, '{') < 0 {
		return matchPath(pattern, p)
	}
	pp, err := CompilePathGlob(pattern)
	if err != nil {
		return false
	}
	return pp.Match(p)
}

// expandBraces appends to out every brace-free pattern p stands for.
func expandBraces(p string, out []string) ([]string, error) {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		if len(out) >= maxBraceAlternatives {
			return out, errTooManyAlternate
		}
		return append(out, p), nil
	}
	depth, end := 0, -1
	for i := open; i < len(p) && end < 0; i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		}
	}
	if end < 0 {
		return out, errUnbalancedBrace
	}
	prefix, body, suffix := p[:open], p[open+1:end], p[end+1:]
	depth = 0
	start := 0
	for i := 0; i <= len(body); i++ {
		if i == len(body) || body[i] == ',' && depth == 0 {
			var err error
			out, err = expandBraces(prefix+body[start:i]+suffix, out)
			if err != nil {
				return out, err
			}
			start = i + 1
			continue
		}
		switch body[i] {
		case '{':
			depth++
		case '}':
			depth--
		}
	}
	return out, nil
}

// nextSegment returns the segment of s starting at or after i (skipping
// slashes) and the index just past it; ok is false when none is left.
func nextSegment(s string, i int) (seg string, next int, ok bool) {
	for i < len(s) && s[i] == '/' {
		i++
	}
	if i == len(s) {
		return "", i, false
	}
	j := strings.IndexByte(s[i:], '/')
	if j < 0 {
		return s[i:], len(s), true
	}
	return s[i : i+j], i + j, true
}

// matchPath matches a brace-free pattern against p segment by segment.
// "**" is handled like '*' in the classic greedy star algorithm, one level
// up: every other pattern segment consumes exactly one path segment, so
// remembering only the last "**" is enough and the cost is
// O(segments(p) × segments(pattern)) segment comparisons.
func matchPath(pat, p string) bool {
	if pat == p {
		return true // an exact rule; wildcards only match themselves then
	}
	pi, si := 0, 0
	starPi, starSi := -1, -1
	for {
		pseg, pnext, pok := nextSegment(pat, pi)
		if pok && pseg == "**" {
			if k, last := tailSegments(pat, pnext); last {
				// The last "**": what follows is anchored at the end, so
				// no backtracking is needed (and none to earlier "**"
				// either: the greedy prefix match is already optimal).
				return matchTail(pat[pnext:], p[si:], k)
			}
			pi = pnext
			starPi, starSi = pnext, si
			continue
		}
		sseg, snext, sok := nextSegment(p, si)
		if !pok && !sok {
			return true
		}
		if pok && sok && globMatch(pseg, sseg) {
			pi, si = pnext, snext
			continue
		}
		if starPi < 0 {
			return false
		}
		// Let the last "**" swallow one more segment and retry.
		_, n, ok := nextSegment(p, starSi)
		if !ok {
			return false
		}
		starSi = n
		pi, si = starPi, n
	}
}

// tailSegments counts the segments of pat after index i and reports
// whether none of them is "**".
func tailSegments(pat string, i int) (int, bool) {
	n := 0
	for {
		seg, next, ok := nextSegment(pat, i)
		if !ok {
			return n, true
		}
		if seg == "**" {
			return 0, false
		}
		n++
		i = next
	}
}

// matchTail matches the k "**"-free segments of pat against the last k
// segments of p (a preceding "**" swallows the rest).
func matchTail(pat, p string, k int) bool {
	// Find where the last k segments of p start.
	j := len(p)
	for n := 0; n < k; n++ {
		for j > 0 && p[j-1] == '/' {
			j--
		}
		if j == 0 {
			return false
		}
		j = strings.LastIndexByte(p[:j], '/') + 1
	}
	pi, si := 0, j
	for {
		pseg, pnext, pok := nextSegment(pat, pi)
		if !pok {
			return true
		}
		sseg, snext, _ := nextSegment(p, si)
		if !globMatch(pseg, sseg) {
			return false
		}
		pi, si = pnext, snext
	}
}

// TextPattern is a compiled TextGlob pattern. The zero value matches
// nothing.
type TextPattern struct {
	pattern string
	lit     string // substring to look for when kind == textSubstring
	kind    uint8
}

const (
	textNone uint8 = iota
	textSubstring
	textGlob
)

// CompileTextGlob compiles a TextGlob pattern; it fails only on an empty
// pattern.
func CompileTextGlob(pattern string) (TextPattern, error) {
	if pattern == "" {
		return TextPattern{}, errEmptyPattern
	}
	tp := TextPattern{pattern: pattern, kind: textGlob}
	if lit, ok := substringLiteral(pattern); ok {
		tp.kind, tp.lit = textSubstring, lit
	}
	return tp, nil
}

// String returns the pattern as written.
func (tp TextPattern) String() string { return tp.pattern }

// Match reports whether s matches the pattern.
func (tp TextPattern) Match(s string) bool {
	switch tp.kind {
	case textSubstring:
		return strings.Contains(s, tp.lit)
	case textGlob:
		return globMatch(tp.pattern, s)
	}
	return false
}

// TextGlob is the safety-net matcher over normalised strings (commands,
// folded text):
//
//   - a pattern with no '*' and no '?' is a substring test;
//   - "*literal*" (no other wildcard) is a substring test for literal;
//   - anything else is a whole-string glob where '*' matches any run of
//     characters, '/' and newlines included, and '?' one rune.
//
// There are no character classes ('[' is literal) and no escapes. Matching
// never backtracks exponentially: the pattern is split at '*' into chunks,
// the first and last anchored and the others found leftmost in turn, which
// is O(len(s)) for chunks without '?' and O(len(s)·len(pattern)) at worst.
// An empty pattern matches nothing.
func TextGlob(pattern, s string) bool {
	if pattern == "" {
		return false
	}
	if lit, ok := substringLiteral(pattern); ok {
		return strings.Contains(s, lit)
	}
	return globMatch(pattern, s)
}

// substringLiteral reports whether pattern is a plain substring test and
// returns the literal to look for.
func substringLiteral(pattern string) (string, bool) {
	if strings.IndexByte(pattern, '*') < 0 && strings.IndexByte(pattern, '?') < 0 {
		return pattern, true
	}
	if len(pattern) >= 3 && pattern[0] == '*' && pattern[len(pattern)-1] == '*' {
		lit := pattern[1 : len(pattern)-1]
		if strings.IndexByte(lit, '*') < 0 && strings.IndexByte(lit, '?') < 0 {
			return lit, true
		}
	}
	return "", false
}

// globMatch matches the whole of s against pat, where '*' matches any run
// of bytes and '?' one rune. pat is split at '*' into chunks: the first
// chunk must match a prefix, the last a suffix, and the ones between are
// taken leftmost, one after another, which is optimal because every chunk
// matches a fixed number of runes.
func globMatch(pat, s string) bool {
	star := strings.IndexByte(pat, '*')
	if star < 0 {
		n, ok := chunkPrefix(pat, s)
		return ok && n == len(s)
	}
	n, ok := chunkPrefix(pat[:star], s)
	if !ok {
		return false
	}
	s = s[n:]
	pat = pat[star:]
	last := strings.LastIndexByte(pat, '*')
	start, ok := chunkSuffix(pat[last+1:], s)
	if !ok {
		return false
	}
	s = s[:start]
	if last == 0 {
		return true
	}
	mid := pat[1:last]
	for mid != "" {
		var c string
		if k := strings.IndexByte(mid, '*'); k >= 0 {
			c, mid = mid[:k], mid[k+1:]
		} else {
			c, mid = mid, ""
		}
		if c == "" {
			continue
		}
		end := chunkIndex(c, s)
		if end < 0 {
			return false
		}
		s = s[end:]
	}
	return true
}

// chunkPrefix matches the star-free chunk c against a prefix of s and
// returns the number of bytes consumed.
func chunkPrefix(c, s string) (int, bool) {
	j := 0
	for i := 0; i < len(c); i++ {
		if c[i] == '?' {
			if j >= len(s) {
				return 0, false
			}
			j += utf8RuneLen(s[j:])
			continue
		}
		if j >= len(s) || s[j] != c[i] {
			return 0, false
		}
		j++
	}
	return j, true
}

// chunkSuffix matches the star-free chunk c against a suffix of s and
// returns the index where that suffix starts.
func chunkSuffix(c, s string) (int, bool) {
	j := len(s)
	for i := len(c) - 1; i >= 0; i-- {
		if c[i] == '?' {
			if j == 0 {
				return 0, false
			}
			if s[j-1] < utf8.RuneSelf {
				j--
			} else {
				_, w := utf8.DecodeLastRuneInString(s[:j])
				j -= w
			}
			continue
		}
		if j == 0 || s[j-1] != c[i] {
			return 0, false
		}
		j--
	}
	return j, true
}

// chunkIndex finds the leftmost match of the star-free chunk c in s and
// returns the index just past it, or -1.
func chunkIndex(c, s string) int {
	q := strings.IndexByte(c, '?')
	if q < 0 {
		i := strings.Index(s, c)
		if i < 0 {
			return -1
		}
		return i + len(c)
	}
	lead := c[:q]
	for off := 0; off <= len(s); {
		i := off
		if lead != "" {
			k := strings.Index(s[off:], lead)
			if k < 0 {
				return -1
			}
			i = off + k
		}
		if n, ok := chunkPrefix(c, s[i:]); ok {
			return i + n
		}
		if i >= len(s) {
			break
		}
		off = i + utf8RuneLen(s[i:])
	}
	return -1
}

// utf8RuneLen returns the byte length of the rune s starts with (1 for
// invalid UTF-8). s must not be empty.
func utf8RuneLen(s string) int {
	if s[0] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(s)
	return w
}
