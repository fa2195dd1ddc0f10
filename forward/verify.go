package forward

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentairlock/airlock/audit"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

// ExportReport is what VerifyExport found in a receiver's copy.
type ExportReport struct {
	Chains []*ChainCopy // one per audit home found in the copy, in order of appearance
	Other  int          // lines that are not the forwarder's (a receiver's own messages)
}

// ChainCopy is one audit home's records in a copy.
type ChainCopy struct {
	Chain      string // audit.HomeID of the home, "" if the messages carry none
	Records    int    // distinct records (by h)
	Duplicates int    // copies of a record already seen (resends after a broken connection)
	Verified   int    // records whose h was recomputed from the stored line (syslog and OTLP bodies; not CEF)
	InOrder    bool   // every record's first copy came after its predecessor's
	FromStart  bool   // the copy starts at the chain's first record (prev = genesis)
	First      string // prev of the first record (genesis, or where the copy starts)
	Last       string // h of the last record
	LastBeat   *Beat  // the newest heartbeat, nil if none
	Problems   []string
}

// OK is true when no chain copy has a problem.
func (r *ExportReport) OK() bool {
	for _, c := range r.Chains {
		if len(c.Problems) > 0 {
			return false
		}
	}
	return len(r.Chains) > 0
}

type copyRecord struct {
	h, prev string
	seen    int // position of the first copy
}

type chainState struct {
	out   *ChainCopy
	byH   map[string]*copyRecord
	order []*copyRecord
	beats []Beat // every heartbeat: none is signed, so the newest alone cannot be trusted to speak for the others
	cef   int    // records that carry a CEF line, not the stored one
}

// VerifyExport checks a receiver's copy without the machine: lines written
// by a syslog receiver (RFC 5424 messages with the airlock@32473 element,
// with or without a receiver's own prefix), or OTLP JSON (one
// ExportLogsServiceRequest or LogsData per line, what a Collector's file
// exporter writes). For each chain it recomputes every record's h from the
// stored line where the copy has it, drops duplicates by h, and walks the
// links: one run from the first record to the last, with no record missing
// between and nothing edited; the newest heartbeat's last_h must be in it.
func VerifyExport(r io.Reader) (*ExportReport, error) {
	rep := &ExportReport{}
	chains := map[string]*chainState{}
	get := func(id string) *chainState {
		st := chains[id]
		if st == nil {
			st = &chainState{out: &ChainCopy{Chain: id}, byH: map[string]*copyRecord{}}
			chains[id] = st
			rep.Chains = append(rep.Chains, st.out)
		}
		return st
	}
	br := bufio.NewReaderSize(r, 1<<20)
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			line = bytes.TrimRight(line, "\r\n")
			if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' {
				if err := otlpLine(t, n, get); err != nil {
					return nil, err
				}
			} else if !syslogLine(line, n, get) {
				rep.Other++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read export: %w", err)
		}
	}
	for _, st := range chains {
		st.check()
	}
	return rep, nil
}

func (st *chainState) add(where string, h, prev string, raw []byte) {
	c := st.out
	if raw != nil {
		got, err := audit.CheckLine(raw)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: %v", where, err))
			return
		}
		if got.H != h || got.Prev != prev {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: the message's h/prev do not match its record", where))
			return
		}
		if st.byH[h] == nil {
			c.Verified++
		}
	}
	if len(h) != 64 || len(prev) != 64 {
		c.Problems = append(c.Problems, fmt.Sprintf("%s: no h and prev", where))
		return
	}
	if r := st.byH[h]; r != nil {
		if r.prev != prev {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: two records with h %s and different prev", where, h[:12]))
		}
		c.Duplicates++
		return
	}
	if raw == nil {
		st.cef++
	}
	r := &copyRecord{h: h, prev: prev, seen: len(st.order)}
	st.byH[h] = r
	st.order = append(st.order, r)
}

func (st *chainState) beat(b Beat) {
	st.beats = append(st.beats, b)
	if st.out.LastBeat == nil || b.Time >= st.out.LastBeat.Time {
		st.out.LastBeat = &b
	}
}

