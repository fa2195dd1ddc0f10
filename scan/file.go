package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
	if kind == KindSkill || kind == KindCommand {
		f.Findings = append(f.Findings, skillFindings(data)...)
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

// skillFindings weighs a skill's frontmatter: allowed-tools that grant a
// bare shell are worth a person's look.
func skillFindings(data []byte) []Finding {
	fm, ok := Frontmatter(data)
	if !ok {
		return nil
	}
	var out []Finding
	if fm.Err != nil {
		out = append(out, Finding{ID: "scan.frontmatter", Category: Stealth, Severity: Low, Line: 1, Col: 1,
			Explain: fmt.Sprintf("frontmatter is not valid YAML (%v); an agent may read it differently from a person", fm.Err)})
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
			if fd.Match != "" {
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
