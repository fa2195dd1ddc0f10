package scan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Budgets for one tool definition. Beyond them Tool reports a High
// finding rather than a partial scan: not read is not clean.
const (
	maxToolBytes = 4 << 20
	maxToolDepth = 64
)

// Tool scans one MCP tool definition, the raw JSON object of one entry in
// a tools/list result. Every string a client may put in front of the model
// is scanned as Instructions: name, title, description, annotations, every
// string anywhere in inputSchema and outputSchema (descriptions, titles,
// enum, default, examples, const …) and every property name. Duplicate
// keys are all scanned, whichever one a client keeps. Field names where a
// finding sat ("inputSchema.properties.path.description"; a property name
// is "inputSchema.properties.path (name)"); Line and Col are positions in
// that field's decoded value. Tool is the tool's name.
//
// Input that is not one JSON object yields a single High finding,
// scan.unreadable, positioned at the syntax error in raw.
func Tool(raw []byte) []Finding {
	if len(raw) > maxToolBytes {
		return []Finding{{
			ID: "scan.unreadable", Category: Stealth, Severity: High, Line: 1, Col: 1,
			Explain: fmt.Sprintf("tool definition is %d bytes, over the %d-byte budget; not scanned", len(raw), maxToolBytes),
		}}
	}
	if !json.Valid(raw) {
		var v json.RawMessage
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return []Finding{unreadable(raw, err)}
	}
	w := toolWalker{src: raw}
	if err := w.top(); err != nil {
		return []Finding{unreadable(raw, err)}
	}
	name := clip(w.name, 64)
	for i := range w.out {
		w.out[i].Tool = name
	}
	return w.out
}

func unreadable(raw []byte, err error) Finding {
	f := Finding{
		ID: "scan.unreadable", Category: Stealth, Severity: High, Line: 1, Col: 1,
		Explain: fmt.Sprintf("tool definition is not readable JSON, so it cannot be shown clean: %v", err),
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) && syn.Offset > 0 && int(syn.Offset) <= len(raw) {
		f.Line, f.Col = NewLineIndex(string(raw)).Pos(int(syn.Offset) - 1)
	}
	return f
}

// toolWalker reads a tool definition json.Valid has accepted. It walks
// the bytes itself rather than decode into maps: duplicate keys are all
// seen (a client may keep either), and it costs a fraction of
// encoding/json's token stream.
type toolWalker struct {
	src     []byte
	i       int
	out     []Finding
	name    string
	tooDeep bool
	path    []string // segments of the current Field, joined only for a finding
}

