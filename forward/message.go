package forward

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/report"
)

// SDID is the structured-data ID of every syslog message the forwarder
// sends. 32473 is the example enterprise number RFC 5612 reserves for
// documentation (the one `airlock export --format syslog` uses).
const SDID = "airlock@32473"

// HeartbeatEvent names a heartbeat: the syslog MSGID, the OTLP event name's
// suffix and the event of its JSON body.
const HeartbeatEvent = "forward_heartbeat"

// facility is "log audit" (13), as in airlock export.
const facility = 13

// item is one thing to ship: a line of the chain, or a heartbeat.
type item struct {
	line audit.Line   // Raw is owned by the item
	rec  audit.Record // the line decoded, for the fields a receiver indexes
	beat *Beat
}

// Beat is a heartbeat: the forwarder is alive, and has shipped the chain
// through LastH (Shipped records since its cursor was created).
type Beat struct {
	Event   string `json:"event"` // HeartbeatEvent
	Time    string `json:"ts"`
	Chain   string `json:"chain"`   // the audit home's id (audit.HomeID)
	Seq     int64  `json:"beat"`    // counts up from 1 for each forwarder run
	LastH   string `json:"last_h"`  // h of the last record the receiver confirmed ("" before any)
	Shipped int64  `json:"shipped"` // records confirmed to this target since the cursor was created
	EveryS  int64  `json:"every_s"` // seconds until the next beat, at most
	Target  string `json:"target"`
}

func (b Beat) json() string {
	out, _ := json.Marshal(b) // a struct of strings and ints: cannot fail
	return string(out)
}

func newItem(l audit.Line) item {
	it := item{line: l}
	it.line.Raw = append([]byte(nil), l.Raw...)
	if err := json.Unmarshal(it.line.Raw, &it.rec); err != nil || l.Pos.H == "" {
		// a line that is no record still ships, as a malformed event, so
		// the receiver sees the damage Verify would report
		it.rec = audit.Record{Event: audit.EventMalformed, Source: "audit"}
	}
	return it
}

// syslogMessage renders it as one RFC 5424 message (no framing):
//
//	<PRI>1 TIMESTAMP HOST airlock - MSGID [airlock@32473 chain=… h=… prev=… …] MSG
//
// MSG is the stored line (FormatSyslog) or its CEF rendering (FormatCEF);
// heartbeats have MSGID forward_heartbeat and their JSON as MSG.
func syslogMessage(it item, format, host, chain, version string) []byte {
	var b strings.Builder
	sev, ts, msgid := 6, "", it.rec.Event
	if it.beat != nil {
		ts, msgid = it.beat.Time, HeartbeatEvent
	} else {
		sev, ts = syslogSeverity(report.Severity(it.rec)), it.rec.Time
	}
	b.WriteByte('<')
	b.WriteString(strconv.Itoa(facility*8 + sev))
	b.WriteString(">1 ")
	if _, err := time.Parse(audit.TimeFormat, ts); err == nil {
		b.WriteString(ts)
	} else {
		b.WriteByte('-')
	}
	b.WriteByte(' ')
	b.WriteString(headerToken(host, 255))
	b.WriteString(" airlock - ")
	b.WriteString(headerToken(msgid, 32))
	b.WriteString(" [" + SDID)
	param := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(sdEscape(v))
		b.WriteByte('"')
	}
	param("chain", chain)
	if it.beat != nil {
		param("beat", strconv.FormatInt(it.beat.Seq, 10))
		param("last_h", it.beat.LastH)
		param("shipped", strconv.FormatInt(it.beat.Shipped, 10))
		param("every_s", strconv.FormatInt(it.beat.EveryS, 10))
		b.WriteString("] ")
		b.WriteString(it.beat.json())
		return []byte(b.String())
	}
	param("h", it.line.Pos.H)
	param("prev", it.line.Prev)
	param("event", it.rec.Event)
	param("source", it.rec.Source)
	param("effective", it.rec.Effective)
	param("rule", it.rec.Rule)
	b.WriteString("] ")
	if format == FormatCEF {
		b.WriteString(report.CEFLine(it.rec, version))
	} else {
		b.Write(it.line.Raw)
	}
	return []byte(b.String())
}

func syslogSeverity(s int) int {
	switch {
	case s >= 9:
		return 2
	case s >= 8:
		return 3
	case s >= 7:
		return 4
	case s >= 5:
		return 5
	}
	return 6
}

// headerToken reduces s to RFC 5424 header characters (PRINTUSASCII, no
// space) of at most max bytes; "-" when nothing is left.
func headerToken(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		if c := s[i]; c > 32 && c < 127 {
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

// sdEscape escapes a PARAM-VALUE (RFC 5424 §6.3.3). The values the
// forwarder writes are hashes, ids and record fields; a line break in one
// is replaced, so a message is always one line.
func sdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, `]`, `\]`, "\n", `\n`, "\r", `\r`).Replace(s)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
