package monitor

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentairlock/airlock/audit"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// press sends keys to the board and returns the last command.
func press(b *Board, keys ...tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = b.Update(k)
	}
	return cmd
}

// listedTools are the TOOL cells of the rows the board shows.
func listedTools(b *Board) []string {
	var out []string
	lines := strings.Split(b.View(), "\n")
	cols := columnsFor(b.width)
	off := cols[0] + cols[1] + cols[2] + 3
	for _, l := range lines[4 : len(lines)-1] {
		if l == "" {
			continue
		}
		out = append(out, strings.Fields(string([]rune(l)[off:]))[0])
	}
	return out
}

func rec(tool, event, decision, effective, asked string) audit.Record {
	return audit.Record{Time: "2026-11-29T10:43:49.123Z", Event: event, Source: "hook", Tool: tool,
		Decision: decision, Effective: effective, Asked: asked, Rule: "rule-" + tool, Target: "/t/" + tool, Reason: "because"}
}

// mixed is one record of every kind the board counts, and one it does not.
var mixed = []audit.Record{
	rec("Allowed", "decision", "allow", "allow", ""),
	rec("Blocked", "decision", "block", "block", ""),
	rec("Prompted", "decision", "ask", "ask", ""),
	rec("HumanYes", "decision", "ask", "allow", audit.AskedHuman),
	rec("TimedOut", "decision", "ask", "block", audit.AskedTimeout),
	{Time: "2026-11-29T10:43:50.000Z", Event: "mcp_admit", Source: "mcp", Tool: "Held", Decision: "block", Reason: "toolset changed"},
	rec("Config", "gate_config", "change", "", ""),
}

func TestBoardCountsAndFilters(t *testing.T) {
	b := NewBoard("/h", nil, Batch{Earlier: Counts{Allow: 5, Block: 1}, Chain: Chain{Records: 10}}, 100, 0)
	b.Update(Batch{Records: mixed, Chain: Chain{Records: 17}})
	if want := (Counts{Allow: 6, Ask: 3, Block: 2, Hold: 1}); b.Counts() != want {
		t.Fatalf("counts %+v, want %+v", b.Counts(), want)
	}
	v := b.View()
	for _, want := range []string{"allow 6   ask 3   block 2   hold 1", "chain ok (17 records)", "showing all", "ask→allow", "(asked: timeout)"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	tests := []struct {
		keys []tea.KeyMsg
		want string
	}{
		{nil, "Allowed Blocked Prompted HumanYes TimedOut Held Config"},
		{[]tea.KeyMsg{runes("b")}, "Blocked TimedOut Held"},
		{[]tea.KeyMsg{runes("k")}, "Prompted HumanYes TimedOut"},
		{[]tea.KeyMsg{runes("a")}, "Allowed Blocked Prompted HumanYes TimedOut Held Config"},
		// text filter on tool, target or rule, case-insensitive
		{[]tea.KeyMsg{runes("/"), runes("TIMED"), {Type: tea.KeyEnter}}, "TimedOut"},
		{[]tea.KeyMsg{runes("/"), {Type: tea.KeyBackspace}, {Type: tea.KeyBackspace}, {Type: tea.KeyBackspace}, {Type: tea.KeyEnter}}, "TimedOut"},
		{[]tea.KeyMsg{runes("/"), {Type: tea.KeyBackspace}, {Type: tea.KeyBackspace}, runes("O"), {Type: tea.KeyEnter}}, "Allowed Blocked Prompted TimedOut Config"},
		// blocks and a text filter combine
		{[]tea.KeyMsg{runes("b")}, "Blocked TimedOut"},
		{[]tea.KeyMsg{{Type: tea.KeyEsc}}, "Blocked TimedOut Held"},
		{[]tea.KeyMsg{runes("/"), runes("/t/held"), {Type: tea.KeyEsc}}, "Blocked TimedOut Held"}, // esc cancels editing
		{[]tea.KeyMsg{runes("/"), runes("nothing"), {Type: tea.KeyEnter}}, ""},
	}
	for i, tt := range tests {
		press(b, tt.keys...)
		if got := strings.Join(listedTools(b), " "); got != tt.want {
			t.Errorf("step %d: listed %q, want %q\n%s", i, got, tt.want, b.View())
		}
	}
	if !strings.Contains(b.View(), "no records match") {
		t.Errorf("an empty filter result says nothing:\n%s", b.View())
	}
}

func TestBoardEscapesHostileStrings(t *testing.T) {
	hostile := audit.Record{Time: "2026-11-29T10:43:49.123Z\x1b[2J", Event: "decision", Source: "hook\u202e",
		Tool: "B\x1b[31m\u202e", Decision: "block", Effective: "block",
		Target: "/tmp/\x1b]0;pwned\x07\u2066x\r\nFAKE", Rule: "r\u200b1", Reason: "why\x9b2J"}
	b := NewBoard("/h\x1b[H", nil, Batch{Records: []audit.Record{hostile}}, 10, 0)
	press(b, runes("/"), runes("\x1b[0m"))
	b.Update(tea.WindowSizeMsg{Width: 200, Height: 10})
	v := b.View()
	for _, bad := range []string{"\x1b", "\u202e", "\x07", "\u2066", "\r", "\u200b", "\x9b"} {
		if strings.Contains(v, bad) {
			t.Errorf("view contains raw %q:\n%q", bad, v)
		}
	}
	for _, want := range []string{`B\x1b[31m\u202e`, `/tmp/\x1b]0;pwned\x07\u2066x\r\nFAKE`, `r\u200b1`, `/h\x1b[H`, `\x1b[0m_`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks the escaped %q:\n%s", want, v)
		}
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "FAKE") {
			t.Errorf("a record forged a line of its own: %q", l)
		}
	}
}

