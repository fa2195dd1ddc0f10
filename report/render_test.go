package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

func hostileEntries(t *testing.T) []Entry {
	t.Helper()
	entries, err := Collect(fileSource{path: "testdata/hostile.jsonl"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 10 {
		t.Fatalf("hostile corpus read %d entries", len(entries))
	}
	return entries
}

// forged reports output a record could have forged: a line break or
// control byte, a bidi or invisible character, or a line that starts with
// the corpus's forged text.
func forged(s string) string {
	for _, bad := range []string{"\x1b", "\r", "\x00", "\x7f", "\u202e", "\u2066", "\u200b", "\ufeff", "\u2028", "\u2029"} {
		if strings.Contains(s, bad) {
			return "raw " + strings.Trim(textsafe.Escape(bad), "\"")
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " -|#>*"), "FORGED") {
			return "a forged line: " + textsafe.Escape(line)
		}
	}
	return ""
}

func TestOneRecordIsOneLineInEveryFormat(t *testing.T) {
	formats := map[string]func(audit.Record) string{
		"log":    LogLine,
		"cef":    func(r audit.Record) string { return cefLine(r, "1.0|x=y\n") },
		"syslog": func(r audit.Record) string { return syslogLine(r, "host name\n") },
		"jsonl": func(r audit.Record) string {
			s, err := jsonLine(r)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for _, e := range hostileEntries(t) {
		r := AsRecord(e)
		for name, render := range formats {
			out := render(r)
			if strings.Contains(out, "\n") {
				t.Errorf("%s: line %d renders as more than one line: %q", name, e.Line, out)
			}
			// jsonl keeps the stored encoding (so h can be recomputed):
			// one line and valid JSON, but bidi characters stay as stored
			if why := forged(out); why != "" && name != "jsonl" {
				t.Errorf("%s: line %d: %s in %q", name, e.Line, why, out)
			}
		}
	}
}

func TestCEFHeaderAndExtensionCannotBeForged(t *testing.T) {
	known := map[string]bool{"rt": true, "cat": true, "deviceFacility": true, "act": true, "msg": true, "fileHash": true,
		"flexString1Label": true, "flexString1": true, "flexString2Label": true, "flexString2": true}
	for _, k := range []string{"cs1", "cs2", "cs3", "cs4", "cs5", "cs6"} {
		known[k], known[k+"Label"] = true, true
	}
	for _, e := range hostileEntries(t) {
		r := AsRecord(e)
		line := cefLine(r, "v|1")
		fields, ext := splitCEF(line)
		if len(fields) != 7 {
			t.Errorf("line %d: %d header fields, want 7: %q", e.Line, len(fields), line)
			continue
		}
		if fields[3] != "v|1" || fields[4] != cefUnescapeVisible(signature(r)) {
			t.Errorf("line %d: header fields %q do not round-trip", e.Line, fields)
		}
		for _, k := range extKeys(ext) {
			if !known[k] {
				t.Errorf("line %d: extension key %q forged from record text: %q", e.Line, k, ext)
			}
		}
	}
}

// cefUnescapeVisible is what a header value reads as once parsed: the
// record text with control characters in their visible form.
func cefUnescapeVisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		one := string(r)
		if esc := textsafe.Escape(one); esc != one && r != '\\' {
			b.WriteString(esc)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// splitCEF splits a CEF line at its first seven unescaped pipes.
func splitCEF(line string) (fields []string, ext string) {
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if len(fields) == 7 {
			return fields, line[i:]
		}
		if c == '\\' && i+1 < len(line) {
			cur.WriteByte(line[i+1])
			i++
			continue
		}
		if c == '|' && len(fields) < 7 {
			fields = append(fields, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return fields, cur.String()
}

// extKeys returns the keys of a CEF extension: the word before each
// unescaped '='.
func extKeys(ext string) []string {
	var keys []string
	for i := 0; i < len(ext); i++ {
		if ext[i] == '\\' {
			i++
			continue
		}
		if ext[i] == '=' {
			j := strings.LastIndexByte(ext[:i], ' ') + 1
			keys = append(keys, ext[j:i])
		}
	}
	return keys
}

func TestSyslogHasExactlyOneSDElement(t *testing.T) {
	for _, e := range hostileEntries(t) {
		line := syslogLine(AsRecord(e), "h")
		head := strings.SplitN(line, " ", 7)
		if len(head) != 7 {
			t.Fatalf("line %d: short header: %q", e.Line, line)
		}
		if !strings.HasPrefix(head[0], "<") || !strings.HasSuffix(head[0], ">1") {
			t.Errorf("line %d: bad PRI/VERSION %q", e.Line, head[0])
		}
		rest := head[6]
		n, msg, err := parseSD(rest)
		if err != "" || n != 1 {
			t.Errorf("line %d: %d SD element(s) (%s) in %q", e.Line, n, err, rest)
		}
		if strings.HasPrefix(msg, "[") {
			t.Errorf("line %d: MSG starts with '[' and could pass for an SD element: %q", e.Line, msg)
		}
	}
}

// parseSD walks RFC 5424 STRUCTURED-DATA strictly and returns the number
// of elements and the MSG after them.
func parseSD(s string) (n int, msg, problem string) {
	i := 0
	for i < len(s) && s[i] == '[' {
		inQuote := false
		for i++; i < len(s); i++ {
			c := s[i]
			if inQuote && c == '\\' {
				i++
				continue
			}
			if c == '"' {
				inQuote = !inQuote
				continue
			}
			if c == ']' && !inQuote {
				break
			}
		}
		if i >= len(s) {
			return n, "", "unterminated element"
		}
		n++
		i++
	}
	if i < len(s) && s[i] != ' ' {
		return n, "", "no space after SD"
	}
	return n, strings.TrimPrefix(s[i:], " "), ""
}

func TestJSONLExportIsOneValidRecordPerLine(t *testing.T) {
	var out bytes.Buffer
	if err := Export(&out, FormatJSONL, fileSource{path: "testdata/hostile.jsonl"}, Filter{}, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(hostileEntries(t)) {
		t.Fatalf("%d lines for %d entries", len(lines), len(hostileEntries(t)))
	}
	for i, l := range lines {
		var r audit.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Event == "" {
			t.Errorf("line %d is not a record: %v: %q", i+1, err, l)
		}
	}
}

func TestReportCannotBeForgedByRecords(t *testing.T) {
	entries := hostileEntries(t)
	// the same corpus as gate_config, holds and secret reads, so every
	// section of every document renders record text
	for _, e := range entries[:4] {
		c := e
		c.Record.Event = "gate_config"
		entries = append(entries, c)
		c.Record.Event, c.Record.Decision = "mcp_admit", "block"
		entries = append(entries, c)
	}
	// and as every kind of "Needs you" line: a call observe let through,
	// a fail-open, a hold with a named server, a burned secret
	for _, e := range hostileEntries(t)[:12] {
		c := e
		c.Record.Event, c.Record.Decision, c.Record.Effective, c.Record.Mode = "decision", "block", "allow", "observe"
		entries = append(entries, c)
		c.Record.Event = "hook_error"
		entries = append(entries, c)
		c.Record.Event, c.Record.Tool = "mcp_admit", "mcp__"+e.Record.Tool
		entries = append(entries, c)
		c.Record.Event, c.Record.Tool, c.Record.Rule, c.Record.Target = "decision", "Read", "secrets.ssh", e.Record.Target
		entries = append(entries, c)
	}
	s := Summarize(entries, Integrity{Status: audit.Intact, Records: len(entries)}, Filter{})
	if len(s.Needs.Ran) == 0 || len(s.Needs.Holds) == 0 || len(s.Needs.Burns) == 0 {
		t.Fatalf("the hostile corpus does not reach every Needs-you line: %+v", s.Needs)
	}
	var secrets []Entry
	for _, e := range entries {
		e.Record.Rule = "secrets.ssh"
		secrets = append(secrets, e)
	}
	b := Analyze(secrets, Integrity{Status: audit.Intact}, Filter{})
	docs := map[string]func(*bytes.Buffer) error{
		"text":            func(w *bytes.Buffer) error { return s.Text(w) },
		"markdown":        func(w *bytes.Buffer) error { return s.Markdown(w) },
		"html":            func(w *bytes.Buffer) error { return s.HTML(w) },
		"breach text":     func(w *bytes.Buffer) error { return b.Text(w) },
		"breach markdown": func(w *bytes.Buffer) error { return b.Markdown(w) },
	}
	for name, render := range docs {
		var w bytes.Buffer
		if err := render(&w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := w.String()
		if why := forged(out); why != "" {
			t.Errorf("%s: %s", name, why)
		}
		lower := strings.ToLower(out)
		if name != "text" && name != "breach text" { // a terminal renders no markup
			for _, bad := range []string{"<script", "<img", "<iframe", "<link", "](javascript"} {
				if strings.Contains(lower, bad) && (bad[0] == '<' || name != "html") {
					t.Errorf("%s: contains %q", name, bad)
				}
			}
		}
		if name == "html" {
			for _, bad := range []string{"http://", "https://", "@import", "url("} {
				if strings.Contains(strings.ReplaceAll(lower, "http://www.w3.org/2000/svg", ""), bad) {
					t.Errorf("html: not self-contained, contains %q", bad)
				}
			}
		}
		if strings.HasPrefix(name, "markdown") || name == "breach markdown" {
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "|") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 3 {
					t.Errorf("%s: table row with forged cells: %q", name, line)
				}
			}
		}
	}
}
