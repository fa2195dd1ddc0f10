package scan

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Stealth indicators: characters and markup that hide text from the
// person reading it while the model still reads every byte.

type charKind int

const (
	plainChar charKind = iota
	tagChar            // U+E0000–U+E007F: invisible, decodes to ASCII
	bidiChar           // embeddings, overrides, isolates: reorder what is shown
	zeroWidth          // zero-width and blank characters
)

// hiddenChars reports runs of tag, bidi and zero-width characters in s.
func hiddenChars(s string) []hit {
	var hits []hit
	var perKind [4]int
	runStart, runKind := -1, plainChar
	var prev rune
	flush := func(end int) {
		if runKind != plainChar && perKind[runKind] < MaxPerID {
			if h, ok := charHit(s, runStart, end, runKind); ok {
				hits = append(hits, h)
				perKind[runKind]++
			}
		}
		runStart, runKind = -1, plainChar
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		k := kindOf(s, i, r, size, prev)
		if k != runKind {
			flush(i)
			if k != plainChar {
				runStart, runKind = i, k
			}
		}
		prev = r
		i += size
	}
	flush(len(s))
	return hits
}

// kindOf is textsafe's table read by a detector, which must not cry wolf
// at ordinary text: bidi marks (U+061C, U+200E, U+200F) steer one spot of
// right-to-left text; the soft hyphen and the deprecated format
// characters (U+2065-206F) are not counted; a BOM at the start is a byte
// order mark; joiners are legitimate in Indic and Persian scripts and
// emoji, and variation selectors after CJK and emoji, so U+200C, U+200D
// and U+FE00-FE0D count only inside an ASCII word (U+FE0E and U+FE0F, the
// text and emoji presentation selectors, never).
func kindOf(s string, i int, r rune, size int, prev rune) charKind {
	if r < 0x80 {
		return plainChar
	}
	switch textsafe.ClassOf(r) {
	case textsafe.Tag:
		return tagChar
	case textsafe.Bidi:
		if r == 0x061C || r == 0x200E || r == 0x200F {
			return plainChar
		}
		return bidiChar
	case textsafe.Filler:
		return zeroWidth
	case textsafe.Selector:
		switch {
		case r >= 0xE0100:
			return zeroWidth
		case r <= 0xFE0D:
			return inASCIIWord(s, i, size, prev)
		}
	case textsafe.ZeroWidth:
		switch {
		case r == 0x00AD, r == 0x2065, r >= 0x206A && r <= 0x206F:
			return plainChar
		case r == 0xFEFF && i == 0:
			return plainChar // byte order mark
		case r == 0x200C, r == 0x200D:
			return inASCIIWord(s, i, size, prev)
		}
		return zeroWidth
	}
	return plainChar
}

// inASCIIWord is zeroWidth for a character between two ASCII word bytes.
func inASCIIWord(s string, i, size int, prev rune) charKind {
	next := byte(0)
	if i+size < len(s) {
		next = s[i+size]
	}
	if isWordByte(next) && prev < 0x80 && isWordByte(byte(prev)) {
		return zeroWidth
	}
	return plainChar
}

func charHit(s string, a, b int, k charKind) (hit, bool) {
	run := s[a:b]
	n := utf8.RuneCountInString(run)
	h := hit{fa: -1, fb: -1, oa: a, ob: b}
	h.Category = Stealth
	switch k {
	case tagChar:
		// Subdivision flags (England, Scotland, Wales) are a black flag
		// followed by tag letters and a cancel tag: an emoji, not a message.
		if r, _ := utf8.DecodeLastRuneInString(s[:a]); r == 0x1F3F4 && n <= 8 && strings.HasSuffix(run, "\U000E007F") {
			return h, false
		}
		h.ID, h.Severity = "stealth.tag-chars", High
		h.Explain = fmt.Sprintf("%d invisible Unicode tag characters (ASCII smuggling) spell out %q", n, clip(tagText(run), 100))
	case bidiChar:
		h.ID, h.Severity = "stealth.bidi", High
		h.Explain = fmt.Sprintf("%d bidirectional control character(s) reorder what a reader sees versus what the model reads", n)
	case zeroWidth:
		h.ID, h.Severity = "stealth.zero-width", Med
		h.Explain = fmt.Sprintf("%d zero-width or blank character(s) inside the text, invisible to a reader and able to split words past filters", n)
	default:
		return h, false
	}
	return h, true
}

