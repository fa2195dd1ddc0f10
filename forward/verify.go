package forward

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentairlock/airlock/audit"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

// ExportReport is what VerifyExport found in a receiver's copy.
type ExportReport struct {
	Chains []*ChainCopy // one per audit home found in the copy, in order of appearance
	Other  int          // lines that are not the forwarder's (a receiver's own messages)
	From   string       // the expected starting point given (ExportOptions.From), "" for the chain's first record
}

// CopyStatus is the verdict on one chain's copy.
type CopyStatus string

const (
	// CopyWhole: one run of links from the expected start (the chain's
	// first record, or ExportOptions.From) to the last record, nothing
	// edited, in order.
	CopyWhole CopyStatus = "whole"
	// CopyPartial: the links hold and nothing is edited, but the copy
	// starts mid-chain (a receiver that joined late, or whose oldest files
	// rotated away) and no expected start was given: what came before is
	// not in it, so the copy proves its own run only.
	CopyPartial CopyStatus = "partial"
	// CopyBroken: a gap, an edit, a fork or a reordering; or the copy does
	// not reach back to the expected start.
	CopyBroken CopyStatus = "broken"
)

// ExportOptions are what VerifyExportWith checks a copy against.
type ExportOptions struct {
	// From is the expected starting point: the h of the last record the
	// copy is not expected to hold (the first record's prev), or of the
	// first record it must hold; a prefix of at least 12 hex digits. ""
	// expects the chain's first record.
	From string
}

// CopyStart is where a chain's copy starts.
type CopyStart struct {
	Prev    string `json:"prev"`              // the first record's prev (audit.Genesis at the chain's start)
	H       string `json:"h"`                 // the first record's h
	Time    string `json:"ts,omitempty"`      // its time, when the copy has the stored line
	Event   string `json:"event,omitempty"`   // its event
	Segment int    `json:"segment,omitempty"` // the segment's seq when the copy starts at a rotation's segment_start record
}

// ChainCopy is one audit home's records in a copy.
type ChainCopy struct {
	Chain      string // audit.HomeID of the home, "" if the messages carry none
	Records    int    // distinct records (by h)
	Duplicates int    // copies of a record already seen (resends after a broken connection)
	Verified   int    // records whose h was recomputed from the stored line (syslog and OTLP bodies; not CEF)
	InOrder    bool   // every record's first copy came after its predecessor's
	FromStart  bool   // the copy starts at the chain's first record (prev = genesis)
	FromGiven  bool   // the copy holds the expected start given (ExportOptions.From)
	First      string // prev of the first record (genesis, or where the copy starts)
	Start      *CopyStart
	Last       string // h of the last record
	LastBeat   *Beat  // the newest heartbeat, nil if none
	Status     CopyStatus
	Problems   []string
	Notes      []string // what the copy does not prove, without being a fault (where a partial copy starts)
}

// OK is true when every chain's copy is whole.
func (r *ExportReport) OK() bool { return r.Status() == CopyWhole }

// Status is the worst of the chains' verdicts: broken if any is (or the
// copy holds no record), else partial if any starts mid-chain.
func (r *ExportReport) Status() CopyStatus {
	if len(r.Chains) == 0 {
		return CopyBroken
	}
	out := CopyWhole
	for _, c := range r.Chains {
		switch c.Status {
		case CopyBroken:
			return CopyBroken
		case CopyPartial:
			out = CopyPartial
		case CopyWhole:
		default:
			return CopyBroken
		}
	}
	return out
}

type copyRecord struct {
	h, prev string
	seen    int // position of the first copy
	where   string
	rec     *audit.Record // the stored line decoded, nil for CEF
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
	return VerifyExportWith(r, ExportOptions{})
}

