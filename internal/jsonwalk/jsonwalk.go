// Package jsonwalk finds the strings of a JSON value, with their spans,
// without decoding it: the proxy and the hook read a result's strings
// through it (scan.ReadAnswer), so both read the same ones, and the proxy
// finds a message's members with it. It decodes nothing it is not asked
// for and decides nothing.
package jsonwalk

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// MaxDepth bounds the walk: deeper values are not read (the proxy's
// framing refuses deeper messages before they get here).
const MaxDepth = 128

// EachString calls fn for every string value of the JSON value raw (which
// the proxy has validated) outside the members skip names, with its span
// in raw (quotes included) and its text. It finds a string's end with a
// byte search rather than byte by byte: most of a 10 KB result is one or
// two long strings, and a skipped image is one long string. path builds
// the string's place ("content[0].text") only when asked.
//
// esc says the string holds escapes: its text is then not raw[a+1:b-1]
// (Text decodes it).
func EachString(raw string, skip map[string]bool, fn func(path func() string, a, b int, esc bool)) {
	w := jsonWalker{s: raw, skip: skip, fn: fn}
	w.value(false, 0)
}

type jsonWalker struct {
	s    string
	i    int
	skip map[string]bool
	fn   func(path func() string, a, b int, esc bool)
	segs []pathSeg
}

type pathSeg struct {
	key string
	idx int // -1 for a key
}

func (w *jsonWalker) path() string {
	var b strings.Builder
	for _, s := range w.segs {
		switch {
		case s.idx >= 0:
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

func (w *jsonWalker) peek() byte {
	for w.i < len(w.s) {
		switch c := w.s[w.i]; c {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return c
		}
	}
	return 0
}

// str reads the string at w.i: its span and whether it holds escapes.
func (w *jsonWalker) str() (a, b int, esc bool) {
	a = w.i
	j := w.i + 1
	for {
		k := strings.IndexByte(w.s[j:], '"')
		if k < 0 {
			w.i = len(w.s)
			return a, len(w.s), true
		}
		q := j + k
		n := 0
		for p := q - 1; p > a && w.s[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			w.i = q + 1
			return a, q + 1, strings.IndexByte(w.s[a+1:q], '\\') >= 0
		}
		j = q + 1
	}
}

func (w *jsonWalker) text(a, b int, esc bool) string { return Text(w.s, a, b, esc) }

// Text is the text of the string literal raw[a:b] (quotes included), as
// EachString gave it.
func Text(raw string, a, b int, esc bool) string {
	if b-a < 2 {
		return ""
	}
	if esc {
		return gjson.Parse(raw[a:b]).Str
	}
	return raw[a+1 : b-1]
}

func (w *jsonWalker) value(skip bool, depth int) {
	if depth > MaxDepth {
		w.i = len(w.s)
		return
	}
	switch w.peek() {
	case '"':
		a, b, esc := w.str()
		if !skip && w.fn != nil {
			w.fn(w.path, a, b, esc)
		}
	case '{':
		w.i++
		for {
			switch w.peek() {
			case '}':
				w.i++
				return
			case ',':
				w.i++
				continue
			case '"':
			default:
				w.i = len(w.s)
				return
			}
			a, b, esc := w.str()
			key := w.text(a, b, esc)
			if w.peek() != ':' {
				w.i = len(w.s)
				return
			}
			w.i++
			w.segs = append(w.segs, pathSeg{key: key, idx: -1})
			w.value(skip || w.skip[key], depth+1)
			w.segs = w.segs[:len(w.segs)-1]
		}
	case '[':
		w.i++
		for n := 0; ; {
			switch w.peek() {
			case ']':
				w.i++
				return
			case ',':
				w.i++
				continue
			case 0:
				return
			}
			w.segs = append(w.segs, pathSeg{idx: n})
			w.value(skip, depth+1)
			w.segs = w.segs[:len(w.segs)-1]
			n++
		}
	case 0:
	default: // a number, true, false or null
		for w.i < len(w.s) && strings.IndexByte(",]} \t\n\r", w.s[w.i]) < 0 {
			w.i++
		}
	}
}

// MemberSpan is the span of the value of the top-level member key of the
// JSON object raw, or -1, -1. The first of two equal keys is taken, as
// gjson (and so the rest of the proxy) takes it; framing refused messages
// that repeat a key.
func MemberSpan(raw, key string) (int, int) {
	w := jsonWalker{s: raw}
	if w.peek() != '{' {
		return -1, -1
	}
	w.i++
	for {
		switch w.peek() {
		case ',':
			w.i++
			continue
		case '"':
		default:
			return -1, -1
		}
		a, b, esc := w.str()
		k := w.text(a, b, esc)
		if w.peek() != ':' {
			return -1, -1
		}
		w.i++
		w.peek()
		start := w.i
		w.value(true, 1)
		if k == key {
			return start, w.i
		}
	}
}

// Edit replaces raw[A:B] with With.
type Edit struct {
	A, B int
	With []byte
}

// Replace applies edits to raw, given in order and not overlapping; false
// when they are not (raw is then not rewritten).
func Replace(raw string, edits []Edit) (string, bool) {
	var b strings.Builder
	b.Grow(len(raw))
	at := 0
	for _, e := range edits {
		if e.A < at || e.B > len(raw) || e.B <= e.A {
			return "", false
		}
		b.WriteString(raw[at:e.A])
		b.Write(e.With)
		at = e.B
	}
	b.WriteString(raw[at:])
	return b.String(), true
}

// Quote is s as a JSON string literal, with <, > and & as they are (a
// model reads them).
func Quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return []byte(`""`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
