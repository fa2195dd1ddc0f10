package monitor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// decision is a realistic decision record; i makes it unique.
func decision(i int, effective string) audit.Record {
	return audit.Record{
		Event: "decision", Source: "hook", Session: "s1", Tool: fmt.Sprintf("Tool%d", i),
		Decision: effective, Effective: effective, Rule: "rule", Reason: "why",
		Target: fmt.Sprintf("/work/file-%d", i),
	}
}

// appendN appends decisions from..from+n-1 to home, every third a block.
func appendN(t testing.TB, home string, from, n int) {
	t.Helper()
	l, err := audit.Open(home)
	if err != nil {
		t.Fatalf("audit.Open: %v", err)
	}
	defer l.Close()
	for i := from; i < from+n; i++ {
		eff := "allow"
		if i%3 == 0 {
			eff = "block"
		}
		if _, err := l.Append(decision(i, eff)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
}

// tools lists the tools of the decisions among rs.
func tools(rs []audit.Record) []string {
	var out []string
	for _, r := range rs {
		if r.Event == "decision" {
			out = append(out, r.Tool)
		}
	}
	return out
}

func toolRange(from, n int) []string {
	var out []string
	for i := from; i < from+n; i++ {
		out = append(out, fmt.Sprintf("Tool%d", i))
	}
	return out
}

func start(t *testing.T, f *follower) batch {
	t.Helper()
	b, err := f.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return b
}

func poll(t *testing.T, f *follower) batch {
	t.Helper()
	b, err := f.Poll()
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return b
}

func wantChainOK(t *testing.T, c chain, records int) {
	t.Helper()
	if c.Broken != "" || c.Records != records {
		t.Fatalf("chain: got %q, want ok with %d records", c, records)
	}
}

func wantTools(t *testing.T, what string, got []audit.Record, want []string) {
	t.Helper()
	if g := strings.Join(tools(got), " "); g != strings.Join(want, " ") {
		t.Fatalf("%s: got tools %q, want %q", what, g, strings.Join(want, " "))
	}
}

func TestFollowerSeesAppendsInOrder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 5)
	f := newFollower(home, 100)
	b := start(t, f)
	wantTools(t, "start", b.Records, toolRange(0, 5))
	wantChainOK(t, b.Chain, 6) // + audit_start

	if b := poll(t, f); len(b.Records) != 0 {
		t.Fatalf("poll with nothing appended returned %d records", len(b.Records))
	}
	appendN(t, home, 5, 3)
	b = poll(t, f)
	wantTools(t, "poll", b.Records, toolRange(5, 3))
	wantChainOK(t, b.Chain, 9)
}

func TestFollowerWaitsForMissingLog(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	f := newFollower(home, 100)
	b := start(t, f)
	if len(b.Records) != 0 || b.Chain.Broken != "" {
		t.Fatalf("missing log: got %d records, chain %q", len(b.Records), b.Chain)
	}
	appendN(t, home, 0, 2)
	wantTools(t, "after the log appeared", poll(t, f).Records, toolRange(0, 2))
}

// TestFollowerFollowsRotation rotates the log every few records and checks
// that the follower reads every record once, in order, with the chain
// intact across each segment boundary.
func TestFollowerFollowsRotation(t *testing.T) {
	t.Setenv(audit.MaxMBEnv, "0.001") // about 1 KB: a rotation every few records
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 10)
	f := newFollower(home, 1000)
	b := start(t, f)
	wantTools(t, "start", b.Records, toolRange(0, 10))
	seen := b.Records
	for step := range 8 {
		appendN(t, home, 10+step*5, 5)
		b = poll(t, f)
		if b.Chain.Broken != "" {
			t.Fatalf("step %d: %s", step, b.Chain)
		}
		seen = append(seen, b.Records...)
	}
	wantTools(t, "all", seen, toolRange(0, 50))
	segs, _ := filepath.Glob(filepath.Join(home, "audit-*.jsonl"))
	if len(segs) < 5 {
		t.Fatalf("the test meant to rotate often, but there are %d segments", len(segs))
	}
	starts := 0
	for _, r := range seen {
		if r.Event == "segment_start" {
			starts++
		}
	}
	if starts != len(segs) {
		t.Errorf("saw %d segment_start records for %d segments", starts, len(segs))
	}
	// A fresh follower counts the whole chain, segments included.
	b = start(t, newFollower(home, 5))
	if got := b.Earlier.Plus(count(b.Records)); got.Allow+got.Block != 50 {
		t.Errorf("fresh start over %d segments counted %+v, want 50 decisions", len(segs), got)
	}
	wantChainOK(t, b.Chain, len(seen))
}

