package files

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/setup"
)

// File is what the scanner found in one file.
type File struct {
	Path     string         // as given or walked, slash-separated
	Kind     Kind           // what the file is to an agent
	Risk     int            // 0–100, see scan.Score
	Severity scan.Severity  // the band Risk falls in
	Findings []scan.Finding // every finding, in file order; Line and Col are positions in the file
	Servers  []server       // MCP servers an agent config defines
}

// server is one MCP server definition found in an agent config.
type server struct {
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
	Admission string   `json:"admission"` // pinned, held, never seen, not gated (remote ones too: Note says how to gate them)
	Note      string   `json:"note,omitempty"`
}

// scanFile scans one file's bytes as kind. For KindConfig, cfg is what
// setup.Parse read (nil when it could not: the text is still scanned). Findings come back in file order with Line and Col in the
// file.
func scanFile(p string, data []byte, kind Kind, cfg *setup.Config) File {
	f := File{Path: p, Kind: kind}
	switch kind {
	case kindTools:
		f.Findings = scan.ToolList(data)
	default:
		f.Findings = scan.Text(string(data), kind.Context())
	}
	if kind == kindConfig && cfg != nil {
		f.Findings = append(f.Findings, configFindings(string(data), cfg)...)
	}
	if kind.Context() == scan.Instructions && kind != kindTools {
		f.Findings = append(f.Findings, frontmatterFindings(data)...)
	}
	f.Findings = append(f.Findings, scan.Combined(f.Findings)...)
	slices.SortStableFunc(f.Findings, func(a, b scan.Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	f.Risk, f.Severity = scan.Score(f.Findings)
	return f
}

// frontmatterFindings scans the decoded values of an instruction file's
// frontmatter where decoding changed them: an agent loads a skill's (or a
// rule's) description into every request as YAML decodes it, so
// "\u0049gnore" or a line continuation must read as the phrase it is.
// Findings sit on the key's line, with the field named.
func frontmatterFindings(data []byte) []scan.Finding {
	fm, ok := Frontmatter(data)
	if !ok {
		return nil
	}
	var out []scan.Finding
	if fm.Err != nil {
		out = append(out, scan.Finding{ID: "scan.frontmatter", Category: scan.Stealth, Severity: scan.Low, Line: 1, Col: 1,
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
		for _, f := range scan.Text(v, scan.Instructions) {
			out = append(out, f.At(line, 1, "frontmatter "+k+" (decoded)"))
		}
	}
	return out
}
