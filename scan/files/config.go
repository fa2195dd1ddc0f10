package files

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/setup"
)

// Indicators the config reader adds on top of the text ones: what an
// agent runs by itself, with no model and no person in between. Compiled
// on first use: a process that reads no config (the hook, the proxy) does
// not pay for them at start-up.
var (
	// fetchRe: a command that reaches the network.
	fetchRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:curl|wget|nc|ncat|socat|scp|sftp|rsync|ssh|invoke-webrequest|invoke-restmethod|iwr|irm|xh|aria2c)\b|\b(?:requests\.(?:get|post)|urllib|urlopen|fetch\(|http\.get|https\.get)`)
	})
	// sendRe: the fetch carries something that is not a literal: stdin
	// (the hook's tool input), a file, a command substitution, a variable.
	sendRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|\s)(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|--post-data|--body-data)(?:\s+|=)["']?(?:@|\$|\x60)|(?:^|\s)(?:-T|--upload-file|--post-file|--body-file)(?:\s|=)|\$\(|\x60[^\x60]+\x60|\|\s*(?:curl|wget|nc|ncat)\b|\b(?:scp|rsync|sftp)\b[^|;&]*\s[^\s]*:|-InFile\b`)
	})
)

// configFindings weighs what an agent config makes the agent run: hook
// commands that reach the network, and MCP servers whose launch command
// downloads code and runs it.
func configFindings(text string, cfg *setup.Config) []scan.Finding {
	var out []scan.Finding
	idx := scan.NewLineIndex(text)
	for _, h := range cfg.Hooks {
		if !fetchRe().MatchString(scan.UnquoteShell(h.Command)) {
			continue
		}
		sev, why := scan.Med, "reaches the network on every matching event"
		cmd := scan.UnquoteShell(h.Command)
		inner := scan.Text(cmd, scan.Instructions)
		switch {
		case hasCategory(inner, scan.Execution, scan.High) || hasCategory(scan.Text(cmd, scan.Instructions), scan.Execution, scan.High):
			sev, why = scan.High, "downloads and runs code on every matching event"
		case sendRe().MatchString(cmd):
			sev, why = scan.High, "sends data out (stdin, a file, a command's output or a variable) on every matching event"
		case hasID(inner, "exfil.collector"):
			sev, why = scan.High, "calls a request collector on every matching event"
		case hasCategory(inner, scan.Secret, scan.Med):
			sev, why = scan.High, "reaches the network with a credential in the command, on every matching event"
		}
		line, col := locate(text, idx, h.Line, h.Command)
		what := fmt.Sprintf("%s hook (matcher %q)", h.Event, h.Matcher)
		if h.Helper {
			what = fmt.Sprintf("the %s command", h.Event)
			why = strings.Replace(why, "on every matching event", "whenever the agent runs it", 1)
		}
		out = append(out, scan.Finding{
			ID: "exec.hook-fetch", Category: scan.Execution, Severity: sev, Line: line, Col: col,
			Match:   scan.ClipMatch(h.Command),
			Explain: what + " " + why,
		})
	}
	if cfg.Store.Kind == setup.KindSettings && cfg.Store.Scope == setup.ScopeProject {
		out = append(out, projectSettings(text, idx)...)
	}
	for _, s := range cfg.Servers {
		if s.Remote {
			continue
		}
		argv := append([]string{s.Command}, s.Args...)
		if s.Wrapped {
			argv = s.Inner
		}
		cmdline := scan.UnquoteShell(strings.Join(argv, " "))
		for _, f := range scan.Text(cmdline, scan.Instructions) {
			if f.Category != scan.Execution || f.Severity < scan.High {
				continue
			}
			line, col := locate(text, idx, s.Line, firstWord(argv), "command")
			out = append(out, scan.Finding{
				ID: "exec.server-command", Category: scan.Execution, Severity: scan.High, Line: line, Col: col,
				Match:   scan.ClipMatch(cmdline),
				Explain: fmt.Sprintf("MCP server %q is launched by a command that %s", s.Name, f.Explain),
			})
			break
		}
	}
	return out
}

