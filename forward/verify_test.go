package forward

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// exportOf renders the chain of home as a syslog receiver's file would
// hold it, each line passed through edit ("" drops it), then a heartbeat.
func exportOf(t *testing.T, home string, edit func(i int, line string) string) string {
	t.Helper()
	var b strings.Builder
	i, last := 0, ""
	if err := audit.LinesAfter(home, audit.Position{}, func(l audit.Line) error {
		line := string(syslogMessage(newItem(l), FormatSyslog, "host", "chain1", "test"))
		if edit != nil {
			line = edit(i, line)
		}
		if line != "" {
			b.WriteString("Dec  2 06:00:00 127.0.0.1 " + line + "\n")
		}
		i++
		last = l.Pos.H
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	beat := item{beat: &Beat{Event: HeartbeatEvent, Time: "2026-12-02T06:00:00.000Z", Chain: "chain1", Seq: 1, LastH: last, Shipped: int64(i), EveryS: 60}}
	b.WriteString(string(syslogMessage(beat, FormatSyslog, "host", "chain1", "test")) + "\n")
	b.WriteString("<13>1 - host rsyslogd - - - a receiver's own message\n")
	return b.String()
}

func verifyString(t *testing.T, s string) *ChainCopy {
	t.Helper()
	rep, err := VerifyExport(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Chains) != 1 || rep.Other != 1 {
		t.Fatalf("%d chains, %d other lines; want 1 and 1", len(rep.Chains), rep.Other)
	}
	return rep.Chains[0]
}

func TestVerifyExport(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 10)

	c := verifyString(t, exportOf(t, home, nil))
	if len(c.Problems) != 0 || c.Records != 11 || c.Verified != 11 || !c.FromStart || !c.InOrder || c.LastBeat == nil {
		t.Fatalf("whole copy: %+v", c)
	}

	// a resend: duplicates are dropped by h, the copy is still whole
	var lines []string
	dup := exportOf(t, home, func(i int, line string) string {
		if i >= 4 && i < 7 {
			lines = append(lines, line)
		}
		if i == 8 {
			return strings.Join(lines, "\nDec  2 06:00:00 127.0.0.1 ") + "\nDec  2 06:00:00 127.0.0.1 " + line
		}
		return line
	})
	if c := verifyString(t, dup); len(c.Problems) != 0 || c.Duplicates != 3 || c.Records != 11 {
		t.Fatalf("copy with a resend: %+v", c)
	}

	// a record missing in the middle
	c = verifyString(t, exportOf(t, home, func(i int, line string) string {
		if i == 5 {
			return ""
		}
		return line
	}))
	if len(c.Problems) == 0 || !strings.Contains(strings.Join(c.Problems, ";"), "runs") {
		t.Fatalf("a gap passed: %+v", c)
	}

	// records missing at the end: the heartbeat names a later h
	c = verifyString(t, exportOf(t, home, func(i int, line string) string {
		if i >= 9 {
			return ""
		}
		return line
	}))
	if !strings.Contains(strings.Join(c.Problems, ";"), "missing at the end") {
		t.Fatalf("a cut end passed: %+v", c)
	}

	// an edited record: its h no longer matches its content
	c = verifyString(t, exportOf(t, home, func(i int, line string) string {
		if i == 3 {
			return strings.Replace(line, `"effective":"allow"`, `"effective":"block"`, 1)
		}
		return line
	}))
	if !strings.Contains(strings.Join(c.Problems, ";"), "edited") {
		t.Fatalf("an edit passed: %+v", c)
	}

	// a reordered copy: every record is there, but the forwarder sends
	// in chain order, so a record before its predecessor was moved
	c = verifyString(t, exportOf(t, home, func(i int, line string) string {
		switch i {
		case 2:
			lines = []string{line}
			return ""
		case 3:
			return line + "\nDec  2 06:00:00 127.0.0.1 " + lines[0]
		}
		return line
	}))
	if c.Status != CopyBroken || c.InOrder || c.Records != 11 || !strings.Contains(strings.Join(c.Problems, ";"), "reordered") {
		t.Fatalf("a reordered copy: %+v", c)
	}
}

func TestVerifyExportOfNothingIsNotOK(t *testing.T) {
	rep, err := VerifyExport(bytes.NewReader([]byte("just a line\n")))
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Other != 1 {
		t.Fatalf("an export with no record: OK %v, other %d", rep.OK(), rep.Other)
	}
}

// A record's stored line replaced by text that is not JSON keeps its h and
// prev in the SD element: nothing recomputes it, so the edit must be
// reported, not counted as a record that cannot be checked.
func TestVerifyExportAReplacedMessageIsAProblem(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 5)
	c := verifyString(t, exportOf(t, home, func(i int, line string) string {
		if i == 3 {
			at := strings.Index(line, "] {")
			return line[:at] + "] nothing to see here"
		}
		return line
	}))
	if len(c.Problems) == 0 {
		t.Fatalf("a record whose line was replaced passed: %+v", c)
	}
}

// Heartbeats are not signed: a forged one with a later time naming an
// earlier h must not hide a real beat naming a record the copy lacks.
func TestVerifyExportEveryBeatIsChecked(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 6)
	hs := chainHashes(t, home)
	s := exportOf(t, home, func(i int, line string) string {
		if i >= len(hs)-2 {
			return ""
		}
		return line
	})
	forged := item{beat: &Beat{Event: HeartbeatEvent, Time: "2099-01-01T00:00:00.000Z", Chain: "chain1", Seq: 9, LastH: hs[1], Shipped: 2, EveryS: 60}}
	s += string(syslogMessage(forged, FormatSyslog, "host", "chain1", "test")) + "\n"
	c := verifyString(t, s)
	if !strings.Contains(strings.Join(c.Problems, ";"), "missing at the end") {
		t.Fatalf("a forged later beat hid a cut end: %+v", c)
	}
}

// A copy with its first records cut is partial, not whole: the heartbeat
// says how many records were shipped through its last_h, and the note
// says how many came before the copy's start.
func TestVerifyExportAGapAtTheStartIsPartial(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 8)
	c := verifyString(t, exportOf(t, home, func(i int, line string) string {
		if i < 3 {
			return ""
		}
		return line
	}))
	if c.FromStart || c.Status != CopyPartial || len(c.Problems) != 0 || !strings.Contains(strings.Join(c.Notes, ";"), "3 records before the copy's start") {
		t.Fatalf("a copy missing its first records: %+v", c)
	}
}

// Credentials in a target URL's userinfo are not used by any transport and
// would travel in every heartbeat (its target field) and the cursor.
func TestParseTargetRefusesUserinfo(t *testing.T) {
	for _, s := range []string{"otlp+https://alice:s3cret@collector:4318", "https://tok@collector:4318/v1/logs", "relp://u:p@host:2514", "tls://u:p@host:6514"} {
		if tg, err := ParseTarget(s); err == nil {
			t.Errorf("%s: accepted (%+v)", s, tg)
		} else if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), ":p@") {
			t.Errorf("%s: the error repeats the secret: %v", s, err)
		}
	}
}
