package setup

import (
	"encoding/json"
	"sort"
	"unicode/utf8"
)

// jdoc is a JSON text that encoding/json has already accepted, read in
// place. Working on offsets rather than on a decoded tree is what gives
// every server its line, keeps a multi-megabyte ~/.claude.json cheap (the
// parts no one asks for are skipped, not decoded), and keeps the reader
// iterative however deep the nesting.
type jdoc struct {
	src []byte
	nl  []int // offsets of '\n', built on first use
}

// jval is one value in a jdoc: src[off:end].
type jval struct {
	d        *jdoc
	off, end int
}

func (d *jdoc) lineAt(off int) int {
	if d.nl == nil {
		d.nl = make([]int, 0, 64)
		for i, c := range d.src {
			if c == '\n' {
				d.nl = append(d.nl, i)
			}
		}
	}
	return 1 + sort.SearchInts(d.nl, off)
}

func (d *jdoc) skipSpace(i int) int {
	for i < len(d.src) {
		switch d.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// valueEnd returns the offset just past the value starting at i.
func (d *jdoc) valueEnd(i int) int {
	if i >= len(d.src) {
		return len(d.src)
	}
	switch d.src[i] {
	case '"':
		return stringEnd(d.src, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(d.src); {
			switch d.src[j] {
			case '"':
				j = stringEnd(d.src, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(d.src)
	}
	j := i
	for j < len(d.src) {
		switch d.src[j] {
		case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// root is the document's top-level value; ok is false for a text with no
// value at all (empty, or only comments).
func (d *jdoc) root() (jval, bool) {
	i := d.skipSpace(0)
	if i >= len(d.src) {
		return jval{}, false
	}
	return jval{d, i, d.valueEnd(i)}, true
}

func (v jval) kind() kind {
	if v.d == nil || v.off >= len(v.d.src) {
		return kNull
	}
	switch v.d.src[v.off] {
	case '{':
		return kObj
	case '[':
		return kArr
	case '"':
		return kStr
	case 't', 'f':
		return kBool
	case 'n':
		return kNull
	}
	return kNum
}

func (v jval) text() string {
	if v.kind() == kStr {
		return decodeJSONString(v.d.src[v.off:v.end])
	}
	return string(v.d.src[v.off:v.end])
}

func (v jval) line() int   { return v.d.lineAt(v.off) }
func (v jval) loose() bool { return false }

func (v jval) elems() []value {
	if v.kind() != kArr {
		return nil
	}
	var out []value
	d := v.d
	for i := d.skipSpace(v.off + 1); i < v.end && d.src[i] != ']'; {
		e := d.valueEnd(i)
		if e <= i {
			break
		}
		out = append(out, jval{d, i, e})
		i = d.skipSpace(e)
		if i < v.end && d.src[i] == ',' {
			i = d.skipSpace(i + 1)
		}
	}
	return out
}

func (v jval) members() []member {
	mems := jmembers(v)
	if mems == nil {
		return nil
	}
	out := make([]member, 0, len(mems))
	for _, m := range mems {
		out = append(out, member{key: m.key, line: v.d.lineAt(m.keyOff), val: m.val})
	}
	return out
}

// decodeJSONString decodes a string literal (quotes included) exactly as
// encoding/json does, invalid UTF-8 and lone surrogates included.
func decodeJSONString(lit []byte) string {
	if len(lit) >= 2 {
		inner := lit[1 : len(lit)-1]
		plain := utf8.Valid(inner)
		for _, c := range inner {
			if c == '\\' || c < 0x20 {
				plain = false
				break
			}
		}
		if plain {
			return string(inner)
		}
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return string(lit)
	}
	return s
}
