package pins

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The canonical encoding of a JSON value, which tool digests and toolset
// hashes are computed over:
//
//   - object members sorted by key, comparing the keys' UTF-8 bytes;
//   - no white space between tokens;
//   - numbers exactly as the server wrote them (1.0 and 1 differ);
//   - strings decoded and re-encoded with the escaping encoding/json uses by
//     default: \" \\ \b \f \n \r \t, \u00XX for other control characters,
//     \u003c \u003e \u0026 for < > &, \uXXXX (a surrogate pair beyond
//     U+FFFF) for the characters hiddenRune lists, U+2028 and U+2029
//     among them, and every other character as raw UTF-8. Invalid UTF-8
//     and lone surrogates decode to U+FFFD, as in every JSON client.
//
// The escaping is a superset of encoding/json's, so a canonical value
// embedded in pins.json (as json.RawMessage) is written back byte for
// byte, and a hidden character in a description is visible to anyone who
// reads the file. It is implemented here so that a digest can never change
// with the Go release the binary was built with.
//
// An object that repeats a key is refused rather than resolved: two parsers
// that resolve it differently would let a server show one description to
// the gate and another to the model.

// maxCanonDepth bounds nesting; no honest tool schema comes near it, and a
// bound keeps a hostile server from exhausting the stack.
const maxCanonDepth = 200

// canonical returns the canonical encoding of the single JSON value in raw
// (white space around it allowed).
func canonical(raw []byte) ([]byte, error) {
	p := parser{b: raw}
	out, err := p.value(nil, 0)
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return out, nil
}

// parser reads JSON as RFC 8259 defines it and writes the canonical form
// as it goes. It is hand-written rather than built on json.Decoder.Token
// both for speed (a twentieth of the allocations) and because it must see
// repeated keys, which encoding/json resolves silently.
type parser struct {
	b   []byte
	i   int
	buf []byte // scratch for decoded strings
}

// syntaxError is malformed JSON in a tool, with the byte offset.
type syntaxError struct {
	Offset int
	Msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

func (p *parser) fail(msg string) error { return &syntaxError{Offset: p.i, Msg: msg} }

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// end checks that nothing but white space follows the value.
func (p *parser) end() error {
	p.space()
	if p.i != len(p.b) {
		return p.fail("unexpected data after the JSON value")
	}
	return nil
}

// peek skips white space and returns the next byte, or 0 at the end.
func (p *parser) peek() byte {
	p.space()
	if p.i == len(p.b) {
		return 0
	}
	return p.b[p.i]
}

func (p *parser) value(dst []byte, depth int) ([]byte, error) {
	switch c := p.peek(); {
	case c == '{' || c == '[':
		if depth >= maxCanonDepth {
			return dst, p.fail(fmt.Sprintf("nested deeper than %d levels", maxCanonDepth))
		}
		if c == '{' {
			return p.object(dst, depth+1)
		}
		return p.array(dst, depth+1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return dst, err
		}
		return appendString(dst, s), nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	case c == 0:
		return dst, p.fail("unexpected end of JSON")
	}
	return dst, p.fail(fmt.Sprintf("invalid character %q looking for a value", p.b[p.i]))
}

func (p *parser) literal(dst []byte, lit string) ([]byte, error) {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return dst, p.fail("invalid literal")
	}
	p.i += len(lit)
	return append(dst, lit...), nil
}

// number copies a number literal exactly as written, after checking it
// follows the JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number(dst []byte) ([]byte, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return dst, p.fail("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return dst, p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return dst, p.fail("invalid number")
		}
	}
	return append(dst, p.b[start:p.i]...), nil
}

