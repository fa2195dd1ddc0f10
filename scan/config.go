package scan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentairlock/airlock/setup"
)

// Indicators the config reader adds on top of the text ones: what an
// agent runs by itself, with no model and no person in between.
var (
	// fetchRe: a command that reaches the network.
	fetchRe = regexp.MustCompile(`(?i)\b(?:curl|wget|nc|ncat|socat|invoke-webrequest|invoke-restmethod|iwr|irm|http|https|xh|aria2c)\b|\b(?:requests\.(?:get|post)|urllib|fetch\(|urlopen)`)
	// sendRe: the fetch carries data out.
	sendRe = regexp.MustCompile(`(?i)(?:^|\s)(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-data|--post-file|--body-data|--body-file)(?:\s|=|$)|(?:^|\s)-X\s*(?:POST|PUT|PATCH)\b|\|\s*(?:curl|wget|nc)\b|-Body\b`)
)

// configFindings weighs what an agent config makes the agent run: hook
// commands that reach the network, and MCP servers whose launch command
// downloads code and runs it.
func configFindings(text string, cfg *setup.Config) []Finding {
	var out []Finding
	for _, h := range cfg.Hooks {
		if !fetchRe.MatchString(h.Command) {
			continue
		}
		sev, why := Med, "runs a network fetch on every matching tool call"
		inner := Text(h.Command, Instructions)
		switch {
		case sendRe.MatchString(h.Command):
			sev, why = High, "sends data out on every matching tool call"
		case hasCategory(inner, Execution, High):
			sev, why = High, "downloads and runs code on every matching tool call"
		case hasID(inner, "exfil.collector"):
			sev, why = High, "calls a request collector on every matching tool call"
		}
		line, col := lineOf(text, h.Line, h.Command)
		out = append(out, Finding{
			ID: "exec.hook-fetch", Category: Execution, Severity: sev, Line: line, Col: col,
			Match:   clip(h.Command, maxMatch),
			Explain: fmt.Sprintf("%s hook (matcher %q) %s", h.Event, h.Matcher, why),
		})
	}
	for _, s := range cfg.Servers {
		if s.Remote {
			continue
		}
		argv := append([]string{s.Command}, s.Args...)
		if s.Wrapped {
			argv = s.Inner
		}
		cmdline := strings.Join(argv, " ")
		for _, f := range Text(cmdline, Instructions) {
			if f.Category != Execution || f.Severity < High {
				continue
			}
			line, col := lineOf(text, s.Line, firstWord(argv))
			out = append(out, Finding{
				ID: "exec.server-command", Category: Execution, Severity: High, Line: line, Col: col,
				Match:   clip(cmdline, maxMatch),
				Explain: fmt.Sprintf("MCP server %q is launched by a command that %s", s.Name, f.Explain),
			})
			break
		}
	}
	return out
}

func hasCategory(fs []Finding, c Category, min Severity) bool {
	for _, f := range fs {
		if f.Category == c && f.Severity >= min {
			return true
		}
	}
	return false
}

func hasID(fs []Finding, id string) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}

func firstWord(argv []string) string {
	for _, a := range argv {
		if a != "" {
			return a
		}
	}
	return ""
}

// lineOf places a structured finding: on line (1-based) when the config
// reader knew it, at the column where want first appears from there on
// (the JSON-escaped form is tried too). Without a line, the first line
// where want appears; failing all, 1:1.
func lineOf(text string, line int, want string) (int, int) {
	idx := newLineIndex(text)
	start := 0
	if line > 0 {
		start = idx.offset(line)
	}
	if want != "" {
		for _, w := range []string{want, jsonEscape(want)} {
			if i := strings.Index(text[start:], w); i >= 0 {
				return idx.pos(start + i)
			}
		}
	}
	if line > 0 {
		return line, 1
	}
	return 1, 1
}

// jsonEscape is want as it appears inside a JSON string.
func jsonEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return r.Replace(s)
}