func (w *toolWalker) field(suffix string) string {
	var b strings.Builder
	for i, seg := range w.path {
		if i > 0 && !strings.HasPrefix(seg, "[") {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	b.WriteString(suffix)
	return b.String()
}

// skipKey: schema plumbing no model reads as prose.
func skipKey(k string) bool {
	switch k {
	case "$schema", "type", "$ref", "$id", "format", "mimeType":
		return true
	}
	return false
}

var errShape = errors.New("unexpected JSON")

func (w *toolWalker) ws() {
	for w.i < len(w.src) {
		switch w.src[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (w *toolWalker) next() byte {
	w.ws()
	if w.i >= len(w.src) {
		return 0
	}
	return w.src[w.i]
}

// str reads the string at w.i.
func (w *toolWalker) str() (string, error) {
	if w.next() != '"' {
		return "", fmt.Errorf("read tool at byte %d: %w", w.i, errShape)
	}
	start := w.i
	escaped := false
	for j := start + 1; j < len(w.src); j++ {
		switch w.src[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			w.i = j + 1
			if !escaped {
				return string(w.src[start+1 : j]), nil
			}
			var s string
			if err := json.Unmarshal(w.src[start:j+1], &s); err != nil {
				return "", fmt.Errorf("read tool at byte %d: %w", start, err)
			}
			return s, nil
		}
	}
	return "", fmt.Errorf("read tool at byte %d: %w", start, errShape)
}

func (w *toolWalker) top() error {
	if w.next() != '{' {
		return errors.New("tool definition is not a JSON object")
	}
	return w.object(1, func(key string) error {
		w.path = append(w.path[:0], pathKey(key))
		if key == "name" && w.next() == '"' {
			s, err := w.str()
			if err != nil {
				return err
			}
			// Read with _ and - as spaces so "ignore_previous_instructions"
			// reads as the phrase it spells.
			w.name = s
			w.scan(identWords(s), s, "")
			if n, ok := NativeToolName(s); ok {
				w.out = append(w.out, Finding{
					ID: "inject.native-name", Category: injection, Severity: High, Line: 1, Col: 1, Field: "name", Match: clip(s, maxMatch),
					Explain: fmt.Sprintf("the tool takes the name of the agent's built-in %s tool, so calls meant for it reach the server", n),
				})
			}
			return nil
		}
		return w.value(key, 1, false)
	})
}

// object walks the object at w.i, calling member with each key once the
// reader sits on its value.
func (w *toolWalker) object(depth int, member func(key string) error) error {
	w.i++ // {
	if w.next() == '}' {
		w.i++
		return nil
	}
	for {
		key, err := w.str()
		if err != nil {
			return err
		}
		if w.next() != ':' {
			return fmt.Errorf("read tool at byte %d: %w", w.i, errShape)
		}
		w.i++
		if err := member(key); err != nil {
			return err
		}
		switch w.next() {
		case ',':
			w.i++
		case '}':
			w.i++
			return nil
		default:
			return fmt.Errorf("read tool at byte %d: %w", w.i, errShape)
		}
	}
}

// value walks the value at w.i, found under key, scanning every string.
// isProps: the value is a schema's "properties" object, whose keys are
// parameter names the model reads.
func (w *toolWalker) value(key string, depth int, isProps bool) error {
	if depth > maxToolDepth && !w.tooDeep {
		w.tooDeep = true
		w.out = append(w.out, Finding{
			ID: "scan.unreadable", Category: Stealth, Severity: High, Line: 1, Col: 1, Field: w.field(""),
			Explain: fmt.Sprintf("tool definition nests deeper than %d levels; the rest was not scanned", maxToolDepth),
		})
	}
	n := len(w.path)
	defer func() { w.path = w.path[:n] }()
	switch w.next() {
	case '"':
		s, err := w.str()
		if err != nil {
			return err
		}
		if !skipKey(key) && !w.tooDeep {
			w.scan(s, s, "")
		}
		return nil
	case '{':
		return w.object(depth, func(k string) error {
			w.path = append(w.path[:n], pathKey(k))
			if isProps && !w.tooDeep {
				w.scan(identWords(k), k, " (name)")
			}
			return w.value(k, depth+1, k == "properties" && !isProps)
		})
	case '[':
		w.i++
		if w.next() == ']' {
			w.i++
			return nil
		}
		for i := 0; ; i++ {
			w.path = append(w.path[:n], "["+strconv.Itoa(i)+"]")
			if err := w.value(key, depth+1, false); err != nil {
				return err
			}
			switch w.next() {
			case ',':
				w.i++
			case ']':
				w.i++
				return nil
			default:
				return fmt.Errorf("read tool at byte %d: %w", w.i, errShape)
			}
		}
	default: // number, true, false, null
		start := w.i
		for w.i < len(w.src) && strings.IndexByte("+-0123456789.eEtrufalsn", w.src[w.i]) >= 0 {
			w.i++
		}
		if w.i == start {
			return fmt.Errorf("read tool at byte %d: %w", w.i, errShape)
		}
		return nil
	}
}

// scan runs the indicators over one string. text is what they read; orig
// is the value as written, the same length byte for byte (identifiers are
// read with _ and - as spaces), so Match shows what the server sent.
func (w *toolWalker) scan(text, orig, suffix string) {
	fs := scanText(text, orig, Instructions, 0)
	if len(fs) == 0 {
		return
	}
	field := w.field(suffix)
	for _, f := range fs {
		f.Field = field
		w.out = append(w.out, f)
	}
}

func identWords(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, s)
}

// pathKey writes an object key into a Field path, quoting keys that would
// make the path ambiguous.
func pathKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return "[" + strconv.Quote(clip(k, 64)) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return k
}
