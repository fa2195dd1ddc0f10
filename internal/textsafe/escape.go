package textsafe

import (
	"strings"
	"unicode/utf8"
)

// Escape makes s safe to print on a terminal: the result is valid UTF-8 and
// contains no character of the table (Hidden), so text from an agent, a
// server or a record can neither forge a line nor hide or reorder what is
// displayed; and it decodes back to s, so two different strings never
// display the same.
//
//   - backslash becomes \\ (so escapes are unambiguous)
//   - \n, \r and \t become \n, \r and \t
//   - other C0 controls and DEL become \xNN (e.g. ESC is \x1b)
//   - bytes that are not valid UTF-8 become \xNN
//   - every other character of the table (C1 controls, bidi controls,
//     zero-width and other format characters, Hangul fillers, variation
//     selectors, line and paragraph separators, tag and private-use
//     characters) becomes \uXXXX or \UXXXXXXXX.
//
// Everything else, including ordinary non-ASCII text, is kept as is.
func Escape(s string) string { return escape(s, true) }

// EscapeLoose is Escape for text full of backslashes that mean themselves
// (Windows paths, the content of scanned files): a backslash is kept as
// it is, so the result is for display only, not a reversible quoting.
// Every character of the table is escaped exactly as Escape does.
func EscapeLoose(s string) string { return escape(s, false) }

func escape(s string, backslash bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == '\\' && backslash) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Hidden(r) {
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
			case c == '\\' && backslash:
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
		case Hidden(r):
			writeRuneEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

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
