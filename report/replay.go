package report

import (
	"path/filepath"
	"sort"
	"time"

	"github.com/agentairlock/airlock/policy"
)

// ReplayDecide decides one rebuilt call under the candidate policy: tool,
// its arguments, and the directory it is decided in.
type ReplayDecide func(tool string, input []byte, cwd string) policy.Decision

// Change is one group of recorded decisions a candidate policy decides
// differently: the same tool, target and pair of decisions.
type Change struct {
	Tool, Target       string
	Was, Now           policy.Action
	WasRule, NowRule   string
	Count              int
	First, Last        string // the record times of the group's first and last decision
	NowReason, Decided string // the candidate's reason; the directory it was decided in
	// InCwd: the record keeps no directory of its own (a shell command):
	// it was decided in the directory replay ran in
	InCwd bool
}

// NotReplayable counts recorded decisions no call could be rebuilt for,
// by tool and reason.
type NotReplayable struct {
	Tool, Why string
	Count     int
}

// Replay is what re-deciding the log under a candidate policy came to.
type Replay struct {
	Decisions     int // decision records in the window
	Unchanged     int
	NewlyBlocked  []Change
	NewlyAsked    []Change
	NewlyAllowed  []Change
	NotReplayable []NotReplayable
	Unreadable    int // lines that are not records, or records whose decision does not parse
}

// NotReplayableCount is the sum of NotReplayable.
func (r *Replay) NotReplayableCount() int {
	n := 0
	for _, x := range r.NotReplayable {
		n += x.Count
	}
	return n
}

// ReplayLog re-decides every decision record of src at or after since
// (zero: the whole log) whose call can be rebuilt (policy.ReplayInput),
// and groups what the candidate decides differently from what was
// recorded. A call's own directory is not recorded: a read is decided in
// its file's directory, a shell command in cwd. Nothing is recorded.
func ReplayLog(src Source, since time.Time, cwd string, decide ReplayDecide) (*Replay, error) {
	out := &Replay{}
	changes := map[[6]string]*Change{}
	skipped := map[[2]string]*NotReplayable{}
	err := src.Each(func(e Entry) error {
		if e.Err != nil {
			out.Unreadable++
			return nil
		}
		r := e.Record
		if r.Event != "decision" {
			return nil
		}
		if !since.IsZero() {
			if t, ok := recordTime(r); ok && t.Before(since) {
				return nil
			}
		}
		out.Decisions++
		was, err := policy.ParseAction(r.Decision)
		if err != nil {
			out.Unreadable++
			return nil
		}
		input, why := policy.ReplayInput(r.Tool, r.Target, r.Detail)
		if why != "" {
			k := [2]string{r.Tool, why}
			if skipped[k] == nil {
				skipped[k] = &NotReplayable{Tool: r.Tool, Why: why}
			}
			skipped[k].Count++
			return nil
		}
		dir, inCwd := cwd, true
		if filepath.IsAbs(r.Target) {
			dir, inCwd = filepath.Dir(r.Target), false
		}
		d := decide(r.Tool, input, dir)
		if d.Action == was {
			out.Unchanged++
			return nil
		}
		k := [6]string{r.Tool, r.Target, was.String(), d.Action.String(), r.Rule, d.Rule}
		c := changes[k]
		if c == nil {
			c = &Change{Tool: r.Tool, Target: r.Target, Was: was, Now: d.Action, WasRule: r.Rule, NowRule: d.Rule,
				First: r.Time, NowReason: d.Reason, Decided: dir, InCwd: inCwd}
			changes[k] = c
		}
		c.Count++
		c.Last = r.Time
		return nil
	})
	for _, c := range changes {
		switch {
		case c.Now == policy.Block:
			out.NewlyBlocked = append(out.NewlyBlocked, *c)
		case c.Now == policy.Ask:
			out.NewlyAsked = append(out.NewlyAsked, *c)
		default:
			out.NewlyAllowed = append(out.NewlyAllowed, *c)
		}
	}
	for _, l := range [][]Change{out.NewlyBlocked, out.NewlyAsked, out.NewlyAllowed} {
		sort.Slice(l, func(i, j int) bool {
			if l[i].Count != l[j].Count {
				return l[i].Count > l[j].Count
			}
			return l[i].Last > l[j].Last
		})
	}
	for _, s := range skipped {
		out.NotReplayable = append(out.NotReplayable, *s)
	}
	sort.Slice(out.NotReplayable, func(i, j int) bool {
		a, b := out.NotReplayable[i], out.NotReplayable[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Tool+a.Why < b.Tool+b.Why
	})
	return out, err
}