// VerifyExportWith is VerifyExport against an expected starting point: a
// copy that starts mid-chain is whole when it reaches back to o.From,
// broken when it does not, and partial when no From is given.
func VerifyExportWith(r io.Reader, o ExportOptions) (*ExportReport, error) {
	from := strings.ToLower(o.From)
	if from != "" && !ValidHashPrefix(from) {
		return nil, fmt.Errorf("--from %q: not a record hash (12 to 64 hex digits, as verify --export prints them)", o.From)
	}
	rep := &ExportReport{From: from}
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
	matched := false
	for _, st := range chains {
		st.check(from)
		matched = matched || st.out.FromGiven
	}
	for _, st := range chains {
		st.judge(from, matched)
	}
	return rep, nil
}

// ValidHashPrefix reports whether s is 12 to 64 hex digits (a record
// hash or a prefix of one, as --from takes it).
func ValidHashPrefix(s string) bool {
	s = strings.ToLower(s)
	if len(s) < 12 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// judge sets the chain's verdict once every chain is checked: --from names
// one chain's point, so it fails the chains that miss it only when no
// chain has it.
func (st *chainState) judge(from string, matched bool) {
	c := st.out
	switch {
	case len(c.Problems) == 0 && c.Records > 0 && from != "" && !c.FromGiven && !matched:
		c.Problems = append(c.Problems, fmt.Sprintf("the copy does not reach back to --from %s: it starts after %s, so the records between are missing (or --from names a record after the copy's end)", short(from), short(c.First)))
	}
	switch {
	case len(c.Problems) > 0 || c.Records == 0:
		c.Status = CopyBroken
	case c.FromStart || c.FromGiven:
		c.Status = CopyWhole
	default:
		c.Status = CopyPartial
	}
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
	var rec *audit.Record
	if raw != nil {
		rec = &audit.Record{}
		if json.Unmarshal(raw, rec) != nil {
			rec = nil
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
	r := &copyRecord{h: h, prev: prev, seen: len(st.order), where: where, rec: rec}
	st.byH[h] = r
	st.order = append(st.order, r)
}

func (st *chainState) beat(b Beat) {
	st.beats = append(st.beats, b)
	if st.out.LastBeat == nil || b.Time >= st.out.LastBeat.Time {
		st.out.LastBeat = &b
	}
}

// check walks the links: the records must form one run, each record's
// first copy after its predecessor's. from ("" for none) is the expected
// starting point.
func (st *chainState) check(from string) {
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
	c.Start = &CopyStart{Prev: first.prev, H: first.h}
	if first.rec != nil {
		c.Start.Time, c.Start.Event = first.rec.Time, first.rec.Event
		if first.rec.Event == "segment_start" {
			c.Start.Segment = segmentSeq(first.rec.Detail)
		}
	}
	c.InOrder = true
	walked, last := 0, first
	for r := first; r != nil; r = next[r.h] {
		if from != "" && (strings.HasPrefix(r.prev, from) && r == first || strings.HasPrefix(r.h, from)) {
			c.FromGiven = true
		}
		if r != first && r.seen < last.seen && c.InOrder {
			c.InOrder = false
			c.Problems = append(c.Problems, fmt.Sprintf("%s: record %s arrived before %s, the record it follows: the copy is reordered (a forwarder sends in chain order; a resend repeats records, it does not move them)", r.where, short(r.h), short(last.h)))
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
			msg := fmt.Sprintf("the heartbeat of %s says %d records were shipped through %s, and the copy holds %d up to it", b.Time, b.Shipped, short(b.LastH), n)
			if c.FromStart {
				// from the chain's first record nothing can be before it
				c.Problems = append(c.Problems, msg+" from the chain's first record: the beat and the copy disagree")
			} else {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: %d records before the copy's start are elsewhere (the receiver's earlier files, or a receiver that joined late)", msg, b.Shipped-n))
			}
		}
	}
}

func short(h string) string { return h[:min(12, len(h))] + "…" }

// segmentSeq is the seq=N of a segment_start record's detail, 0 if none.
func segmentSeq(detail string) int {
	for f := range strings.FieldsSeq(detail) {
		if v, ok := strings.CutPrefix(f, "seq="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

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
