package files

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/scan"
)

// Reaches reports whether any finding is at min or above.
func (r *report) Reaches(min scan.Severity) bool {
	for _, f := range r.Files {
		for _, fd := range f.Findings {
			if fd.Severity >= min {
				return true
			}
		}
	}
	return false
}

// Counts is findings per severity.
func (r *report) Counts() map[scan.Severity]int {
	c := map[scan.Severity]int{}
	for _, f := range r.Files {
		for _, fd := range f.Findings {
			c[fd.Severity]++
		}
	}
	return c
}

// jsonSchema names the --json document's version; it changes only when a
// field is removed or changes meaning.
const jsonSchema = "airlock.scan/v1"

type jsonFinding struct {
	Line     int           `json:"line"`
	Column   int           `json:"column"`
	ID       string        `json:"id"`
	Category scan.Category `json:"category"`
	Severity string        `json:"severity"`
	Text     string        `json:"text"`
	Explain  string        `json:"explain"`
	Field    string        `json:"field,omitempty"`
	Tool     string        `json:"tool,omitempty"`
}

type jsonFile struct {
	Path     string        `json:"path"`
	Kind     Kind          `json:"kind"`
	Risk     int           `json:"risk"`
	Severity string        `json:"severity"`
	Findings []jsonFinding `json:"findings"`
}

type jsonReport struct {
	Schema  string         `json:"schema"`
	Scanned map[string]any `json:"scanned"`
	Risk    int            `json:"risk"`
	Counts  map[string]int `json:"counts"`
	Files   []jsonFile     `json:"files"`
	Servers []server       `json:"servers"`
	Skipped []Skipped      `json:"skipped"`
}

