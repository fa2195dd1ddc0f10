package report

import (
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// syslogEnterpriseID is the private enterprise number in the structured
// data ID (airlock@32473). 32473 is the example number RFC 5612 reserves
// for documentation; an operator who owns a number can map it in the SIEM.
const syslogEnterpriseID = "32473"

// syslogFacility is "log audit" (13).
const syslogFacility = 13

// syslogLine renders r as one RFC 5424 message:
//
//	<PRI>1 TIMESTAMP HOSTNAME airlock - MSGID [airlock@32473 key="value" …] MSG
//
// Exactly one SD element is written. Its PARAM-VALUEs escape ", \ and ]
// (RFC 5424 §6.3.3), so no record field can close the element or open
// another; MSGID and HOSTNAME are reduced to printable ASCII without
// spaces; every field is first passed through textsafe.Escape, so no line
// break, control or bidi character reaches the output and one record is
// always one line. MSG starts with the event name, never with "[", so a
// lenient parser cannot mistake record text for a second SD element.
func syslogLine(r audit.Record, host string) string {
	sev := syslogSeverity(r)
	var b strings.Builder
	b.WriteByte('<')
	b.WriteString(strconv.Itoa(syslogFacility*8 + sev))
	b.WriteString(">1 ")
	if t, ok := recordTime(r); ok {
		b.WriteString(t.UTC().Format("2006-01-02T15:04:05.000Z"))
	} else {
		b.WriteByte('-')
	}
	b.WriteByte(' ')
	b.WriteString(headerToken(host, 255))
	b.WriteString(" airlock - ")
	b.WriteString(headerToken(r.Event, 32))
	b.WriteString(" [airlock@" + syslogEnterpriseID)
	param := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(sdEscape(textsafe.Escape(v)))
		b.WriteByte('"')
	}
	param("ts", r.Time)
	param("event", r.Event)
	param("source", r.Source)
	param("session", r.Session)
	param("tool", r.Tool)
	param("decision", r.Decision)
	param("effective", r.Effective)
	param("rule", r.Rule)
	param("target", r.Target)
	param("reason", r.Reason)
	param("detail", r.Detail)
	param("mode", r.Mode)
	param("args_digest", r.ArgsDigest)
	param("h", r.H)
	b.WriteString("] ")
	b.WriteString(textsafe.Escape(syslogMessage(r)))
	return b.String()
}

// syslogMessage is the free-text MSG: the event name first (never "["),
// then what happened.
func syslogMessage(r audit.Record) string {
	msg := headerToken(r.Event, 32) + ":"
	if name := strings.TrimPrefix(eventName(r), r.Event); name != "" {
		msg += name
	}
	if r.Target != "" {
		msg += " " + r.Target
	}
	if r.Reason != "" {
		msg += " - " + r.Reason
	}
	return msg
}

func syslogSeverity(r audit.Record) int {
	switch s := Severity(r); {
	case s >= 9:
		return 2 // critical: the log itself is damaged
	case s >= 8:
		return 3 // error
	case s >= 7:
		return 4 // warning: a block
	case s >= 5:
		return 5 // notice
	}
	return 6 // informational
}

// headerToken reduces s to RFC 5424 header characters (PRINTUSASCII, no
// space) of at most max bytes; "-" (NILVALUE) when nothing is left.
func headerToken(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		c := s[i]
		if c > 32 && c < 127 {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

func sdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, `]`, `\]`).Replace(s)
}
