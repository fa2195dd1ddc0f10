package mcpproxy

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// Checks on the bytes of a message before anything reads meaning into it.
// The proxy and the server must see the same messages: where a line could
// be framed or parsed two ways, it is refused rather than guessed at.

// maxNesting bounds how deep a message may nest. gjson's validator
// recurses once per level, and a stack overflow is not recoverable.
const maxNesting = 512

// framingProblem reports why msg (one line, its final newline and
// surrounding JSON whitespace trimmed) could be split differently by another
// reader, or "". Python's text streams and Node's readline end a line at a
// bare CR as well as LF; str.splitlines also at NEL, U+2028 and U+2029.
// Inside valid JSON a raw CR can only be whitespace and the others only
// string text, each of which JSON can write as an escape instead.
func framingProblem(msg string) string {
	if strings.IndexByte(msg, '\r') >= 0 {
		return "a carriage return inside the line (another reader would split it in two)"
	}
	for _, sep := range []rune{'\u0085', '\u2028', '\u2029'} {
		if strings.ContainsRune(msg, sep) {
			return fmt.Sprintf("a raw U+%04X inside the line (another reader would split it in two)", sep)
		}
	}
	if nestingDepth(msg) > maxNesting {
		return "nesting deeper than 512 levels"
	}
	return ""
}

// nestingDepth is the deepest level of [ and { outside strings.
func nestingDepth(msg string) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				max = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return max
}

// foldKey maps a key to one spelling per case-insensitive class, the way
// encoding/json matches field names (simple Unicode folding: "ID" and
// "id", the Kelvin sign and "k", the long s and "s" all meet).
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

// duplicateKey returns a key that appears twice in one object anywhere in
// v, compared after unescaping and case folding, or "". JavaScript keeps
// the last of two equal keys and gjson the first; Go's encoding/json
// matches keys regardless of case.
func duplicateKey(v gjson.Result, depth int) string {
	if depth > 64 {
		return ""
	}
	dup := ""
	switch {
	case v.IsObject():
		seen := map[string]bool{}
		v.ForEach(func(k, val gjson.Result) bool {
			ks := foldKey(k.String())
			if seen[ks] {
				dup = k.String()
				return false
			}
			seen[ks] = true
			if val.IsObject() || val.IsArray() {
				dup = duplicateKey(val, depth+1)
			}
			return dup == ""
		})
	case v.IsArray():
		v.ForEach(func(_, val gjson.Result) bool {
			if val.IsObject() || val.IsArray() {
				dup = duplicateKey(val, depth+1)
			}
			return dup == ""
		})
	}
	return dup
}

// envelopeKeys are the fields a JSON-RPC reader looks up; a key that
// folds to one of them but is spelled otherwise ("ID", "Method") is read
// as that field by a case-insensitive parser and ignored by the proxy.
var envelopeKeys = map[string]string{}
var paramKeys = map[string]string{}

func init() {
	for _, k := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		envelopeKeys[foldKey(k)] = k
	}
	for _, k := range []string{"name", "arguments", "_meta", "cursor", "uri", "task", "requestId"} {
		paramKeys[foldKey(k)] = k
	}
}

// misspelledKey returns a top-level or params key that a case-insensitive
// reader would take for a JSON-RPC field the proxy reads exactly, or "".
func misspelledKey(root gjson.Result) string {
	bad := ""
	check := func(obj gjson.Result, known map[string]string) {
		obj.ForEach(func(k, _ gjson.Result) bool {
			ks := k.String()
			if want, ok := known[foldKey(ks)]; ok && want != ks {
				bad = ks
				return false
			}
			return true
		})
	}
	check(root, envelopeKeys)
	if bad == "" {
		if p := root.Get("params"); p.IsObject() {
			check(p, paramKeys)
		}
	}
	return bad
}

// trimSpace trims JSON's white space, and only it: a line the proxy reads
// as JSON once it has dropped a BOM, a NBSP or a vertical tab is a line
// JSON.parse refuses.
func trimSpace(line string) string {
	return strings.Trim(line, " \t\r\n")
}
