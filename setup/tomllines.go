package setup

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// tomlServerLines finds, for each server under mcp_servers, the line of
// the first statement that defines part of it — a [mcp_servers.NAME]
// header (bare, quoted or dotted with spaces), a NAME = {…} or NAME.key =
// … line inside [mcp_servers], or a root-level mcp_servers.NAME.key = … —
// and the line of the first statement that touches mcp_servers at all.
// It runs on text the TOML decoder has accepted, and skips string values
// (multi-line ones included) so a "[mcp_servers.x]" inside a string is not
// taken for a header.
func tomlServerLines(src []byte) (lines map[string]int, anyLine int) {
	lines = map[string]int{}
	record := func(path []string, line int) {
		if len(path) == 0 || path[0] != "mcp_servers" {
			return
		}
		if anyLine == 0 {
			anyLine = line
		}
		if len(path) >= 2 && lines[path[1]] == 0 {
			lines[path[1]] = line
		}
	}
	var table []string
	line := 1
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n':
			line++
			i++
		case c == '#':
			i = lineEnd(src, i)
		case c == '[':
			i++
			if i < len(src) && src[i] == '[' {
				i++
			}
			keys, j := tomlKey(src, i)
			table = keys
			record(keys, line)
			i = lineEnd(src, j) // the rest is "]" or "]]" and maybe a comment
		default:
			keys, j := tomlKey(src, i)
			if len(keys) == 0 || j <= i {
				i = lineEnd(src, i) // not a statement we understand: skip the line
				continue
			}
			path := append(append([]string(nil), table...), keys...)
			record(path, line)
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] == '=' {
				j++
			}
			i, line = tomlSkipValue(src, j, line)
		}
	}
	return lines, anyLine
}

func lineEnd(src []byte, i int) int {
	for i < len(src) && src[i] != '\n' {
		i++
	}
	return i
}

// tomlKey reads a dotted key (bare, "basic" or 'literal' parts, spaces
// around the dots) at src[i:] and returns its parts and the offset after it.
func tomlKey(src []byte, i int) ([]string, int) {
	var keys []string
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= len(src) {
			return keys, i
		}
		switch c := src[i]; {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(src) {
				j = len(src)
			}
			keys = append(keys, tomlUnescape(string(src[i+1:j])))
			i = j + 1
		case c == '\'':
			j := i + 1
			for j < len(src) && src[j] != '\'' && src[j] != '\n' {
				j++
			}
			keys = append(keys, string(src[i+1:j]))
			i = j + 1
		case isBareKeyByte(c):
			j := i
			for j < len(src) && isBareKeyByte(src[j]) {
				j++
			}
			keys = append(keys, string(src[i:j]))
			i = j
		default:
			return keys, i
		}
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= len(src) || src[i] != '.' {
			if i > len(src) {
				i = len(src)
			}
			return keys, i
		}
		i++
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// tomlSkipValue moves past the value starting at src[i:], to the end of
// its statement's line, counting the lines a multi-line string, array or
// inline table spans.
func tomlSkipValue(src []byte, i, line int) (int, int) {
	depth := 0
	for i < len(src) {
		switch src[i] {
		case '"', '\'':
			j, n := tomlSkipString(src, i)
			i, line = j, line+n
		case '[', '{':
			depth++
			i++
		case ']', '}':
			if depth > 0 {
				depth--
			}
			i++
		case '#':
			i = lineEnd(src, i)
		case '\n':
			if depth == 0 {
				return i, line
			}
			line++
			i++
		default:
			i++
		}
	}
	return i, line
}

// tomlDepth is the deepest nesting of arrays and inline tables in src,
// strings and comments skipped.
func tomlDepth(src []byte) int {
	depth, max := 0, 0
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '"', '\'':
			j, _ := tomlSkipString(src, i)
			i = j
		case '[', '{':
			depth++
			if depth > max {
				max = depth
			}
			i++
		case ']', '}':
			if depth > 0 {
				depth--
			}
			i++
		case '#':
			i = lineEnd(src, i)
		default:
			i++
		}
	}
	return max
}

// tomlSkipString moves past the string starting at src[i] (any of the four
// kinds); the int returned second is the number of line breaks inside.
func tomlSkipString(src []byte, i int) (int, int) {
	c := src[i]
	n := 0
	if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
		for i += 3; i < len(src); i++ {
			switch {
			case c == '"' && src[i] == '\\':
				if i+1 < len(src) && src[i+1] == '\n' {
					n++
				}
				i++
			case src[i] == '\n':
				n++
			case src[i] == c && i+2 < len(src) && src[i+1] == c && src[i+2] == c:
				i += 3
				// Up to two more quotes belong to the content: """a"""""
				for k := 0; k < 2 && i < len(src) && src[i] == c; k++ {
					i++
				}
				return i, n
			}
		}
		return len(src), n
	}
	for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
		if c == '"' && src[i] == '\\' {
			i++
		}
	}
	if i < len(src) && src[i] == c {
		i++
	}
	return min(i, len(src)), n
}

// tomlUnescape decodes a basic string's escapes (TOML 1.1's \e and \xHH
// included); a malformed escape is kept as written.
func tomlUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(s[i])
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			if i+n >= len(s) {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			b.WriteRune(rune(r))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
