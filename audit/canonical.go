package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The canonical encoding is exactly what encoding/json.Marshal produces for
// a value decoded with json.Decoder.UseNumber into map[string]any: object
// members sorted by key (byte order), no white space, json.Number literals
// verbatim, and encoding/json's string escaping with HTML escaping on. It is
// implemented here rather than delegated to encoding/json so that the hash
// of a record can never change with the Go release the binary was built
// with; canonical_test.go checks that both agree.

// excludedFromHash are the members left out of h: h itself and the reserved
// signature members.
var excludedFromHash = []string{"h", "sig", "alg"}

func isExcluded(key []byte) bool {
	switch string(key) {
	case "h", "sig", "alg":
		return true
	}
	return false
}

// maxDepth bounds nesting like encoding/json's decoder does.
const maxDepth = 10000

const hexDigits = "0123456789abcdef"

// safeByte reports ASCII bytes encoding/json writes unescaped.
var safeByte = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		switch b {
		case '"', '\\', '<', '>', '&':
		default:
			t[b] = true
		}
	}
	return t
}()

// appendCanonical appends the canonical encoding of v, which must hold only
// the types produced by a UseNumber decode.
func appendCanonical(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return dst, errors.New("nesting too deep")
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if v {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendCanonicalString(dst, v), nil
	case json.Number:
		s := string(v)
		if s == "" {
			s = "0"
		}
		if !validNumber([]byte(s)) {
			return dst, fmt.Errorf("invalid number %q", s)
		}
		return append(dst, s...), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendCanonical(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonicalString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendCanonical(dst, v[k], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	default:
		return dst, fmt.Errorf("unsupported type %T", v)
	}
}

// appendCanonicalString appends s as a JSON string the way encoding/json
// does (HTML-safe, invalid UTF-8 as \ufffd, U+2028/U+2029 escaped).
func appendCanonicalString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safeByte[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
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
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeObject decodes one JSON object the way the specification says:
// json.Decoder with UseNumber into map[string]any. Trailing white space is
// allowed, anything else after the object is not.
func decodeObject(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: data after the object")
	}
	return m, nil
}

// hashObject returns the hex h of a decoded record: SHA-256 of the canonical
// encoding of m without the excluded members. m is not modified.
func hashObject(m map[string]any) (string, error) {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	for _, k := range excludedFromHash {
		delete(c, k)
	}
	b, err := appendCanonical(nil, c, 0)
	if err != nil {
		return "", fmt.Errorf("canonical encoding: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// encodeRecord turns r into its canonical line (without the newline),
// setting r.Prev to prev and r.H to the computed hash. It returns the record
// as it will read back from the line.
func encodeRecord(r Record, prev string) ([]byte, Record, error) {
	if line, out, ok := encodeRecordFast(r, prev); ok {
		return line, out, nil
	}
	return encodeRecordSlow(r, prev)
}

// encodeRecordSlow is the reference encoding: the record through
// encoding/json into the map the specification hashes, and back.
func encodeRecordSlow(r Record, prev string) ([]byte, Record, error) {
	r.Prev = prev
	r.H, r.Alg, r.Sig = "", "", ""
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, Record{}, fmt.Errorf("marshal record: %w", err)
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil, Record{}, fmt.Errorf("re-decode record: %w", err)
	}
	h, err := hashObject(m)
	if err != nil {
		return nil, Record{}, fmt.Errorf("hash record: %w", err)
	}
	m["h"] = h
	line, err := appendCanonical(nil, m, 0)
	if err != nil {
		return nil, Record{}, fmt.Errorf("encode record: %w", err)
	}
	var out Record
	if err := json.Unmarshal(line, &out); err != nil {
		return nil, Record{}, fmt.Errorf("read back record: %w", err)
	}
	return line, out, nil
}

// lineFields is what the fast parser extracts from a canonical line. Byte
// slices alias the line.
type lineFields struct {
	h, prev               []byte // raw (canonical) string contents; nil if absent or not a string
	event, detail, reason []byte // likewise
	alg, sig              []byte // likewise
	hashed                [sha256.Size]byte
}

// errNotCanonical is returned by parseCanonical for lines that are not in
// canonical form; such lines may still be valid JSON (see decodeObject).
var errNotCanonical = errors.New("not canonical")

// canonParser validates canonical JSON without allocating in the common
// case. scratch buffers are reused between lines.
type canonParser struct {
	b       []byte
	keyA    []byte
	keyB    []byte
	hashBuf []byte
}

// parseCanonical checks that line is a canonical JSON object and, if so,
// fills f, including the hash of the line without its excluded members.
func (p *canonParser) parseCanonical(line []byte, f *lineFields) error {
	*f = lineFields{}
	p.b = line
	if len(line) < 2 || line[0] != '{' {
		return errNotCanonical
	}
	// Spans of excluded members, as [start,end) offsets of `"key":value`.
	var excl [3][2]int
	nexcl := 0
	i := 1
	if line[1] == '}' {
		i = 2
	} else {
		var prevKey []byte
		useA := true
		for {
			mstart := i
			key, next, err := p.key(i, useA)
			if err != nil {
				return err
			}
			if prevKey != nil && bytes.Compare(key, prevKey) <= 0 {
				return errNotCanonical
			}
			prevKey = key
			useA = !useA
			i = next
			if i >= len(line) || line[i] != ':' {
				return errNotCanonical
			}
			i++
			vstart := i
			if i, err = p.value(i, 1); err != nil {
				return err
			}
			val := line[vstart:i]
			var str []byte
			if len(val) >= 2 && val[0] == '"' {
				str = val[1 : len(val)-1]
			}
			switch string(key) {
			case "h":
				f.h = str
			case "prev":
				f.prev = str
			case "event":
				f.event = str
			case "detail":
				f.detail = str
			case "reason":
				f.reason = str
			case "alg":
				f.alg = str
			case "sig":
				f.sig = str
			}
			if isExcluded(key) {
				excl[nexcl] = [2]int{mstart, i}
				nexcl++
			}
			if i >= len(line) {
				return errNotCanonical
			}
			if line[i] == ',' {
				i++
				continue
			}
			if line[i] == '}' {
				i++
				break
			}
			return errNotCanonical
		}
	}
	if i != len(line) {
		return errNotCanonical
	}
	if nexcl == 0 {
		f.hashed = sha256.Sum256(line)
		return nil
	}
	// Remove the excluded members: the pieces between them are runs of
	// members with stray commas at their ends.
	buf := append(p.hashBuf[:0], '{')
	first := true
	pos := 1
	for k := 0; k <= nexcl; k++ {
		end := len(line) - 1
		if k < nexcl {
			end = excl[k][0]
		}
		piece := line[pos:end]
		for len(piece) > 0 && piece[0] == ',' {
			piece = piece[1:]
		}
		for len(piece) > 0 && piece[len(piece)-1] == ',' {
			piece = piece[:len(piece)-1]
		}
		if len(piece) > 0 {
			if !first {
				buf = append(buf, ',')
			}
			buf = append(buf, piece...)
			first = false
		}
		if k < nexcl {
			pos = excl[k][1]
		}
	}
	buf = append(buf, '}')
	p.hashBuf = buf
	f.hashed = sha256.Sum256(buf)
	return nil
}

// key scans a canonical object key at i and returns its decoded bytes.
func (p *canonParser) key(i int, useA bool) ([]byte, int, error) {
	next, esc, err := scanCanonicalString(p.b, i)
	if err != nil {
		return nil, 0, err
	}
	raw := p.b[i+1 : next-1]
	if !esc {
		return raw, next, nil
	}
	if useA {
		p.keyA = unescapeCanonical(p.keyA[:0], raw)
		return p.keyA, next, nil
	}
	p.keyB = unescapeCanonical(p.keyB[:0], raw)
	return p.keyB, next, nil
}

// value scans a canonical value at i whose enclosing container is at
// nesting level parent (the top-level object is level 1).
func (p *canonParser) value(i, parent int) (int, error) {
	b := p.b
	if i >= len(b) {
		return 0, errNotCanonical
	}
	switch c := b[i]; {
	case c == '"':
		next, _, err := scanCanonicalString(b, i)
		return next, err
	case c == '{':
		if parent+1 > maxDepth {
			return 0, errNotCanonical
		}
		return p.object(i, parent+1)
	case c == '[':
		if parent+1 > maxDepth {
			return 0, errNotCanonical
		}
		level := parent + 1
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = p.value(i, level); err != nil {
				return 0, err
			}
			if i >= len(b) {
				return 0, errNotCanonical
			}
			if b[i] == ']' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, errNotCanonical
			}
			i++
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i
		for j < len(b) && isNumberByte(b[j]) {
			j++
		}
		if !validNumber(b[i:j]) {
			return 0, errNotCanonical
		}
		return j, nil
	}
	return 0, errNotCanonical
}

// object scans a nested canonical object at nesting level level. Nested
// keys with escapes are rare, so they are decoded into fresh buffers.
func (p *canonParser) object(i, level int) (int, error) {
	b := p.b
	i++
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	var prevKey []byte
	for {
		next, esc, err := scanCanonicalString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : next-1]
		if esc {
			key = unescapeCanonical(nil, key)
		}
		if prevKey != nil && bytes.Compare(key, prevKey) <= 0 {
			return 0, errNotCanonical
		}
		prevKey = key
		i = next
		if i >= len(b) || b[i] != ':' {
			return 0, errNotCanonical
		}
		if i, err = p.value(i+1, level); err != nil {
			return 0, err
		}
		if i >= len(b) {
			return 0, errNotCanonical
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errNotCanonical
		}
		i++
	}
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errNotCanonical
	}
	return i + len(lit), nil
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if len(s) == 0 {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case s[0] >= '1' && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && s[1] >= '0' && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if len(s) == 0 {
				return false
			}
		}
		for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			s = s[1:]
		}
	}
	return len(s) == 0
}