// TestFollowerFollowsRotationByRename rotates by hand, as audit's step 1
// does (rename, then a new file), with records left in the old file that
// the follower has not read yet.
func TestFollowerFollowsRotationByRename(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 2)
	f := newFollower(home, 100)
	start(t, f)
	live := filepath.Join(home, audit.LogFile)
	appendN(t, home, 2, 2) // not yet polled
	if err := os.Rename(live, filepath.Join(home, "audit-20260101T000000.000000000Z-000001.jsonl")); err != nil {
		t.Fatal(err)
	}
	if b := poll(t, f); len(b.Records) != 2 || b.Chain.Broken != "" {
		t.Fatalf("between rename and new file: got %d records, chain %q; want the 2 unread ones", len(b.Records), b.Chain)
	}
	last := lastH(t, filepath.Join(home, "audit-20260101T000000.000000000Z-000001.jsonl"))
	writeLine(t, live, audit.Record{Event: "decision", Tool: "AfterRotation", Prev: last, H: "h-after"})
	b := poll(t, f)
	wantTools(t, "after rotation", b.Records, []string{"AfterRotation"})
	if b.Chain.Broken != "" {
		t.Fatalf("chain across the rename: %s", b.Chain)
	}
}

func TestFollowerHoldsTornLastLine(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 1)
	f := newFollower(home, 100)
	b := start(t, f)
	live := filepath.Join(home, audit.LogFile)
	line, err := json.Marshal(audit.Record{Event: "decision", Tool: "Torn", Prev: lastH(t, live), H: "h-torn"})
	if err != nil {
		t.Fatal(err)
	}
	half := len(line) / 2
	appendBytes(t, live, line[:half])
	if b := poll(t, f); len(b.Records) != 0 {
		t.Fatalf("half a line was shown: %+v", b.Records)
	}
	appendBytes(t, live, append(line[half:], '\n'))
	b = poll(t, f)
	wantTools(t, "completed line", b.Records, []string{"Torn"})
	wantChainOK(t, b.Chain, 3)
}

func TestFollowerReportsBrokenLink(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	appendN(t, home, 0, 2)
	f := newFollower(home, 100)
	start(t, f)
	writeLine(t, filepath.Join(home, audit.LogFile), audit.Record{Event: "decision", Tool: "Forged", Prev: audit.Genesis, H: "x"})
	b := poll(t, f)
	if want := "chain BROKEN at audit.jsonl:4 "; !strings.HasPrefix(b.Chain.String(), want) {
		t.Fatalf("forged record: chain %q, want prefix %q", b.Chain, want)
	}
	// Start verifies what is already there.
	b = start(t, newFollower(home, 100))
	if !strings.Contains(b.Chain.String(), "BROKEN at audit.jsonl:4") {
		t.Fatalf("start on a tampered log: chain %q", b.Chain)
	}
}

func TestFollowerMemoryIsBounded(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	t.Setenv(audit.FsyncEnv, "never")
	appendN(t, home, 0, 300)
	f := newFollower(home, 10)
	b := start(t, f)
	wantTools(t, "start keeps the newest", b.Records, toolRange(290, 10))
	if got := b.Earlier.Plus(count(b.Records)); got != (counts{Allow: 200, Block: 100}) {
		t.Errorf("start counts %+v, want 200 allow and 100 block", got)
	}
	appendN(t, home, 300, 30)
	b = poll(t, f)
	wantTools(t, "a burst keeps the newest", b.Records, toolRange(320, 10))
	if got := b.Earlier.Plus(count(b.Records)); got != (counts{Allow: 20, Block: 10}) {
		t.Errorf("burst counts %+v, want 20 allow and 10 block", got)
	}

	// An endless line is not buffered past maxLine, and a huge field is
	// clipped before it is kept.
	var kept []audit.Record
	chunk := strings.Repeat("x", readChunk)
	for range maxLine/readChunk + 4 {
		f.consume([]byte(chunk), audit.LogFile, func(r audit.Record) { kept = append(kept, r) })
		if cap(f.partial) > 2*maxLine {
			t.Fatalf("partial line buffer grew to %d bytes", cap(f.partial))
		}
	}
	f.consume([]byte("\n"), audit.LogFile, func(r audit.Record) { kept = append(kept, r) })
	if len(kept) != 1 || kept[0].Event != audit.EventMalformed || len(f.partial) != 0 {
		t.Fatalf("endless line: got %+v", kept)
	}
	big, _ := json.Marshal(audit.Record{Event: "decision", Target: strings.Repeat("é", maxLine/4)})
	if r := parse(big); len(r.Target) > maxField+len("…") {
		t.Errorf("a %d-byte target was kept whole", len(r.Target))
	}
}

func count(rs []audit.Record) counts {
	var c counts
	for _, r := range rs {
		c.Add(r)
	}
	return c
}

// lastH returns the h of the last line of the file at path.
func lastH(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var r audit.Record
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatal(err)
	}
	return r.H
}

func writeLine(t *testing.T, path string, r audit.Record) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	appendBytes(t, path, append(b, '\n'))
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}
