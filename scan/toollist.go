package scan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ToolList scans a tools/list snapshot (a file holding {"tools": [...]}
// or a JSON-RPC response carrying one): each tool as Tool would at
// admission, its findings placed at the tool's line in the file (and at
// the matched text when it appears there as written).
func ToolList(data []byte) []Finding {
	var list struct {
		Tools  []json.RawMessage `json:"tools"`
		Result *struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return []Finding{unreadable(data, err)}
	}
	tools := list.Tools
	if tools == nil && list.Result != nil {
		tools = list.Result.Tools
	}
	lines := NewLineIndex(string(data))
	var out []Finding
	from := 0
	for _, raw := range tools {
		at := bytes.Index(data[from:], raw)
		start := 0
		if at >= 0 {
			start = from + at
			from = start + len(raw)
		}
		for _, fd := range Tool(raw) {
			off := start
			if i, ok := fieldOffset(raw, fd); ok {
				off = start + i
			} else if fd.Match != "" {
				if i := bytes.Index(raw, []byte(fd.Match)); i >= 0 {
					off = start + i
				}
			}
			fd.Line, fd.Col = lines.Pos(off)
			out = append(out, fd)
		}
	}
	return out
}

// fieldOffset finds where in a tool's raw JSON a finding sits: the
// field's keys are looked up in order ("inputSchema", "properties",
// "path", "description"), then its string value is decoded escape by
// escape until the finding's line and column, so \u003c or \n in the
// JSON do not move it.
func fieldOffset(raw []byte, fd Finding) (int, bool) {
	if fd.Field == "" || strings.Contains(fd.Field, "(name)") || strings.Contains(fd.Field, "[") {
		return 0, false
	}
	at := 0
	for _, key := range strings.Split(fd.Field, ".") {
		i := bytes.Index(raw[at:], []byte(`"`+key+`"`))
		if i < 0 {
			return 0, false
		}
		at += i + len(key) + 2
	}
	// the value: past the colon, at the opening quote
	for at < len(raw) && (raw[at] == ' ' || raw[at] == ':' || raw[at] == '\t' || raw[at] == '\n' || raw[at] == '\r') {
		at++
	}
	if at >= len(raw) || raw[at] != '"' {
		return 0, false
	}
	at++
	line, col := 1, 1
	for at < len(raw) && raw[at] != '"' {
		if line == fd.Line && col == fd.Col {
			return at, true
		}
		r, n := rune(raw[at]), 1
		if raw[at] == '\\' && at+1 < len(raw) {
			n = 2
			switch raw[at+1] {
			case 'n':
				r = '\n'
			case 'u':
				n = 6
				if at+6 <= len(raw) {
					if v, err := strconv.ParseUint(string(raw[at+2:at+6]), 16, 32); err == nil {
						r = rune(v)
						// a surrogate pair is one character
						if v >= 0xD800 && v < 0xDC00 && at+12 <= len(raw) && raw[at+6] == '\\' && raw[at+7] == 'u' {
							n = 12
						}
					}
				}
			default:
				r = rune(raw[at+1])
			}
		} else if raw[at] >= 0x80 {
			r, n = utf8.DecodeRune(raw[at:])
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		at += n
	}
	return 0, false
}
