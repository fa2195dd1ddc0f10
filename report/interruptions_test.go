package report

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

func entriesOf(rs ...audit.Record) []Entry {
	out := make([]Entry, len(rs))
	for i, r := range rs {
		out[i] = Entry{File: "audit.jsonl", Line: i + 1, Record: r}
	}
	return out
}

// ask is an ask decision from source with the given Asked, effective
// result and detail.
func ask(source, asked, effective, detail string) audit.Record {
	return audit.Record{Event: "decision", Source: source, Session: "s", Tool: "mcp__fs__write", Decision: "ask",
		Effective: effective, Asked: asked, Detail: detail, Rule: "ask-writes", Target: "/srv/a", ArgsDigest: "d"}
}

const legacyNote = "no person could answer the ask; ask_fallback made it "

// counts is Interruptions, Silenced, Automatic, UnattendedAllowed.
type counts [4]int

func countsOf(s Summary) counts {
	return counts{s.Interruptions, s.Silenced, s.Automatic, s.UnattendedAllowed}
}

var askTests = []struct {
	name   string
	rec    audit.Record
	ran    bool // an outcome record for the same call follows
	answer string
	want   counts
}{
	{"agent prompt, the tool ran", ask("hook", "", "ask", ""), true, askApproved, counts{1, 0, 0, 0}},
	{"agent prompt, no outcome", ask("hook", "", "ask", ""), false, askNoOutcome, counts{1, 0, 0, 0}},
	{"ask channel approved", ask("mcp", audit.AskedHuman, "allow", "answered by socket"), false, "asked a person: approved", counts{1, 0, 0, 0}},
	{"ask channel denied", ask("run", audit.AskedHuman, "block", "answered by socket"), false, "asked a person: denied", counts{1, 0, 0, 0}},
	{"remembered allow", ask("mcp", audit.AskedRemembered, "allow", ""), false, "remembered answer: allowed", counts{0, 1, 0, 0}},
	{"remembered block", ask("cli", audit.AskedRemembered, "block", ""), false, "remembered answer: blocked", counts{0, 1, 0, 0}},
	{"--yes", ask("mcp", audit.AskedAutomatic, "allow", ""), false, "automatic (--yes): allowed", counts{0, 0, 1, 0}},
	{"timeout, fallback allowed", ask("mcp", audit.AskedTimeout, "allow", ""), false, "no answer in time: ask_fallback allowed", counts{1, 0, 0, 1}},
	{"timeout, fallback blocked", ask("mcp", audit.AskedTimeout, "block", ""), false, "no answer in time: ask_fallback blocked", counts{1, 0, 0, 0}},
	{"unattended, fallback allowed", ask("run", audit.AskedUnattended, "allow", "no ask channel"), false, "nobody to ask: ask_fallback allowed", counts{0, 0, 0, 1}},
	{"unattended, fallback blocked", ask("mcp", audit.AskedUnattended, "block", ""), false, "nobody to ask: ask_fallback blocked", counts{0, 0, 0, 0}},
	{"legacy note, allowed", ask("mcp", "", "allow", legacyNote+"allow"), false, "nobody to ask: ask_fallback allowed", counts{0, 0, 0, 1}},
	{"legacy note after another note, blocked", ask("mcp", "", "block", "report-only contract: x; "+legacyNote+"block"), false, "nobody to ask: ask_fallback blocked", counts{0, 0, 0, 0}},
	{"mode allowed, nobody asked", ask("hook", "", "allow", ""), false, askAllowed, counts{0, 0, 0, 0}},
	{"blocked without asking", ask("hook", "", "block", ""), false, askBlocked, counts{0, 0, 0, 0}},
}

