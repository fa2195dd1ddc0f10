package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentairlock/airlock/setup"
)

// File is what the scanner found in one file.
type File struct {
	Path     string    // as given or walked, slash-separated
	Kind     Kind      // what the file is to an agent
	Risk     int       // 0–100, see Score
	Severity Severity  // the band Risk falls in
	Findings []Finding // every finding, in file order; Line and Col are positions in the file
	Servers  []Server  // MCP servers an agent config defines
}

// Server is one MCP server definition found in an agent config.
type Server struct {
	Name      string   `json:"name"`
	Agent     string   `json:"agent"`
	Store     string   `json:"store"`
	File      string   `json:"file"`
	Line      int      `json:"line,omitempty"`
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	Remote    bool     `json:"remote"`
	Disabled  bool     `json:"disabled,omitempty"`
	Gated     bool     `json:"gated"`
	Admission string   `json:"admission"` // pinned, held, never seen, not gateable (remote), not gated
	Note      string   `json:"note,omitempty"`
}

// ScanFile scans one file's bytes as kind. For KindConfig, cfg is what
// setup.Parse read (nil when it could not: the text is still scanned). Findings come back in file order with Line and Col in the
// file.
func ScanFile(p string, data []byte, kind Kind, cfg *setup.Config) File {
	f := File{Path: p, Kind: kind}
	switch kind {
	case KindTools:
		f.Findings = toolsFile(data)
	default:
		f.Findings = Text(string(data), kind.Context())
	}
	if kind == KindConfig && cfg != nil {
		f.Findings = append(f.Findings, configFindings(string(data), cfg)...)
	}
	if kind.Context() == Instructions && kind != KindTools {
		f.Findings = append(f.Findings, frontmatterFindings(data)...)
	}
	f.Findings = append(f.Findings, combined(f.Findings)...)
	slices.SortStableFunc(f.Findings, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	f.Risk, f.Severity = Score(f.Findings)
	return f
}

// frontmatterFindings scans the decoded values of an instruction file's
// frontmatter where decoding changed them: an agent loads a skill's (or a
// rule's) description into every request as YAML decodes it, so
// "\u0049gnore" or a line continuation must read as the phrase it is.
// Findings sit on the key's line, with the field named.
func frontmatterFindings(data []byte) []Finding {
	fm, ok := Frontmatter(data)
	if !ok {
		return nil
	}
	var out []Finding
	if fm.Err != nil {
		out = append(out, Finding{ID: "scan.frontmatter", Category: Stealth, Severity: Low, Line: 1, Col: 1,
			Explain: fmt.Sprintf("frontmatter is not valid YAML (%v); an agent may read it differently from a person", fm.Err)})
	}
	keys := make([]string, 0, len(fm.Fields))
	for k := range fm.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	block := string(data[:min(len(data), maxFrontmatter)])
	for _, k := range keys {
		v := fm.Fields[k]
		if v == "" || strings.Contains(block, v) {
			continue // as written: the text scan has seen it
		}
		line := 1
		if i := strings.Index(block, "\n"+k+":"); i >= 0 {
			line = strings.Count(block[:i+1], "\n") + 1
		}
		for _, f := range Text(v, Instructions) {
			f.Line, f.Col, f.Field, f.para = line, 1, "frontmatter "+k+" (decoded)", 0
			out = append(out, f)
		}
	}
	return out
}

// combined turns a combination that raises the file (or one tool of a
// snapshot) to High — a credential with somewhere to send it, an
// <IMPORTANT> block naming a credential, steering with a secret — into a
// finding of its own, so "any finding at high" and "risk high" agree. It
// sits where the first part of the combination sits.
func combined(fs []Finding) []Finding {
	var out []Finding
	for _, v := range judge(fs) {
		if v.sev < High || len(v.evidence) == 0 {
			continue
		}
		alreadyHigh := false
		for _, f := range fs {
			if f.Tool == v.tool && f.Severity == High {
				alreadyHigh = true
				break
			}
		}
		if alreadyHigh {
			continue
		}
		at := v.evidence[0]
		for _, e := range v.evidence {
			if e.Line < at.Line || (e.Line == at.Line && e.Col < at.Col) {
				at = e
			}
		}
		out = append(out, Finding{
			ID: "risk.combined", Category: at.Category, Severity: High, Line: at.Line, Col: at.Col,
			Match: at.Match, Field: at.Field, Tool: v.tool,
			Explain: "together these amount to an attack: " + strings.TrimPrefix(v.reason(), fmt.Sprintf("tool %q: ", v.tool)),
		})
	}
	return out
}

// toolsFile scans a tools/list snapshot: each tool as Tool would at
// admission, its findings placed at the tool's line in the file (and at
// the matched text when it appears there as written).
func toolsFile(data []byte) []Finding {
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
	lines := newLineIndex(string(data))
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
			fd.Line, fd.Col = lines.pos(off)
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