// str decodes the string at p.i the way encoding/json does: escapes
// resolved, invalid UTF-8 bytes and unpaired surrogates become U+FFFD.
// The result aliases the input or p.buf and is valid until the next call.
func (p *parser) str() ([]byte, error) {
	p.i++ // opening quote
	start := p.i
	// fast path: printable ASCII, no escapes
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	buf := append(p.buf[:0], p.b[start:p.i]...)
	for {
		if p.i >= len(p.b) {
			return nil, p.fail("unexpected end of JSON in a string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = buf
			return buf, nil
		case c < 0x20:
			return nil, p.fail("control character in a string")
		case c == '\\':
			var err error
			if buf, err = p.escape(buf); err != nil {
				return nil, err
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, p.b[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
}

func (p *parser) escape(buf []byte) ([]byte, error) {
	if p.i+1 >= len(p.b) {
		return buf, p.fail("unexpected end of JSON in a string")
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return buf, p.fail("invalid \\u escape in a string")
		}
		if utf16.IsSurrogate(r) {
			// a high surrogate followed by \uLOW is one character
			save := p.i
			if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				p.i += 2
				if r2, ok := p.hex4(); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return utf8.AppendRune(buf, dec), nil
					}
				}
			}
			p.i = save
			r = utf8.RuneError
		}
		return utf8.AppendRune(buf, r), nil
	}
	return buf, p.fail("invalid escape in a string")
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.i += 4
	return r, true
}

func (p *parser) array(dst []byte, depth int) ([]byte, error) {
	p.i++ // '['
	dst = append(dst, '[')
	if p.peek() == ']' {
		p.i++
		return append(dst, ']'), nil
	}
	for {
		var err error
		if dst, err = p.value(dst, depth); err != nil {
			return dst, err
		}
		switch p.peek() {
		case ',':
			p.i++
			dst = append(dst, ',')
		case ']':
			p.i++
			return append(dst, ']'), nil
		default:
			return dst, p.fail("expected , or ] in an array")
		}
	}
}

type member struct {
	key string
	val []byte
}

// members parses an object and returns the members keep accepts (all when
// keep is nil), in order of appearance; the others are parsed and dropped.
func (p *parser) members(depth int, keep func(key string) bool) ([]member, error) {
	p.i++ // '{'
	var members []member
	if p.peek() == '}' {
		p.i++
		return members, nil
	}
	for {
		if p.peek() != '"' {
			return members, p.fail("expected a string key in an object")
		}
		k, err := p.str()
		if err != nil {
			return members, err
		}
		key := string(k)
		if p.peek() != ':' {
			return members, p.fail("expected : after an object key")
		}
		p.i++
		if keep == nil || keep(key) {
			val, err := p.value(nil, depth)
			if err != nil {
				return members, err
			}
			members = append(members, member{key, val})
		} else if _, err := p.value(nil, depth); err != nil {
			return members, err
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return members, nil
		default:
			return members, p.fail("expected , or } in an object")
		}
	}
}

func (p *parser) object(dst []byte, depth int) ([]byte, error) {
	members, err := p.members(depth, nil)
	if err != nil {
		return dst, err
	}
	return appendMembers(dst, members)
}

// appendMembers writes members as a canonical object, sorted here; a key
// that appears twice is an error.
func appendMembers(dst []byte, members []member) ([]byte, error) {
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if m.key == members[i-1].key {
				return dst, fmt.Errorf("object repeats the key %q", m.key)
			}
			dst = append(dst, ',')
		}
		dst = appendString(dst, m.key)
		dst = append(dst, ':')
		dst = append(dst, m.val...)
	}
	return append(dst, '}'), nil
}

const hexDigits = "0123456789abcdef"

// decodeRune decodes the first character of s, which is valid UTF-8.
func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	c := s[0]
	switch {
	case c < 0xE0 && len(s) >= 2:
		return rune(c&0x1F)<<6 | rune(s[1]&0x3F), 2
	case c < 0xF0 && len(s) >= 3:
		return rune(c&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	case len(s) >= 4:
		return rune(c&0x07)<<18 | rune(s[1]&0x3F)<<12 | rune(s[2]&0x3F)<<6 | rune(s[3]&0x3F), 4
	}
	return utf8.RuneError, 1
}

// hiddenRune reports characters a terminal or a model may render
// invisibly or out of order: C1 controls, the soft hyphen, bidi marks,
// embeddings, overrides and isolates, zero-width and other format
// characters, line and paragraph separators, variation selectors and
// Unicode tags. Canonical JSON escapes them, so pins.json shows them.
//
// This is not textsafe's table and must not become it: digests are
// computed over the encoding, so it is frozen. TestCanonAgainstTable lists
// what the table hides and this leaves raw (Hangul fillers such as U+3164,
// private use, some format characters); everything shown from a pin goes
// through textsafe.Escape, which hides those too.
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9F, r == 0xAD, r == 0x61C, r == 0x180E,
		r >= 0x200B && r <= 0x200F, r >= 0x2028 && r <= 0x202E,
		r >= 0x2060 && r <= 0x206F, r == 0xFEFF, r >= 0xFFF9 && r <= 0xFFFB,
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// appendUEscape writes r as \uXXXX, or as a surrogate pair beyond U+FFFF.
func appendUEscape(dst []byte, r rune) []byte {
	if r > 0xFFFF {
		r1, r2 := utf16.EncodeRune(r)
		return appendUEscape(appendUEscape(dst, r1), r2)
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendString appends s, which is valid UTF-8 (str replaced anything
// else), as a canonical JSON string.
func appendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := decodeRune(s[i:])
			if hiddenRune(r) {
				dst = append(dst, s[start:i]...)
				dst = appendUEscape(dst, r)
				start = i + size
			}
			i += size - 1
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