// tagText decodes the ASCII hidden in s's tag characters ("" if none).
func tagText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// hiddenBlocks reports HTML comments and collapsed <details> blocks that
// carry other indicators: markdown renders the first not at all and the
// second folded away, so a reviewer skims past what the model obeys.
func hiddenBlocks(src string, f folded, hits []hit) []hit {
	var out []hit
	for _, kind := range []struct{ open, close, id string }{
		{"<!--", "-->", "stealth.html-comment"},
		{"<details", "</details>", "stealth.details"},
	} {
		for from := 0; ; {
			i := strings.Index(f.s[from:], kind.open)
			if i < 0 {
				break
			}
			a := from + i
			b := len(f.s)
			if j := strings.Index(f.s[a+len(kind.open):], kind.close); j >= 0 {
				b = a + len(kind.open) + j + len(kind.close)
			}
			from = b
			if h, ok := blockHit(src, f, a, b, kind.id, hits); ok {
				out = append(out, h)
			}
			if from >= len(f.s) {
				break
			}
		}
	}
	return out
}

func blockHit(src string, f folded, a, b int, id string, hits []hit) (hit, bool) {
	var ids []string
	intent, any := false, false
	for _, h := range hits {
		if h.fa < a || h.fb > b || h.fa < 0 || h.Category == Stealth || h.Severity < Med {
			continue
		}
		any = true
		if h.Category != Secret {
			intent = true
		}
		if !strings.Contains(strings.Join(ids, ","), h.ID) {
			ids = append(ids, h.ID)
		}
	}
	if !any {
		return hit{}, false
	}
	oa, ob := f.orig(src, a, b)
	h := hit{fa: a, fb: b, oa: oa, ob: ob}
	h.ID, h.Category = id, Stealth
	where := "an HTML comment, which rendered markdown does not show,"
	h.Severity = Med
	if id == "stealth.html-comment" && intent {
		h.Severity = High
	}
	if id == "stealth.details" {
		where = "a collapsed <details> block"
	}
	h.Explain = fmt.Sprintf("%s carries %s", where, strings.Join(ids, ", "))
	return h, true
}

// minBase64 is the shortest run reported as a base64 blob.
const minBase64 = 200

// base64Blobs reports long base64 runs, decoding them when they hold text
// and scanning that text for the other indicators.
func base64Blobs(s string) []hit {
	if len(s) < minBase64 {
		return nil
	}
	var hits []hit
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		j := i
		var upper, lower, digit bool
		for j < len(s) && isB64(s[j]) {
			c := s[j]
			upper = upper || ('A' <= c && c <= 'Z')
			lower = lower || ('a' <= c && c <= 'z')
			digit = digit || ('0' <= c && c <= '9')
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if j-i >= minBase64 && upper && lower && digit {
			hits = append(hits, base64Hit(s, i, end))
		}
		i = end
		if i == j {
			i++
		}
	}
	return hits
}

func isB64(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '+' || c == '/' || c == '-' || c == '_'
}

func base64Hit(s string, a, b int) hit {
	h := hit{fa: -1, fb: -1, oa: a, ob: b}
	h.ID, h.Category, h.Severity = "stealth.base64", Stealth, Med
	h.Match = clip(s[a:b], 40)
	text, ok := decodeText(s[a:b])
	switch {
	case ok:
		var inner []string
		for _, f := range scanText(text, text, Instructions, 1) {
			if f.Severity >= Med && f.Category != Secret && !strings.Contains(strings.Join(inner, ","), f.ID) {
				inner = append(inner, f.ID)
			}
		}
		if len(inner) > 0 {
			h.Severity = High
			h.Explain = fmt.Sprintf("%d-character base64 blob decodes to text carrying %s: %q", b-a, strings.Join(inner, ", "), clip(text, 80))
		} else {
			h.Explain = fmt.Sprintf("%d-character base64 blob decodes to text: %q", b-a, clip(text, 80))
		}
	case strings.HasSuffix(s[:a], "base64,"):
		h.Severity = Low
		h.Explain = fmt.Sprintf("%d-character base64 data URI (binary content)", b-a)
	default:
		h.Explain = fmt.Sprintf("%d-character base64 blob that no reader can check", b-a)
	}
	return h
}

// decodeText decodes a base64 run and reports whether it holds text.
func decodeText(run string) (string, bool) {
	trimmed := strings.TrimRight(run, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		n := len(trimmed) - len(trimmed)%4
		if len(trimmed)%4 > 1 {
			n = len(trimmed)
		}
		b, err := enc.DecodeString(trimmed[:n])
		if err != nil {
			continue
		}
		if !utf8.Valid(b) {
			return "", false
		}
		printable := 0
		total := 0
		for _, r := range string(b) {
			total++
			if unicode.IsPrint(r) || unicode.IsSpace(r) {
				printable++
			}
		}
		return string(b), total > 0 && printable*10 >= total*9
	}
	return "", false
}
