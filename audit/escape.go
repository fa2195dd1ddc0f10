package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes s safe to print on a terminal: the result is valid UTF-8 and
// contains no control, bidi, invisible or tag character, so text from a
// record can neither forge a line nor hide or reorder what is displayed.
//
//   - backslash becomes \\ (so escapes are unambiguous)
//   - \n, \r and \t become \n, \r and \t
//   - other C0 controls and DEL become \xNN (e.g. ESC is \x1b)
//   - bytes that are not valid UTF-8 become \xNN
//   - C1 controls, bidi embeddings/overrides/isolates and marks (U+202A-202E,
//     U+2066-2069, U+200E, U+200F, U+061C), zero-width and other format
//     characters (U+200B-200D, U+2060-2064, U+FEFF, U+00AD, ...), line and
//     paragraph separators, variation selectors, Hangul fillers and Unicode
//     tag characters (U+E0000-E007F) become \uXXXX or \UXXXXXXXX.
//
// Everything else, including ordinary non-ASCII text, is kept as is.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || hiddenRune(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				writeHexByte(&b, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHexByte(&b, c)
		case hiddenRune(r):
			writeRuneEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeHexByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xF])
}

func writeRuneEscape(b *strings.Builder, r rune) {
	if r > 0xFFFF {
		b.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>uint(shift))&0xF])
		}
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>uint(shift))&0xF])
	}
}

// hiddenRune reports non-ASCII runes that control the terminal, change text
// direction, or render as nothing.
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9F: // C1 controls
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0xFEFF: // zero-width, LRM/RLM, word joiner, invisible operators
		return true
	case r >= 0xE0000 && r <= 0xE007F: // tag characters
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors (can smuggle hidden data)
		return true
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0: // Hangul fillers, render blank
		return true
	}
	// Remaining format characters: soft hyphen, U+061C, U+180E, U+FFF9-FFFB, ...
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r)
}
