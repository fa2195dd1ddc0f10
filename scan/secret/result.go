package secret

import (
	"encoding/json"
	"strconv"
)

// Hit is one secret MaskBytes replaced: the kind of its shape (the rule's
// id, as the mask names it) and the short digest its mask carries. It
// never holds the secret, so a caller can record it as it is.
type Hit struct {
	Rule   string // the shape's kind: "github-token", "private-key" …
	Digest string // "sha256:" and the first 8 hex digits; "" for a value a person chose or one too short to digest
}

// MaskBytes masks the secrets in a result on its way to the model (a tool
// call's result, a resource's contents, a server's message): out is b with
// every secret replaced by its mask, and hits lists what was masked, in
// order. A b with no secret is returned as it is (the same slice, no
// hits), so a benign result passes byte for byte.
//
// When b is valid JSON the masks stay inside the string literals they
// start in and cut at escape boundaries, so out is valid JSON too: a
// secret is never spliced across a closing quote or half an escape (a
// password in "pw=a\"b" loses "a\"" and keeps the quote's escape whole).
// The table is the one Mask uses; its patterns read a JSON string's
// escapes (\n in a PEM block) as the text they stand for.
func MaskBytes(b []byte) ([]byte, []Hit) {
	out, hits := MaskResult(string(b))
	if len(hits) == 0 {
		return b, nil
	}
	return []byte(out), hits
}

// MaskResult is MaskBytes on a string: for a caller that holds the result
// as one (the proxy's answer, a hook event's raw field), without the two
// copies a round trip through []byte costs. A text with no secret is
// returned as it is.
func MaskResult(s string) (string, []Hit) {
	ms := Find(s)
	if len(ms) == 0 {
		return s, nil
	}
	orig := s
	isJSON := json.Valid([]byte(s))
	var hits []Hit
	for pass := 0; len(ms) > 0; pass++ {
		if isJSON {
			ms = fitJSON(s, ms)
		}
		if len(ms) == 0 {
			break
		}
		if pass == maxPasses {
			hits = append(hits, Hit{Rule: "too-many-matches"})
			if isJSON {
				return strconv.Quote(tooMany), hits
			}
			return tooMany, hits
		}
		for _, m := range ms {
			h := Hit{Rule: m.Kind}
			if v := s[m.Start:m.End]; !m.chosen && len(v) >= digestMin {
				h.Digest = "sha256:" + digest(v)
			}
			hits = append(hits, h)
		}
		s = replace(s, ms)
		ms = Find(s)
	}
	if len(hits) == 0 {
		return orig, nil
	}
	return s, hits
}

// fitJSON keeps each match of a JSON text inside the string literal it
// starts in, its ends moved out of any escape they fall inside; a match
// that starts outside every string (a number, a key's punctuation) is
// dropped: no shape is made of digits and JSON's punctuation alone.
func fitJSON(s string, ms []Match) []Match {
	out := ms[:0]
	lits := stringLiterals(s)
	li := 0
	for _, m := range ms {
		for li < len(lits) && lits[li][1] <= m.Start {
			li++
		}
		if li == len(lits) || m.Start < lits[li][0] {
			continue
		}
		lo, hi := lits[li][0], lits[li][1]
		a, e := m.Start, min(m.End, hi)
		if es, _, in := escapeAt(s, lo, a); in {
			a = es
		}
		if _, ee, in := escapeAt(s, lo, e); in {
			e = ee
		}
		if a >= e {
			continue
		}
		if len(out) > 0 && a < out[len(out)-1].End {
			a = out[len(out)-1].End
			if a >= e {
				continue
			}
		}
		m.Start, m.End = a, e
		out = append(out, m)
	}
	return out
}

// stringLiterals lists the contents of a valid JSON text's string
// literals, [start, end) without their quotes, in order.
func stringLiterals(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		start := i + 1
		for i = start; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' {
				i++
			}
		}
		out = append(out, [2]int{start, i})
	}
	return out
}

// escapeAt reports whether position p of the literal starting at lo lies
// strictly inside an escape (after its backslash, before its end), and
// that escape's bounds.
func escapeAt(s string, lo, p int) (start, end int, inside bool) {
	for i := lo; i < p; {
		if s[i] != '\\' {
			i++
			continue
		}
		n := 2
		if i+1 < len(s) && s[i+1] == 'u' {
			n = 6
		}
		if i+n > p {
			return i, min(i+n, len(s)), true
		}
		i += n
	}
	return 0, 0, false
}
