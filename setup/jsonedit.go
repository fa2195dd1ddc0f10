package setup

import (
	"bytes"
	"encoding/json"
	"strings"
)

// In-place JSON(C) edits. Offsets are found in the blanked text (comments
// and trailing commas turned to spaces, every byte where it was), and the
// splices are applied to the original bytes, so comments survive.

// jmem is one object member with the offset of its key.
type jmem struct {
	key    string
	keyOff int
	val    jval
}

// jmembers lists an object's members in file order (as jval.members, with
// the key offsets an edit needs).
func jmembers(v jval) []jmem {
	if v.kind() != kObj {
		return nil
	}
	var out []jmem
	d := v.d
	for i := d.skipSpace(v.off + 1); i < v.end && d.src[i] == '"'; {
		kend := stringEnd(d.src, i)
		m := jmem{key: decodeJSONString(d.src[i:kend]), keyOff: i}
		i = d.skipSpace(kend)
		if i >= v.end || d.src[i] != ':' {
			break
		}
		i = d.skipSpace(i + 1)
		e := d.valueEnd(i)
		if e <= i {
			break
		}
		m.val = jval{d, i, e}
		out = append(out, m)
		i = d.skipSpace(e)
		if i < v.end && d.src[i] == ',' {
			i = d.skipSpace(i + 1)
		}
	}
	return out
}

// jlast is the last member named key, null or not: the one a reader keeps.
func jlast(v jval, key string) (jmem, bool) {
	var m jmem
	found := false
	for _, x := range jmembers(v) {
		if x.key == key {
			m, found = x, true
		}
	}
	return m, found
}

// jelems lists an array's elements.
func jelems(v jval) []jval {
	var out []jval
	for _, e := range v.elems() {
		out = append(out, e.(jval))
	}
	return out
}

// jsonIndentUnit guesses one level of the file's indentation: the
// smallest indentation of a line that starts a member; two spaces when the
// file gives no hint.
func jsonIndentUnit(src []byte) string {
	best := ""
	for _, line := range bytes.Split(src, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == len(line) || len(t) == 0 || t[0] != '"' {
			continue
		}
		ind := string(line[:len(line)-len(t)])
		if best == "" || len(ind) < len(best) {
			best = ind
		}
	}
	if best == "" {
		return "  "
	}
	return best
}

// jsonRender writes v for a place whose line is indented by ind: indented
// JSON when pretty, one line otherwise. Structs keep their field order.
func jsonRender(v any, pretty bool, ind, unit string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent(ind, unit)
	}
	_ = enc.Encode(v) // the values rendered here are plain data
	s := strings.TrimSuffix(b.String(), "\n")
	if !pretty {
		// One line, but readable: {"a": 1, "b": [2]}.
		s = spaceJSON(s)
	}
	return s
}

// spaceJSON puts a space after each ':' and ',' outside strings of a
// compact JSON text.
func spaceJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			j := stringEnd([]byte(s), i)
			b.WriteString(s[i:j])
			i = j - 1
			continue
		}
		b.WriteByte(c)
		if c == ':' || c == ',' {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// kv is a member to add.
type kv struct {
	key string
	val any
}

// spansLines says the container v is written over more than one line.
func spansLines(v jval) bool {
	return bytes.IndexByte(v.d.src[v.off:v.end], '\n') >= 0
}

// insertMembers adds members at the end of object obj, written in the
// object's own style: one per line at the last member's indentation when
// the object spans lines, inline otherwise.
func insertMembers(obj jval, add []kv, nl string) splice {
	src := obj.d.src
	unit := jsonIndentUnit(src)
	mems := jmembers(obj)
	var b strings.Builder
	if len(mems) > 0 {
		last := mems[len(mems)-1]
		pretty := spansLines(obj)
		ind := indentOf(src, last.keyOff)
		for _, m := range add {
			if pretty {
				b.WriteString("," + nl + ind)
			} else {
				b.WriteString(", ")
			}
			b.WriteString(jsonQuote(m.key) + ": " + jsonRender(m.val, pretty, ind, unit))
		}
		return splice{last.val.end, last.val.end, b.String()}
	}
	// An empty object: lay the members out one level in.
	ind := indentOf(src, obj.off)
	for i, m := range add {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(nl + ind + unit + jsonQuote(m.key) + ": " + jsonRender(m.val, true, ind+unit, unit))
	}
	b.WriteString(nl + ind)
	// Replace the inside of {} (white space only: blanked comments are
	// kept by starting after the brace and ending at the first non-space).
	end := obj.off + 1
	for end < obj.end-1 && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return splice{obj.off + 1, end, b.String()}
}

// appendElem adds one element at the end of array arr, in its style.
func appendElem(arr jval, v any, nl string) splice {
	src := arr.d.src
	unit := jsonIndentUnit(src)
	els := jelems(arr)
	if len(els) > 0 {
		last := els[len(els)-1]
		if spansLines(arr) {
			ind := indentOf(src, last.off)
			return splice{last.end, last.end, "," + nl + ind + jsonRender(v, true, ind, unit)}
		}
		return splice{last.end, last.end, ", " + jsonRender(v, false, "", unit)}
	}
	ind := indentOf(src, arr.off)
	end := arr.off + 1
	for end < arr.end-1 && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return splice{arr.off + 1, end, nl + ind + unit + jsonRender(v, true, ind+unit, unit) + nl + ind}
}

// removeAt deletes the i-th of a container's items, given each item's
// start (a member's key, an element) and end, with the comma that joins it
// to a neighbour. The last item of a container empties it.
func removeAt(starts, ends []int, i int, container jval) splice {
	n := len(starts)
	switch {
	case n == 1:
		return splice{container.off + 1, container.end - 1, ""}
	case i < n-1:
		return splice{starts[i], starts[i+1], ""}
	default:
		return splice{ends[i-1], ends[i], ""}
	}
}

func removeMember(obj jval, i int) splice {
	mems := jmembers(obj)
	starts, ends := make([]int, len(mems)), make([]int, len(mems))
	for k, m := range mems {
		starts[k], ends[k] = m.keyOff, m.val.end
	}
	return removeAt(starts, ends, i, obj)
}

func removeElem(arr jval, i int) splice {
	els := jelems(arr)
	starts, ends := make([]int, len(els)), make([]int, len(els))
	for k, e := range els {
		starts[k], ends[k] = e.off, e.end
	}
	return removeAt(starts, ends, i, arr)
}
