package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Export formats.
const (
	formatCEF    = "cef"
	formatSyslog = "syslog"
	FormatJSONL  = "jsonl"
)

// Formats lists the export formats.
var Formats = []string{formatCEF, formatSyslog, FormatJSONL}

// ExportOptions are the facts about this machine an export line carries.
type ExportOptions struct {
	Version string // the airlock version, for the CEF header
	Host    string // the syslog HOSTNAME; "-" when empty
}

// Export writes every entry of src that f keeps to w, one line per entry,
// in the given format. A malformed line of the log is exported as a
// "malformed" event (its bytes escaped), never dropped and never copied raw.
func Export(w io.Writer, format string, src Source, f Filter, o ExportOptions) error {
	var line func(Entry) (string, error)
	switch format {
	case formatCEF:
		line = func(e Entry) (string, error) { return cefLine(AsRecord(e), o.Version), nil }
	case formatSyslog:
		line = func(e Entry) (string, error) { return syslogLine(AsRecord(e), o.Host), nil }
	case FormatJSONL:
		line = func(e Entry) (string, error) { return jsonLine(AsRecord(e)) }
	default:
		return fmt.Errorf("unknown export format %q: choose one of %s", format, strings.Join(Formats, ", "))
	}
	bw := bufio.NewWriter(w)
	err := src.Each(func(e Entry) error {
		if !f.Keep(e) {
			return nil
		}
		s, err := line(e)
		if err != nil {
			return err
		}
		bw.WriteString(s)
		return bw.WriteByte('\n')
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// AsRecord is the record to show or export for e: a malformed line becomes a
// placeholder that names it and carries its bytes escaped.
func AsRecord(e Entry) audit.Record {
	if e.Err == nil {
		return e.Record
	}
	return audit.Record{
		Event:  audit.EventMalformed,
		Source: "audit",
		Reason: fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err),
		Detail: textsafe.Escape(string(e.Raw)),
	}
}

// jsonLine renders r with its members in sorted order, the way the log
// stores a record, so a consumer can recompute h for a verbatim record.
// (A member a later version adds and this one does not know is not kept.)
func jsonLine(r audit.Record) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	b, err = json.Marshal(m) // maps marshal with sorted keys
	return string(b), err
}

// Severity grades a record 0-10 (CEF's scale).
func Severity(r audit.Record) int {
	switch r.Event {
	case audit.EventMalformed, audit.EventRecover:
		return 9
	case "hook_error":
		return 8
	case "gate_config":
		return 5
	case "mcp_unsolicited", "mcp_malformed":
		return 6
	}
	switch {
	case r.Effective == "block" || (r.Event == "mcp_admit" && r.Decision == "block"):
		return 7
	case r.Effective == "ask" || r.Decision == "block" || r.Decision == "ask":
		// a block that observe mode let through is worth more than an allow
		return 5
	}
	return 2
}

// cefLine renders r as one ArcSight CEF line. Header fields escape \ and |;
// extension values escape \, = and line breaks; every other control, bidi
// or invisible character is written in textsafe.Escape's visible form.
func cefLine(r audit.Record, version string) string {
	var b strings.Builder
	b.WriteString("CEF:0|Airlock|airlock|")
	b.WriteString(cefEscape(version, true))
	b.WriteByte('|')
	b.WriteString(cefEscape(signature(r), true))
	b.WriteByte('|')
	b.WriteString(cefEscape(eventName(r), true))
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(Severity(r)))
	b.WriteByte('|')
	first := true
	ext := func(k, v string) {
		if v == "" {
			return
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(cefEscape(v, false))
	}
	if t, ok := recordTime(r); ok {
		ext("rt", strconv.FormatInt(t.UnixMilli(), 10))
	}
	ext("cat", r.Event)
	ext("deviceFacility", r.Source)
	ext("act", r.Effective)
	if r.Decision != "" {
		ext("cs1Label", "decision")
		ext("cs1", r.Decision)
	}
	if r.Rule != "" {
		ext("cs2Label", "rule")
		ext("cs2", r.Rule)
	}
	if r.Session != "" {
		ext("cs3Label", "session")
		ext("cs3", r.Session)
	}
	if r.Tool != "" {
		ext("cs4Label", "tool")
		ext("cs4", r.Tool)
	}
	if r.Target != "" {
		ext("cs5Label", "target")
		ext("cs5", r.Target)
	}
	if r.Mode != "" {
		ext("cs6Label", "mode")
		ext("cs6", r.Mode)
	}
	ext("msg", r.Reason)
	if r.Detail != "" {
		ext("flexString1Label", "detail")
		ext("flexString1", r.Detail)
	}
	if r.ArgsDigest != "" {
		ext("fileHash", r.ArgsDigest)
	}
	if r.H != "" {
		ext("flexString2Label", "h")
		ext("flexString2", r.H)
	}
	return b.String()
}

// signature is the CEF Signature ID: the event, and the effective result
// for decisions ("decision:block").
func signature(r audit.Record) string {
	if r.Effective != "" {
		return r.Event + ":" + r.Effective
	}
	if r.Decision != "" {
		return r.Event + ":" + r.Decision
	}
	return r.Event
}

// eventName is a short human-readable name for a record.
func eventName(r audit.Record) string {
	parts := []string{r.Event}
	if r.Effective != "" {
		parts = append(parts, r.Effective)
	} else if r.Decision != "" {
		parts = append(parts, r.Decision)
	}
	if r.Tool != "" {
		parts = append(parts, r.Tool)
	}
	return strings.Join(parts, " ")
}

func cefEscape(s string, header bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case header && r == '|':
			b.WriteString(`\|`)
		case !header && r == '=':
			b.WriteString(`\=`)
		case !header && r == '\n':
			b.WriteString(`\n`)
		case !header && r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			// a byte that is not UTF-8: its visible \xNN form
			b.WriteString(strings.ReplaceAll(textsafe.Escape(s[i:i+1]), `\`, `\\`))
		default:
			one := string(r)
			if esc := textsafe.Escape(one); esc != one {
				// visible form, its backslash escaped so a parser keeps it
				b.WriteString(strings.ReplaceAll(esc, `\`, `\\`))
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CEFLine renders r as the ArcSight CEF line `airlock export --format cef`
// writes (airlock forward's CEF variant sends it as the syslog MSG).
func CEFLine(r audit.Record, version string) string { return cefLine(r, version) }
