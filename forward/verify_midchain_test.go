package forward

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentairlock/airlock/audit"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

// otlpExportOf renders the chain of home as a Collector's file exporter
// would write it, one LogsData per line of batch records, each record
// passed through keep (false drops it), then a heartbeat.
func otlpExportOf(t *testing.T, home string, keep func(i int) bool, batch int) string {
	t.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	var b strings.Builder
	var recs []*logspb.LogRecord
	flush := func() {
		if len(recs) == 0 {
			return
		}
		js, err := protojson.Marshal(&logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{{LogRecords: recs}}}}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteByte('\n')
		recs = nil
	}
	i, last := 0, ""
	if err := audit.LinesAfter(home, audit.Position{}, func(l audit.Line) error {
		if keep == nil || keep(i) {
			recs = append(recs, &logspb.LogRecord{
				Body:       &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: string(l.Raw)}},
				Attributes: []*commonpb.KeyValue{str(AttrChain, "chain1"), str(AttrH, l.Pos.H), str(AttrPrev, l.Prev)},
			})
			if len(recs) == batch {
				flush()
			}
		}
		i++
		last = l.Pos.H
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	beat := Beat{Event: HeartbeatEvent, Time: "2026-12-02T06:00:00.000Z", Chain: "chain1", Seq: 1, LastH: last, Shipped: int64(i), EveryS: 60}
	recs = append(recs, &logspb.LogRecord{
		EventName:  EventPrefix + HeartbeatEvent,
		Body:       &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: beat.json()}},
		Attributes: []*commonpb.KeyValue{str(AttrChain, "chain1")},
	})
	flush()
	return b.String()
}