// Project settings a repository can use against whoever opens it: the
// model's API sent through the repository's own host, and its own MCP
// servers approved without asking.
var (
	apiRedirectRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"(?:ANTHROPIC_BASE_URL|ANTHROPIC_BEDROCK_BASE_URL|ANTHROPIC_VERTEX_BASE_URL|OPENAI_BASE_URL|OPENAI_API_BASE|HTTPS_PROXY|HTTP_PROXY|ALL_PROXY|https_proxy|http_proxy)"\s*:`)
	})
	autoApproveRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"(?:enableAllProjectMcpServers"\s*:\s*true|enabledMcpjsonServers"\s*:\s*\[\s*")`)
	})
)

func projectSettings(text string, idx scan.LineIndex) []scan.Finding {
	var out []scan.Finding
	for _, m := range apiRedirectRe().FindAllStringIndex(text, scan.MaxPerID) {
		line, col := idx.Pos(m[0])
		out = append(out, scan.Finding{ID: "config.api-redirect", Category: scan.Exfiltration, Severity: scan.Med, Line: line, Col: col,
			Match:   scan.ClipMatch(text[m[0]:m[1]]),
			Explain: "project settings send the agent's model or web traffic through a host the repository chose"})
	}
	for _, m := range autoApproveRe().FindAllStringIndex(text, scan.MaxPerID) {
		line, col := idx.Pos(m[0])
		out = append(out, scan.Finding{ID: "config.auto-approve", Category: scan.Execution, Severity: scan.Med, Line: line, Col: col,
			Match:   scan.ClipMatch(text[m[0]:m[1]]),
			Explain: "project settings approve the repository's own MCP servers without asking whoever opens it"})
	}
	return out
}

func hasCategory(fs []scan.Finding, c scan.Category, min scan.Severity) bool {
	for _, f := range fs {
		if f.Category == c && f.Severity >= min {
			return true
		}
	}
	return false
}

func hasID(fs []scan.Finding, id string) bool {
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

// locate places a structured finding in text (indexed by idx): from
// line (1-based) on when the config reader knew it — after the key named
// by after, when given — at the first spelling of want found: quoted as JSON or TOML writes it
// (Go's escaping of & < > and \/ included), then as is. Without a line,
// the first place want appears; failing all, the line's first column.
func locate(text string, idx scan.LineIndex, line int, want string, after ...string) (int, int) {
	start := 0
	if line > 0 {
		start = idx.Offset(line)
	}
	for _, key := range after {
		if i := strings.Index(text[start:], key); i >= 0 && i < 4096 {
			start += i + len(key)
		}
	}
	if want != "" {
		if off, ok := decodedString(text, start, want); ok {
			return idx.Pos(off)
		}
		esc := jsonEscape(want)
		goEsc, _ := json.Marshal(want)
		goForm := string(goEsc[1 : len(goEsc)-1])
		cands := []string{`"` + esc + `"`, `'` + want + `'`, esc, goForm, strings.ReplaceAll(esc, "/", `\/`), strings.ReplaceAll(goForm, "/", `\/`), want}
		for _, w := range cands {
			if i := strings.Index(text[start:], w); i >= 0 {
				off := start + i
				if w[0] == '"' || w[0] == '\'' {
					off++ // the value, not its quote
				}
				return idx.Pos(off)
			}
		}
	}
	if line > 0 {
		return line, 1
	}
	return 1, 1
}

// decodedString finds, among the next double-quoted strings from start,
// the first whose JSON decoding is want, however it was escaped, and
// returns the offset of its first character.
func decodedString(text string, start int, want string) (int, bool) {
	for n, i := 0, start; n < 256 && i < len(text); n++ {
		q := strings.IndexByte(text[i:], '"')
		if q < 0 {
			return 0, false
		}
		a := i + q
		b := a + 1
		for b < len(text) && text[b] != '"' && text[b] != '\n' {
			if text[b] == '\\' {
				b++
			}
			b++
		}
		if b >= len(text) || text[b] != '"' {
			return 0, false
		}
		var got string
		if json.Unmarshal([]byte(text[a:b+1]), &got) == nil && got == want {
			return a + 1, true
		}
		i = b + 1
	}
	return 0, false
}

// jsonEscape is want as it appears inside a JSON string.
func jsonEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return r.Replace(s)
}