// WriteJSON writes the report as the documented --json document.
func (r *report) WriteJSON(w io.Writer) error {
	doc := jsonReport{
		Schema:  jsonSchema,
		Scanned: map[string]any{"files": r.Scanned, "bytes": r.Bytes},
		Counts:  map[string]int{"high": 0, "med": 0, "low": 0},
		Files:   []jsonFile{},
		Servers: r.Servers,
		Skipped: r.Skipped,
	}
	if doc.Servers == nil {
		doc.Servers = []server{}
	}
	if doc.Skipped == nil {
		doc.Skipped = []Skipped{}
	}
	for sev, n := range r.Counts() {
		if sev > scan.None {
			doc.Counts[sev.String()] = n
		}
	}
	for _, f := range r.Files {
		jf := jsonFile{Path: f.Path, Kind: f.Kind, Risk: f.Risk, Severity: f.Severity.String(), Findings: []jsonFinding{}}
		doc.Risk = max(doc.Risk, f.Risk)
		for _, fd := range f.Findings {
			jf.Findings = append(jf.Findings, jsonFinding{
				Line: fd.Line, Column: fd.Col, ID: fd.ID, Category: fd.Category, Severity: fd.Severity.String(),
				Text: fd.Match, Explain: fd.Explain, Field: fd.Field, Tool: fd.Tool,
			})
		}
		doc.Files = append(doc.Files, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// sarifLevel maps a severity to SARIF's result level.
func sarifLevel(s scan.Severity) string {
	switch s {
	case scan.High:
		return "error"
	case scan.Med:
		return "warning"
	}
	return "note"
}

// securitySeverity is GitHub code scanning's 0–10 score for a rule.
func securitySeverity(s scan.Severity) string {
	switch s {
	case scan.High:
		return "8.5"
	case scan.Med:
		return "5.5"
	}
	return "2.0"
}

// WriteSARIF writes the report as SARIF 2.1.0, the format GitHub code
// scanning takes: one run, a rule per indicator with help text, a result
// per finding with its location. Paths relative to the scan root are
// given against %SRCROOT%; absolute ones as file URIs.
func (r *report) WriteSARIF(w io.Writer, version string) error {
	inds := scan.Indicators()
	index := map[string]int{}
	rules := make([]map[string]any, 0, len(inds))
	for i, ind := range inds {
		index[ind.ID] = i
		help := fmt.Sprintf("%s\n\nCategory: %s. Severity in instructions: %s; the same words in code, tests or prose about attacks are weighted one step down. "+
			"An indicator is evidence for a person to read, not a verdict: open the file at the location and judge whether an agent would follow it.",
			ind.Explain, ind.Category, ind.Severity)
		rules = append(rules, map[string]any{
			"id":                   ind.ID,
			"name":                 sarifName(ind.ID),
			"shortDescription":     map[string]string{"text": ind.Explain},
			"fullDescription":      map[string]string{"text": ind.Explain},
			"help":                 map[string]string{"text": help, "markdown": "**" + ind.ID + "** — " + help},
			"defaultConfiguration": map[string]string{"level": sarifLevel(ind.Severity)},
			"properties": map[string]any{
				"tags":              []string{"security", "ai-agent", string(ind.Category)},
				"security-severity": securitySeverity(ind.Severity),
				"precision":         "medium",
			},
		})
	}
	results := []map[string]any{}
	for _, f := range r.Files {
		loc := artifact(f.Path)
		for _, fd := range f.Findings {
			i, ok := index[fd.ID]
			if !ok {
				i = len(rules)
				index[fd.ID] = i
				rules = append(rules, map[string]any{
					"id": fd.ID, "name": sarifName(fd.ID),
					"shortDescription": map[string]string{"text": fd.Explain},
					"help":             map[string]string{"text": fd.Explain},
				})
			}
			msg := fd.Explain
			if fd.Match != "" {
				msg += fmt.Sprintf(" — matched %q", fd.Match)
			}
			if fd.Tool != "" {
				msg += fmt.Sprintf(" (tool %q, %s)", fd.Tool, fd.Field)
			}
			msg += fmt.Sprintf(". File risk %d/100 (%s, read as %s).", f.Risk, f.Severity, f.Kind)
			results = append(results, map[string]any{
				"ruleId":    fd.ID,
				"ruleIndex": i,
				"level":     sarifLevel(fd.Severity),
				"message":   map[string]string{"text": msg},
				"locations": []map[string]any{{
					"physicalLocation": map[string]any{
						"artifactLocation": loc,
						"region":           map[string]int{"startLine": max(fd.Line, 1), "startColumn": max(fd.Col, 1)},
					},
				}},
				"properties": map[string]any{"category": fd.Category, "fileRisk": f.Risk},
			})
		}
	}
	doc := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []map[string]any{{
			"tool": map[string]any{"driver": map[string]any{
				"name":           "airlock",
				"informationUri": "https://github.com/agentairlock/airlock",
				"version":        version,
				"rules":          rules,
			}},
			"columnKind": "unicodeCodePoints",
			"originalUriBaseIds": map[string]any{
				"%SRCROOT%": map[string]any{"description": map[string]string{"text": "the directory airlock scan ran in"}},
			},
			"results": results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func artifact(p string) map[string]any {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // C:/x → file:///C:/x
		}
		return map[string]any{"uri": u.String()}
	}
	rel := strings.TrimPrefix(filepath.ToSlash(p), "./")
	return map[string]any{"uri": (&url.URL{Path: rel}).String(), "uriBaseId": "%SRCROOT%"}
}

// sarifName is a rule id as SARIF's PascalCase name: exec.hook-fetch →
// ExecHookFetch.
func sarifName(id string) string {
	var b strings.Builder
	up := true
	for _, c := range id {
		if c == '.' || c == '-' || c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteRune(c)
	}
	return b.String()
}

// WriteText writes the report for a person: files riskiest first, each
// with its findings most severe first, then the MCP servers, then what was
// not read. Low findings are counted, not listed, unless all is set (the
// JSON and SARIF outputs always list every finding).
func (r *report) WriteText(w io.Writer, all bool) error {
	c := r.Counts()
	top := 0
	withFindings := 0
	for _, f := range r.Files {
		top = max(top, f.Risk)
		if len(f.Findings) > 0 {
			withFindings++
		}
	}
	fmt.Fprintf(w, "airlock scan: %d files read, %d with findings (high %d, med %d, low %d); highest risk %d/100\n",
		r.Scanned, withFindings, c[scan.High], c[scan.Med], c[scan.Low], top)
	lowOnly, lowHidden := 0, 0
	for _, f := range r.Files {
		if len(f.Findings) == 0 {
			continue
		}
		if f.Severity <= scan.Low && !all {
			lowOnly++
			continue
		}
		fmt.Fprintf(w, "\n%s  risk %d/100 %s  (read as %s)\n", textsafe.EscapeLoose(f.Path), f.Risk, f.Severity, f.Kind)
		fs := slices.Clone(f.Findings)
		slices.SortStableFunc(fs, func(a, b scan.Finding) int { return cmp.Compare(b.Severity, a.Severity) })
		hidden := 0
		for _, fd := range fs {
			if fd.Severity <= scan.Low && !all {
				hidden++
				continue
			}
			where := ""
			if fd.Tool != "" {
				where = fmt.Sprintf(" [tool %q %s]", fd.Tool, textsafe.EscapeLoose(fd.Field))
			}
			fmt.Fprintf(w, "  %d:%d  %-4s %-22s %s%s\n", fd.Line, fd.Col, fd.Severity, fd.ID, textsafe.EscapeLoose(fd.Explain), where)
			if fd.Match != "" {
				fmt.Fprintf(w, "        \"%s\"\n", fd.Match)
			}
		}
		if hidden > 0 {
			fmt.Fprintf(w, "  and %d low finding(s)\n", hidden)
			lowHidden += hidden
		}
	}
	if lowOnly > 0 || lowHidden > 0 {
		fmt.Fprintf(w, "\n%d more file(s) with only low findings; --all lists every finding, --json and --sarif always do\n", lowOnly)
	}
	if len(r.Servers) > 0 {
		fmt.Fprintf(w, "\nMCP servers (%d):\n", len(r.Servers))
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tAGENT\tBEHIND AIRLOCK-MCP\tADMISSION\tCOMMAND OR URL\tFILE")
		for _, s := range r.Servers {
			gated := "no"
			if s.Gated {
				gated = "yes"
			}
			what := textsafe.EscapeLoose(s.URL)
			if len(s.Command) > 0 {
				what = textsafe.EscapeLoose(strings.Join(s.Command, " "))
			}
			if len([]rune(what)) > 60 {
				what = string([]rune(what)[:59]) + "…"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s:%d\n", textsafe.EscapeLoose(s.Name), s.Agent, gated, textsafe.EscapeLoose(s.Admission), what, textsafe.EscapeLoose(s.File), s.Line)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		notes := map[string]bool{}
		for _, s := range r.Servers {
			if s.Note != "" && !notes[s.Note] {
				notes[s.Note] = true
				fmt.Fprintf(w, "  %s: %s\n", textsafe.EscapeLoose(s.Admission), textsafe.EscapeLoose(s.Note))
			}
		}
	}
	binary, shown := 0, 0
	for _, s := range r.Skipped {
		if s.Reason == "binary" {
			binary++
			continue
		}
		if shown == 0 {
			fmt.Fprintf(w, "\nnot read:\n")
		}
		if shown++; shown > 20 {
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", textsafe.EscapeLoose(s.Path), textsafe.EscapeLoose(s.Reason))
	}
	if shown > 20 {
		fmt.Fprintf(w, "  and %d more (--json lists them all)\n", shown-20)
	}
	if binary > 0 {
		fmt.Fprintf(w, "\n%d binary file(s) not read\n", binary)
	}
	return nil
}