// TestVerifyExportMidChain: a receiver's copy that starts mid-chain (a
// receiver that joined late, or whose oldest files rotated away) names
// where it starts; it is whole from the chain's first record, partial
// when its links hold but it starts later, whole again when --from states
// that start, and broken when it does not reach back to --from or has a
// gap, an edit or a reordering. Duplicates (by h) are fine. Both formats.
func TestVerifyExportMidChain(t *testing.T) {
	t.Setenv(audit.MaxMBEnv, "0.002") // a rotation every few records: the copy can start at a segment_start
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 30)
	var hs []string
	var events []string
	if err := audit.LinesAfter(home, audit.Position{}, func(l audit.Line) error {
		hs = append(hs, l.Pos.H)
		var r audit.Record
		if err := jsonUnmarshal(l.Raw, &r); err != nil {
			t.Fatal(err)
		}
		events = append(events, r.Event)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	seg := -1 // the first segment_start after the chain's beginning
	for i, e := range events {
		if e == "segment_start" && i > 2 {
			seg = i
			break
		}
	}
	if seg < 0 {
		t.Fatalf("no rotation in %d records: %v", len(events), events)
	}
	const late = 7 // a receiver that joined at the 8th record
	prevOf := func(i int) string {
		if i == 0 {
			return audit.Genesis
		}
		return hs[i-1]
	}

	type export func(keep func(i int) bool, edit func(i int, line string) string) string
	formats := map[string]export{
		"syslog": func(keep func(int) bool, edit func(int, string) string) string {
			return exportOf(t, home, func(i int, line string) string {
				if keep != nil && !keep(i) {
					return ""
				}
				if edit != nil {
					return edit(i, line)
				}
				return line
			})
		},
		"otlp": func(keep func(int) bool, _ func(int, string) string) string {
			return otlpExportOf(t, home, keep, 4)
		},
	}
	from := func(k int) func(int) bool { return func(i int) bool { return i >= k } }
	cases := []struct {
		name   string
		keep   func(int) bool
		edit   func(int, string) string // a syslog line
		otlp   func(string) string      // the OTLP JSON export (lines of 4 records)
		from   string
		status CopyStatus
		start  int // index of the copy's first record, -1 if not checked
		prob   string
	}{
		{name: "whole from genesis", status: CopyWhole, start: 0},
		{name: "whole from genesis, --from genesis", from: audit.Genesis, status: CopyWhole, start: 0},
		{name: "joined late", keep: from(late), status: CopyPartial, start: late},
		{name: "joined late, --from its prev", keep: from(late), from: hs[late-1], status: CopyWhole, start: late},
		{name: "joined late, --from a 12-digit prefix", keep: from(late), from: hs[late-1][:12], status: CopyWhole, start: late},
		{name: "joined late, --from upper case", keep: from(late), from: strings.ToUpper(hs[late-1][:20]), status: CopyWhole, start: late},
		{name: "joined late, --from its first record's h", keep: from(late), from: hs[late], status: CopyWhole, start: late},
		{name: "joined late, --from a record inside the copy", keep: from(late), from: hs[late+3], status: CopyWhole, start: late},
		{name: "joined late, --from an earlier point", keep: from(late), from: hs[2], status: CopyBroken, start: late, prob: "does not reach back"},
		{name: "whole, --from a point after its end", keep: func(i int) bool { return i < 10 }, from: hs[20], status: CopyBroken, prob: "missing at the end"},
		{name: "rotated away: starts at a segment_start", keep: from(seg), status: CopyPartial, start: seg},
		{name: "rotated away, --from the segment's prev", keep: from(seg), from: hs[seg-1], status: CopyWhole, start: seg},
		{name: "joined late with a gap", keep: func(i int) bool { return i >= late && i != late+4 }, status: CopyBroken, start: -1, prob: "runs"},
		{name: "joined late with a gap, --from its prev", keep: func(i int) bool { return i >= late && i != late+4 }, from: hs[late-1], status: CopyBroken, start: -1, prob: "runs"},
		{name: "joined late, an edit", keep: from(late), edit: func(i int, line string) string {
			if i == late+2 {
				return strings.Replace(line, `"effective":"allow"`, `"effective":"block"`, 1)
			}
			return line
		}, from: hs[late-1], status: CopyBroken, start: -1, otlp: func(s string) string {
			return strings.Replace(s, `\"effective\":\"allow\"`, `\"effective\":\"block\"`, 1)
		}, prob: "edited"},
		{name: "joined late, reordered", keep: from(late), edit: func() func(int, string) string {
			var held string
			return func(i int, line string) string {
				switch i {
				case late + 2:
					held = line
					return ""
				case late + 3:
					return line + "\nDec  2 06:00:00 127.0.0.1 " + held
				}
				return line
			}
		}(), otlp: func(s string) string {
			l := strings.Split(s, "\n")
			l[1], l[2] = l[2], l[1]
			return strings.Join(l, "\n")
		}, from: hs[late-1], status: CopyBroken, start: -1, prob: "reordered"},
		{name: "joined late, a resend (duplicates by h)", keep: from(late), edit: func(i int, line string) string {
			if i == late+5 {
				return line + "\nDec  2 06:00:00 127.0.0.1 " + line
			}
			return line
		}, otlp: func(s string) string {
			l := strings.Split(s, "\n")
			return strings.Join(append(l[:3:3], append([]string{l[1], l[2]}, l[3:]...)...), "\n")
		}, status: CopyPartial, start: late},
	}
	for fname, render := range formats {
		for _, tc := range cases {
			t.Run(fname+"/"+tc.name, func(t *testing.T) {
				in := render(tc.keep, tc.edit)
				if fname == "otlp" && tc.otlp != nil {
					in = tc.otlp(in)
				}
				rep, err := VerifyExportWith(strings.NewReader(in), ExportOptions{From: tc.from})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Chains) != 1 {
					t.Fatalf("%d chains", len(rep.Chains))
				}
				c := rep.Chains[0]
				if c.Status != tc.status || rep.Status() != tc.status {
					t.Fatalf("status %s (report %s), want %s: problems %v, notes %v", c.Status, rep.Status(), tc.status, c.Problems, c.Notes)
				}
				if strings.Contains(tc.name, "resend") && c.Duplicates == 0 {
					t.Fatal("the resend left no duplicate")
				}
				if tc.prob != "" && !strings.Contains(strings.Join(c.Problems, ";"), tc.prob) {
					t.Fatalf("problems %v, want one saying %q", c.Problems, tc.prob)
				}
				if tc.status != CopyBroken && len(c.Problems) != 0 {
					t.Fatalf("problems in a %s copy: %v", tc.status, c.Problems)
				}
				if tc.start >= 0 && tc.status != CopyBroken {
					if c.Start == nil || c.Start.Prev != prevOf(tc.start) || c.Start.H != hs[tc.start] || c.Start.Event != events[tc.start] {
						t.Fatalf("start %+v, want prev %s h %s (%s)", c.Start, prevOf(tc.start), hs[tc.start], events[tc.start])
					}
					if c.FromStart != (tc.start == 0) || c.First != prevOf(tc.start) {
						t.Fatalf("from start %v, first %s", c.FromStart, c.First)
					}
					if tc.start == seg && c.Start.Segment < 1 {
						t.Fatalf("a copy starting at a segment_start does not name the segment: %+v", c.Start)
					}
					if tc.start > 0 && tc.status == CopyPartial && !strings.Contains(strings.Join(c.Notes, ";"), "before the copy's start") {
						t.Fatalf("a partial copy without the note on what came before: %v", c.Notes)
					}
				}
			})
		}
	}
}

func TestVerifyExportFromMustBeAHash(t *testing.T) {
	for _, from := range []string{"abc", "zzzzzzzzzzzzzzzz", strings.Repeat("a", 65), "0123456789ab 0"} {
		if _, err := VerifyExportWith(strings.NewReader(""), ExportOptions{From: from}); err == nil {
			t.Errorf("--from %q accepted", from)
		}
	}
}