func TestBoardScrollsAndStaysPutWhileScrolled(t *testing.T) {
	var rs []audit.Record
	for i := range 100 {
		rs = append(rs, rec(fmt.Sprintf("T%d", i), "decision", "allow", "allow", ""))
	}
	b := NewBoard("/h", nil, Batch{Records: rs}, 1000, 0)
	b.Update(tea.WindowSizeMsg{Width: 100, Height: 15}) // 10 rows
	first := func() string { return listedTools(b)[0] }
	last := func() string { l := listedTools(b); return l[len(l)-1] }
	if first() != "T90" || last() != "T99" {
		t.Fatalf("following: rows %s..%s, want T90..T99", first(), last())
	}
	press(b, tea.KeyMsg{Type: tea.KeyUp})
	if last() != "T98" {
		t.Fatalf("after up: last row %s, want T98", last())
	}
	press(b, tea.KeyMsg{Type: tea.KeyPgUp})
	if last() != "T89" {
		t.Fatalf("after pgup: last row %s, want T89", last())
	}
	// new records do not move a scrolled view
	b.Update(Batch{Records: []audit.Record{rec("New", "decision", "allow", "allow", "")}})
	if last() != "T89" || !strings.Contains(b.View(), "11 newer below") {
		t.Fatalf("scrolled view moved: last row %s\n%s", last(), b.View())
	}
	press(b, tea.KeyMsg{Type: tea.KeyPgDown}, tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyDown})
	if last() != "New" {
		t.Fatalf("scrolled back down: last row %s, want New", last())
	}
	press(b, tea.KeyMsg{Type: tea.KeyHome})
	if first() != "T0" {
		t.Fatalf("home: first row %s, want T0", first())
	}
	press(b, tea.KeyMsg{Type: tea.KeyEnd})
	if last() != "New" {
		t.Fatalf("end: last row %s, want New", last())
	}
	if n := strings.Count(b.View(), "\n") + 1; n != 15 {
		t.Errorf("view has %d lines on a 15-line screen", n)
	}
}

func TestBoardRingIsBounded(t *testing.T) {
	b := NewBoard("/h", nil, Batch{}, 3, 0)
	for i := range 10 {
		b.Update(Batch{Records: []audit.Record{rec(fmt.Sprintf("T%d", i), "decision", "block", "block", "")}})
	}
	if got := strings.Join(listedTools(b), " "); got != "T7 T8 T9" || len(b.ring) != 3 {
		t.Fatalf("ring of 3 lists %q (%d held)", got, len(b.ring))
	}
	if b.Counts().Block != 10 {
		t.Fatalf("counts forgot records that left the ring: %+v", b.Counts())
	}
}

type fakeSource struct {
	batches []Batch
	err     error
}

func (f *fakeSource) Poll() (Batch, error) {
	if len(f.batches) == 0 {
		return Batch{}, f.err
	}
	b := f.batches[0]
	f.batches = f.batches[1:]
	return b, nil
}

func TestBoardPollsItsSourceAndQuits(t *testing.T) {
	src := &fakeSource{batches: []Batch{{Records: mixed[:2], Chain: Chain{Records: 2}}}, err: errors.New("disk on fire")}
	b := NewBoard("/h", src, Batch{}, 10, time.Millisecond)
	if b.Init() == nil {
		t.Fatal("Init does not start polling")
	}
	_, cmd := b.Update(tickMsg{})
	_, next := b.Update(cmd())
	if next == nil || b.Counts() != (Counts{Allow: 1, Block: 1}) {
		t.Fatalf("after one poll: counts %+v, next tick %v", b.Counts(), next != nil)
	}
	_, cmd = b.Update(tickMsg{})
	b.Update(cmd())
	if v := b.View(); !strings.Contains(v, "error: disk on fire") || !strings.Contains(v, "chain ok (2 records)") {
		t.Fatalf("a poll error is not shown:\n%s", v)
	}
	for _, k := range []tea.KeyMsg{runes("q"), {Type: tea.KeyCtrlC}} {
		cmd := press(b, k)
		if cmd == nil {
			t.Fatalf("%s does not quit", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s does not quit", k)
		}
	}
	// ctrl-c quits while typing a filter; q is typed
	press(b, runes("/"))
	if cmd := press(b, runes("q")); cmd != nil {
		t.Fatal("q quits while typing a filter")
	}
	if cmd := press(b, tea.KeyMsg{Type: tea.KeyCtrlC}); cmd == nil {
		t.Fatal("ctrl-c does not quit while typing a filter")
	}
}

func TestBoardShowsBrokenChain(t *testing.T) {
	b := NewBoard("/h", nil, Batch{Chain: Chain{Records: 4, Broken: "audit.jsonl:4 (prev is not the h of the record before it)"}}, 10, 0)
	if v := b.View(); !strings.Contains(v, "chain BROKEN at audit.jsonl:4") {
		t.Fatalf("broken chain not shown:\n%s", v)
	}
}
