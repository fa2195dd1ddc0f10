package report

import (
	"sort"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// Summary is what a report says about a window of the log. Strings in it
// are raw record text: each renderer escapes them for its medium.
type Summary struct {
	Integrity Integrity
	Since     time.Time // zero: from the start of the log
	Until     time.Time // zero: to the end of the log
	Records   int       // entries in the window
	Malformed int       // lines that are not records
	First     string    // ts of the first record in the window
	Last      string    // ts of the last record in the window
	LastH     string    // h of the last record in the window

	Needs Needs // what the person has to look at: the report opens with it

	PolicyChanges     []audit.Record // gate_config: the policy in force was replaced
	Decisions         []Count        // decision records by effective result
	Observed          int            // policy said block, mode let it through
	TopBlocked        []Count        // blocked targets (decision and hook_error)
	Asks              []Count        // asks by how they were answered
	Interruptions     int            // asks a person was actually prompted for: the agent's own prompt (hook), or Airlock's ask channel answered or timed out
	Silenced          int            // asks answered by a person's remembered answer to the same call shape, without prompting again
	Automatic         int            // asks approved by --yes: no person saw them
	UnattendedAllowed int            // asks ask_fallback decided (nobody to ask, or no answer in time) that it allowed
	GrantCandidates   []candidate    // the gated calls seen most often that a grant could lift
	Holds             []audit.Record // mcp_admit blocks: a server's toolset held
	Taints            []audit.Record // taint records: a session saw injected content (and taint_clear: a person ended it)
	Limits            []audit.Record // decisions of the call limits: the same call repeated, a per-minute cap passed
	TopTools          []Count        // decision records by tool
	Trouble           []Count        // hook_error, audit_recover, mcp_malformed, ... by event
	Series            series         // decisions over time
}

// Count is one row of a ranked table.
type Count struct {
	Key string
	N   int
}

// topN is how many rows a ranked table shows.
const topN = 10

// Answers to an ask that carries no Asked field: the agent's own prompt
// (hook), or a record older than the field.
const (
	askApproved  = "asked a person: approved (the tool ran)"
	askNoOutcome = "asked a person: no outcome recorded (declined, interrupted or failed)"
	askAllowed   = "not asked: allowed by the mode"
	askBlocked   = "not asked: blocked (no person could answer)"
)

// legacyUnattended is the note the gate wrote in Detail, before records
// had an Asked field, when no person could answer an ask (gate.go).
const legacyUnattended = "no person could answer the ask; ask_fallback made it "

// Summarize builds the summary of entries (already filtered to the window).
func Summarize(entries []Entry, integ Integrity, f Filter) Summary {
	return SummarizeWith(entries, integ, f, nil)
}

// SummarizeWith is Summarize that leaves out of the grant candidates the
// calls granted (GrantedBy) already covers. It applies only to a window
// that runs to the end of the log: a report of a closed window stays the
// same whatever the policy becomes.
func SummarizeWith(entries []Entry, integ Integrity, f Filter, granted func(tool, target string) bool) Summary {
	s := Summary{Integrity: integ, Since: f.Since, Until: f.Until}
	decisions := map[string]int{}
	blocked := map[string]int{}
	tools := map[string]int{}
	trouble := map[string]int{}
	asks := map[string]int{}
	var gated gatedGroups
	// outcomes by session|tool|args_digest, to tell an approved ask
	ran := map[string]int{}
	for _, e := range entries {
		if e.Err == nil && e.Record.Event == "outcome" {
			ran[outcomeKey(e.Record)]++
		}
	}
	var times []time.Time
	var labels []string
	for _, e := range entries {
		s.Records++
		gated.Add(e.Record)
		if e.Err != nil {
			s.Malformed++
			trouble[audit.EventMalformed]++
			continue
		}
		r := e.Record
		if r.Event == audit.EventMalformed { // audit.Each's placeholder for a bad line
			s.Malformed++
		}
		if s.First == "" {
			s.First = r.Time
		}
		s.Last, s.LastH = r.Time, r.H
		switch r.Event {
		case "decision":
			decisions[orNone(r.Effective)]++
			tools[orNone(r.Tool)]++
			if r.Decision == "block" && r.Effective != "block" {
				s.Observed++
			}
			if r.Effective == "block" {
				blocked[orNone(r.Target)]++
			}
			if IsLimitRule(r.Rule) {
				s.Limits = append(s.Limits, r)
			}
			if r.Decision == "ask" {
				s.countAsk(r)
				asks[askAnswer(r, ran)]++
			}
			if t, ok := recordTime(r); ok {
				times = append(times, t)
				labels = append(labels, orNone(r.Effective))
			}
		case "gate_config":
			s.PolicyChanges = append(s.PolicyChanges, r)
		case "mcp_admit":
			if r.Decision == "block" {
				s.Holds = append(s.Holds, r)
			}
		case "taint", "taint_clear":
			s.Taints = append(s.Taints, r)
		case "hook_error", audit.EventRecover, "mcp_malformed", "mcp_unsolicited", audit.EventMalformed:
			trouble[r.Event]++
			if r.Event == "hook_error" && r.Effective == "block" {
				blocked[orNone(r.Target)]++
			}
		}
	}
	s.Decisions = ranked(decisions, 0)
	s.TopBlocked = ranked(blocked, topN)
	s.TopTools = ranked(tools, topN)
	s.Trouble = ranked(trouble, 0)
	s.Asks = ranked(asks, 0)
	s.Series = buildSeries(times, labels)
	toEnd := f.Until.IsZero() && f.Session == "" && f.Tool == "" && f.Decision == ""
	if !toEnd {
		granted = nil
	}
	s.GrantCandidates = grantCandidates(gated.Ranked(), toEnd, granted)
	s.Needs = needsOf(entries, integ, f)
	return s
}

// askedHow is how an ask was answered: its Asked field, or for a record
// older than the field, AskedUnattended when the gate noted that no person
// could answer it.
func askedHow(r audit.Record) string {
	if r.Asked == "" && strings.Contains(r.Detail, legacyUnattended) {
		return audit.AskedUnattended
	}
	return r.Asked
}

// countAsk adds an ask to the interruption counts. An ask left as ask
// with no Asked field went to the agent's own prompt: only the hook's
// calls are attended (the MCP proxy and the egress proxy settle every ask
// through the ask channel or ask_fallback, and say how in Asked).
func (s *Summary) countAsk(r audit.Record) {
	switch askedHow(r) {
	case audit.AskedHuman:
		s.Interruptions++
	case audit.AskedTimeout:
		s.Interruptions++
		if r.Effective == "allow" {
			s.UnattendedAllowed++
		}
	case audit.AskedRemembered:
		s.Silenced++
	case audit.AskedAutomatic:
		s.Automatic++
	case audit.AskedUnattended:
		if r.Effective == "allow" {
			s.UnattendedAllowed++
		}
	case "":
		if r.Effective == "ask" {
			s.Interruptions++
		}
	}
}

// askAnswer says what became of an ask. An ask answered through Airlock's
// ask channel says so in Asked; an ask the agent prompted for (hook) does
// not, and only an outcome record for the same call (session, tool, args
// digest) shows that a person approved it.
func askAnswer(r audit.Record, ran map[string]int) string {
	switch askedHow(r) {
	case audit.AskedHuman:
		switch r.Effective {
		case "allow":
			return "asked a person: approved"
		case "block":
			return "asked a person: denied"
		}
		return "asked a person: " + orNone(r.Effective)
	case audit.AskedRemembered:
		return "remembered answer: " + result(r.Effective)
	case audit.AskedAutomatic:
		return "automatic (--yes): " + result(r.Effective)
	case audit.AskedTimeout:
		return "no answer in time: ask_fallback " + result(r.Effective)
	case audit.AskedUnattended:
		return "nobody to ask: ask_fallback " + result(r.Effective)
	case "":
	default:
		return "answered as " + r.Asked + ": " + result(r.Effective)
	}
	switch r.Effective {
	case "allow":
		return askAllowed
	case "block":
		return askBlocked
	}
	if k := outcomeKey(r); ran[k] > 0 {
		ran[k]--
		return askApproved
	}
	return askNoOutcome
}

// result is an effective result as a past participle.
func result(effective string) string {
	switch effective {
	case "allow":
		return "allowed"
	case "block":
		return "blocked"
	}
	return orNone(effective)
}

func outcomeKey(r audit.Record) string {
	return r.Session + "\x00" + r.Tool + "\x00" + r.ArgsDigest
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ranked sorts counts by size, then key; n > 0 keeps the first n.
func ranked(m map[string]int, n int) []Count {
	out := make([]Count, 0, len(m))
	for k, v := range m {
		out = append(out, Count{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
