package audit

import (
	"bytes"
	"reflect"
	"testing"
)

func fastSlowAgree(t *testing.T, r Record, prev string) {
	t.Helper()
	fl, fo, ok := encodeRecordFast(r, prev)
	sl, so, err := encodeRecordSlow(r, prev)
	if err != nil {
		t.Fatalf("slow encoding of %+v: %v", r, err)
	}
	if !ok {
		// only invalid UTF-8 takes the slow path
		return
	}
	if !bytes.Equal(fl, sl) {
		t.Fatalf("fast and reference encodings differ for %+v:\nfast %s\nslow %s", r, fl, sl)
	}
	if !reflect.DeepEqual(fo, so) {
		t.Fatalf("fast and reference records differ:\nfast %+v\nslow %+v", fo, so)
	}
}

// TestEncodeRecordFastMatches: the direct encoder writes the same bytes,
// and so the same h, as the reference round trip through encoding/json
// that the format is specified by.
func TestEncodeRecordFastMatches(t *testing.T) {
	cases := []Record{
		{Event: "decision", Source: "hook"},
		{Time: "2026-12-01T10:00:00.000Z", Event: "decision", Source: "mcp", Session: "s", Tool: "Bash", Decision: "allow", Effective: "allow", Rule: "r", Reason: "why", Target: "cat a", Detail: "d", Mode: "guard", Asked: "human", ArgsDigest: "ab"},
		{Time: "2026-12-01T10:00:00.000Z", Event: "decision", Source: "hook", Agent: "gemini", AgentTool: "run_shell_command", Tool: "Bash", Decision: "block", Effective: "block", ArgsDigest: "ab"},
		{Event: "e", Source: "s", Target: `<script>&"\` + "\x00\x1f\x7f\t\n\r\b\f"},
		{Event: "e", Source: "s", Detail: "\u2028\u2029 \u00e9 \U0001F600 \ufffd \u200b"},
		{Event: "e", Source: "s", Reason: "bad \xff utf8"},
		{Event: "e", Source: "s", H: "ignored", Alg: "x", Sig: "y", Prev: "ignored"},
	}
	for _, r := range cases {
		fastSlowAgree(t, r, Genesis)
	}
	if _, _, ok := encodeRecordFast(Record{Event: "e", Source: "s", Tool: "\xc3"}, Genesis); ok {
		t.Fatal("invalid UTF-8 must take the reference path")
	}
}

func FuzzEncodeRecordFast(f *testing.F) {
	f.Add("decision", "hook", "Bash", "cat <a> & b", "detail \u2028", "", "2026-12-01T10:00:00.000Z")
	f.Add("e", "s", "", "\x00\"\\", "\xff", "x", "")
	f.Fuzz(func(t *testing.T, event, source, tool, target, detail, reason, ts string) {
		r := Record{Time: ts, Event: event, Source: source, Tool: tool, Target: target, Detail: detail, Reason: reason, Session: reason, Mode: tool}
		fastSlowAgree(t, r, Genesis)
	})
}