func TestSummaryTellsHowEachAskWasAnswered(t *testing.T) {
	var all []audit.Record
	var total counts
	for _, tt := range askTests {
		rs := []audit.Record{tt.rec}
		if tt.ran {
			rs = append(rs, audit.Record{Event: "outcome", Source: "hook", Session: "s", Tool: tt.rec.Tool, Effective: "ran", ArgsDigest: "d"})
		}
		all = append(all, rs...)
		for i := range total {
			total[i] += tt.want[i]
		}
		s := Summarize(entriesOf(rs...), Integrity{Status: audit.Intact}, Filter{})
		if len(s.Asks) != 1 || s.Asks[0].Key != tt.answer {
			t.Errorf("%s: asks %v, want one %q", tt.name, s.Asks, tt.answer)
		}
		if got := countsOf(s); got != tt.want {
			t.Errorf("%s: interruptions, silenced, automatic, unattended allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
	// the counts of a whole log are the sum of its asks
	s := Summarize(entriesOf(all...), Integrity{Status: audit.Intact}, Filter{})
	if got := countsOf(s); got != total {
		t.Errorf("whole log: %v, want %v", got, total)
	}
}

func TestAskedOutsideAnAskIsNotAnInterruption(t *testing.T) {
	r := ask("mcp", audit.AskedHuman, "allow", "")
	r.Decision = "allow"
	if s := Summarize(entriesOf(r), Integrity{}, Filter{}); countsOf(s) != (counts{}) || len(s.Asks) != 0 {
		t.Errorf("a decision that was not an ask counted: %v, asks %v", countsOf(s), s.Asks)
	}
}

func gatedRec(tool, rule, target, decision string) audit.Record {
	return audit.Record{Event: "decision", Source: "hook", Tool: tool, Rule: rule, Target: target, Decision: decision, Effective: decision}
}

func repeat(r audit.Record, n int) []audit.Record {
	out := make([]audit.Record, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func TestGrantCandidates(t *testing.T) {
	write := gatedRec("Write", "write-elsewhere", "/srv/data/x.txt", "ask")
	ssh := gatedRec("Read", "secrets.ssh", "/home/dev/.ssh/id_rsa", "block")
	allowed := gatedRec("Read", "", "/w/main.go", "allow")
	until := Filter{Until: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name string
		log  []audit.Record
		f    Filter
		want []string // "count tool target grant"
	}{
		{"nothing gated", []audit.Record{allowed}, Filter{}, nil},
		{"a forbid is never a candidate, however often",
			append(repeat(ssh, 9), write), Filter{},
			[]string{"1 Write /srv/data/x.txt airlock allow last"}},
		{"the latest is a forbid: allow last would refuse, so it is not offered",
			append([]audit.Record{write}, ssh), Filter{},
			[]string{"1 Write /srv/data/x.txt airlock allow Write --match /srv/data/x.txt"}},
		{"a window that stops before the end: allow last may act on a later call",
			[]audit.Record{write}, until,
			[]string{"1 Write /srv/data/x.txt airlock allow Write --match /srv/data/x.txt"}},
		{"most gated first, allow last for the latest",
			append(append(repeat(gatedRec("Bash", "ask-net", "curl example.com | sh", "ask"), 3), write), allowed), Filter{},
			[]string{"3 Bash curl example.com | sh airlock allow Bash --match 'curl example.com | sh'", "1 Write /srv/data/x.txt airlock allow last"}},
		{"a target with glob characters is never a match: GLOB for a person to write",
			[]audit.Record{gatedRec("Write", "write-elsewhere", "/srv/*", "block"), write}, Filter{},
			[]string{"1 Write /srv/data/x.txt airlock allow last", "1 Write /srv/* airlock allow Write --match GLOB"}},
		{"no target", []audit.Record{gatedRec("mcp__x__y", "default", "", "ask")}, Filter{},
			[]string{"1 mcp__x__y  airlock allow mcp__x__y --match GLOB"}},
		{"quotes in a target stay one shell word",
			[]audit.Record{gatedRec("Write", "w", "/tmp/it's $(id)", "ask"), allowed}, until,
			[]string{`1 Write /tmp/it's $(id) airlock allow Write --match '/tmp/it'"'"'s $(id)'`}},
		{"a target shown escaped is not the target: GLOB",
			[]audit.Record{gatedRec("Write", "w", "/tmp/a\nb\u202e", "ask")}, until,
			[]string{"1 Write /tmp/a\nb\u202e airlock allow Write --match GLOB"}},
		{"at most five", func() []audit.Record {
			var rs []audit.Record
			for i := range 7 {
				rs = append(rs, repeat(gatedRec("Write", "w", fmt.Sprintf("/t/%d", i), "ask"), 10-i)...)
			}
			return rs
		}(), Filter{}, []string{"10 Write /t/0 airlock allow Write --match /t/0", "9 Write /t/1 airlock allow Write --match /t/1",
			"8 Write /t/2 airlock allow Write --match /t/2", "7 Write /t/3 airlock allow Write --match /t/3", "6 Write /t/4 airlock allow Write --match /t/4"}},
	}
	for _, tt := range tests {
		s := Summarize(entriesOf(tt.log...), Integrity{Status: audit.Intact}, tt.f)
		var got []string
		for _, c := range s.GrantCandidates {
			got = append(got, fmt.Sprintf("%d %s %s %s", c.Count, c.Tool, c.Target, c.Grant))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestReadGatedRanksByCountThenRecency(t *testing.T) {
	a := gatedRec("Write", "w", "/a", "ask")
	b := gatedRec("Write", "w", "/b", "block")
	c := gatedRec("Write", "w", "/c", "ask")
	src := sliceSource(entriesOf(a, b, c, gatedRec("Read", "", "/ok", "allow"), b, a))
	groups, err := ReadGated(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s %d@%d", g.Target, g.Count, g.Last))
	}
	if want := "/a 2@6 /b 2@5 /c 1@3"; strings.Join(got, " ") != want {
		t.Errorf("groups %q, want %q", got, want)
	}
	if l, ok := Latest(groups); !ok || l.Target != "/a" {
		t.Errorf("latest %+v, want /a", l)
	}
	if _, ok := Latest(nil); ok {
		t.Error("Latest of nothing reported a group")
	}
}

type sliceSource []Entry

func (s sliceSource) Each(fn func(Entry) error) error {
	for _, e := range s {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func TestInterruptionSectionInEveryFormat(t *testing.T) {
	var rs []audit.Record
	for _, tt := range askTests {
		rs = append(rs, tt.rec)
	}
	rs = append(rs, gatedRec("Write", "w", "/srv/<b>x</b>", "ask"))
	s := Summarize(entriesOf(rs...), Integrity{Status: audit.Intact}, Filter{})
	for name, render := range map[string]func(*bytes.Buffer) error{
		"text":     func(w *bytes.Buffer) error { return s.Text(w) },
		"markdown": func(w *bytes.Buffer) error { return s.Markdown(w) },
		"html":     func(w *bytes.Buffer) error { return s.HTML(w) },
	} {
		var w bytes.Buffer
		if err := render(&w); err != nil {
			t.Fatal(err)
		}
		out := w.String()
		for _, want := range []string{"Interruptions", "repeats silenced by a remembered answer", "Grant candidates",
			"ask(s) ran without a person", "nobody to ask"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q", name, want)
			}
		}
		if name != "text" && strings.Contains(out, "<b>") {
			t.Errorf("%s: record text became markup: %s", name, out)
		}
	}
}

func TestShellQuoteIsOneWordToTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"/srv/a.txt", "it's", "$(id)", "`id`", "a b; rm -rf ~", `"\'"`, "~/x", "''", "mcp__fs__write", ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shellQuote(%q) = %s: the shell read %q (%v)", s, shellQuote(s), out, err)
		}
	}
}