// scanCanonicalString checks the string starting at b[i] (a '"') is in the
// exact form appendCanonicalString produces. It returns the index after the
// closing quote and whether the string contains escapes.
func scanCanonicalString(b []byte, i int) (int, bool, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, errNotCanonical
	}
	esc := false
	j := i + 1
	for j < len(b) {
		c := b[j]
		if c < utf8.RuneSelf {
			if safeByte[c] {
				j++
				continue
			}
			switch c {
			case '"':
				return j + 1, esc, nil
			case '\\':
				esc = true
				if j+1 >= len(b) {
					return 0, false, errNotCanonical
				}
				switch b[j+1] {
				case '"', '\\', 'b', 'f', 'n', 'r', 't':
					j += 2
					continue
				case 'u':
					if j+6 > len(b) {
						return 0, false, errNotCanonical
					}
					v, ok := lowerHex4(b[j+2 : j+6])
					if !ok || !canonicalUEscape(v) {
						return 0, false, errNotCanonical
					}
					j += 6
					continue
				}
			}
			return 0, false, errNotCanonical
		}
		r, size := utf8.DecodeRune(b[j:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return 0, false, errNotCanonical
		}
		j += size
	}
	return 0, false, errNotCanonical
}

// canonicalUEscape reports whether \uXXXX with value v is how the canonical
// encoder writes that character.
func canonicalUEscape(v rune) bool {
	switch v {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	case '<', '>', '&', '\u2028', '\u2029':
		return true
	}
	return v < 0x20
}

func lowerHex4(b []byte) (rune, bool) {
	var v rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// unescapeCanonical decodes the contents of a string already validated by
// scanCanonicalString.
func unescapeCanonical(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			v, _ := lowerHex4(raw[i+1 : i+5])
			dst = utf8.AppendRune(dst, v)
			i += 4
		default: // '"' or '\\'
			dst = append(dst, raw[i])
		}
	}
	return dst
}

// stringValue decodes the raw contents of a canonical string.
func stringValue(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	return string(unescapeCanonical(nil, raw))
}

// isHexDigest reports whether s is 64 lower-case hex digits.
func isHexDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	return strings.Trim(s, hexDigits) == ""
}