// check walks the links: the records must form one run.
func (st *chainState) check() {
	c := st.out
	c.Records = len(st.order)
	if c.Records == 0 {
		if c.LastBeat != nil && c.LastBeat.LastH != "" {
			c.Problems = append(c.Problems, fmt.Sprintf("a heartbeat says %d records were shipped through %s, and the copy has none", c.LastBeat.Shipped, short(c.LastBeat.LastH)))
		}
		return
	}
	next := make(map[string]*copyRecord, len(st.order)) // prev -> record
	var starts []*copyRecord
	for _, r := range st.order {
		if o := next[r.prev]; o != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("records %s and %s both follow %s: the chain forks (an edited or inserted record)", short(o.h), short(r.h), short(r.prev)))
			continue
		}
		next[r.prev] = r
		if st.byH[r.prev] == nil {
			starts = append(starts, r)
		}
	}
	if len(starts) != 1 {
		var at []string
		for _, s := range starts[min(1, len(starts)):] {
			at = append(at, short(s.prev))
		}
		c.Problems = append(c.Problems, fmt.Sprintf("the copy has %d runs, not one: records are missing before %s", len(starts), strings.Join(at, ", ")))
		if len(starts) == 0 {
			return
		}
	}
	first := starts[0]
	c.First, c.FromStart = first.prev, first.prev == audit.Genesis
	c.InOrder = true
	walked, last := 0, first
	for r := first; r != nil; r = next[r.h] {
		if r != first && r.seen < last.seen {
			c.InOrder = false
		}
		walked++
		last = r
		if walked > len(st.order) {
			break
		}
	}
	c.Last = last.h
	if st.cef > 0 && c.Verified > 0 {
		c.Problems = append(c.Problems, fmt.Sprintf("%d records carry a CEF line and %d their stored line: one target sends one format, so a stored line was replaced (a CEF line cannot be recomputed)", st.cef, c.Verified))
	}
	// every heartbeat, not only the newest (a forged beat can claim any
	// time): each names a record the receiver confirmed, which the copy
	// must have, and how many were shipped through it since the cursor
	// began at the chain's start, which the run must hold up to it
	depth := make(map[string]int64, walked)
	d := int64(0)
	for r := first; r != nil && d < int64(walked); r = next[r.h] {
		d++
		depth[r.h] = d
	}
	missingEnd, missingStart := map[string]bool{}, false
	for _, b := range st.beats {
		if b.LastH == "" {
			continue
		}
		if st.byH[b.LastH] == nil {
			if !missingEnd[b.LastH] {
				missingEnd[b.LastH] = true
				c.Problems = append(c.Problems, fmt.Sprintf("the heartbeat of %s says the chain was shipped through %s, which the copy does not have: records are missing at the end", b.Time, short(b.LastH)))
			}
			continue
		}
		if n, ok := depth[b.LastH]; ok && n < b.Shipped && !missingStart {
			missingStart = true
			c.Problems = append(c.Problems, fmt.Sprintf("the heartbeat of %s says %d records were shipped through %s, and the copy holds %d up to it: records are missing at the start (a receiver's earlier files belong with this one)", b.Time, b.Shipped, short(b.LastH), n))
		}
	}
}

func short(h string) string { return h[:min(12, len(h))] + "…" }

// syslogLine reads one line a syslog receiver wrote; false if it is not
// one of the forwarder's messages.
func syslogLine(line []byte, n int, get func(string) *chainState) bool {
	i := bytes.Index(line, []byte("["+SDID+" "))
	if i < 0 {
		return false
	}
	params, rest, ok := parseSD(line[i+len(SDID)+2:])
	if !ok {
		return false
	}
	where := fmt.Sprintf("line %d", n)
	st := get(params["chain"])
	msg := bytes.TrimPrefix(rest, []byte(" "))
	if params["beat"] != "" {
		var b Beat
		if err := jsonUnmarshal(msg, &b); err == nil {
			st.beat(b)
		} else {
			st.out.Problems = append(st.out.Problems, fmt.Sprintf("%s: a heartbeat that does not parse: %v", where, err))
		}
		return true
	}
	raw := msg
	if bytes.HasPrefix(msg, []byte("CEF:")) {
		raw = nil // a CEF rendering: the links are in the SD element only
	}
	st.add(where, params["h"], params["prev"], raw)
	return true
}

// parseSD reads PARAM="VALUE" pairs up to the closing ] of the element.
func parseSD(b []byte) (map[string]string, []byte, bool) {
	out := map[string]string{}
	i := 0
	for {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		if i < len(b) && b[i] == ']' {
			return out, b[i+1:], true
		}
		eq := bytes.IndexByte(b[i:], '=')
		if eq < 0 || i+eq+1 >= len(b) || b[i+eq+1] != '"' {
			return nil, nil, false
		}
		key := string(b[i : i+eq])
		i += eq + 2
		var v strings.Builder
		for ; i < len(b) && b[i] != '"'; i++ {
			if b[i] == '\\' && i+1 < len(b) {
				i++
				switch b[i] {
				case 'n':
					v.WriteByte('\n')
				case 'r':
					v.WriteByte('\r')
				default:
					v.WriteByte(b[i])
				}
				continue
			}
			v.WriteByte(b[i])
		}
		if i >= len(b) {
			return nil, nil, false
		}
		i++
		out[key] = v.String()
	}
}

// otlpLine reads one line of OTLP JSON.
func otlpLine(line []byte, n int, get func(string) *chainState) error {
	var data logspb.LogsData
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(line, &data); err != nil {
		return fmt.Errorf("line %d: not OTLP JSON: %w", n, err)
	}
	for _, rl := range data.GetResourceLogs() {
		for _, sl := range rl.GetScopeLogs() {
			for k, lr := range sl.GetLogRecords() {
				attrs := map[string]string{}
				var beat Beat
				for _, kv := range lr.GetAttributes() {
					v := kv.GetValue()
					attrs[kv.GetKey()] = v.GetStringValue()
					switch kv.GetKey() {
					case AttrBeat:
						beat.Seq = v.GetIntValue()
					case AttrShipped:
						beat.Shipped = v.GetIntValue()
					}
				}
				st := get(attrs[AttrChain])
				where := fmt.Sprintf("line %d record %d", n, k+1)
				body := []byte(lr.GetBody().GetStringValue())
				if lr.GetEventName() == EventPrefix+HeartbeatEvent {
					if err := jsonUnmarshal(body, &beat); err != nil {
						st.out.Problems = append(st.out.Problems, fmt.Sprintf("%s: a heartbeat that does not parse: %v", where, err))
						continue
					}
					st.beat(beat)
					continue
				}
				st.add(where, attrs[AttrH], attrs[AttrPrev], body)
			}
		}
	}
	return nil
}
