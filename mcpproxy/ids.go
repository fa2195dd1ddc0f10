package mcpproxy

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Request ids. A client and a server compare ids as JSON values, not as
// bytes: a server that reads 1e0 writes it back as 1.0 (Python, Go), and a
// JavaScript client reads both as the number 1. The proxy matches answers
// to requests the same way, by key:
//
//   - a number by its value as a float64, which is how JavaScript (and Go's
//     encoding/json, and I-JSON) hold one: 1, 1.0, 1e0 and 10e-1 are one id,
//     -0 is 0, and 12345678901234567890 is 12345678901234567000;
//   - a string by its text once unescaped ("a/b" is "a\/b"), ill-formed
//     UTF-8 and lone surrogates read as U+FFFD, and a run of U+FFFD as
//     one (decoders replace bad bytes one by one or a sequence at a time);
//   - a string is never a number: "1" is not 1.
//
// Anything else (null, true, an object) is not an id MCP allows.
//
// Keys are coarser than any one reader's equality, never finer: two ids in
// flight that one client could confuse share a key, and the second is
// refused. An answer is delivered with the id in the client's spelling, so
// whichever way the client compares, it finds the request the proxy
// matched.

// maxIDLen bounds an id's raw spelling: the id maps keep one per request
// in flight, and a real id is a counter or a short token.
const maxIDLen = 1024

// idKey returns the key of an id, or ok false (with the reason) when it is
// not one.
func idKey(id gjson.Result) (key string, why string) {
	if len(id.Raw) > maxIDLen {
		return "", "an id longer than 1024 bytes"
	}
	switch id.Type {
	case gjson.String:
		return "s:" + replaced(id.Str), ""
	case gjson.Number:
		f, err := strconv.ParseFloat(id.Raw, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return "", "an id that is not a number"
		}
		if f == 0 {
			f = 0 // -0 is 0
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return "n:" + strconv.FormatInt(int64(f), 10), ""
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64), ""
	case gjson.Null:
		return "", "an id of null (MCP requires a string or a number)"
	}
	return "", "an id that is neither a string nor a number"
}

// replaced is s with ill-formed UTF-8 and each run of U+FFFD made one
// U+FFFD.
func replaced(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for strings.Contains(s, "\uFFFD\uFFFD") {
		s = strings.ReplaceAll(s, "\uFFFD\uFFFD", "\uFFFD")
	}
	return s
}

// rawKey is idKey of a raw id the proxy wrote or has checked.
func rawKey(raw string) string {
	k, _ := idKey(gjson.Parse(raw))
	return k
}

// replyID is the id to answer with: the client's own spelling (a valid
// id, trimmed), unless it carries a character another reader ends a line
// at (possible only in a message refused for framing, and only inside a
// string: a raw CR or LF is not valid there), then the same string with
// that character escaped.
func replyID(raw string) string {
	if !strings.ContainsAny(raw, "\u0085\u2028\u2029") {
		return raw
	}
	return lineBreaks.Replace(raw)
}

var lineBreaks = strings.NewReplacer("\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`)

// withID returns msg, a JSON object whose id value starts at byte at and
// is old, with that id spelled id instead.
func withID(msg string, at int, old, id string) (string, bool) {
	if at <= 0 || at+len(old) > len(msg) || msg[at:at+len(old)] != old {
		return "", false
	}
	return msg[:at] + id + msg[at+len(old):], true
}
