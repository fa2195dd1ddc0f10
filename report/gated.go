package report

import (
	"sort"

	"github.com/agentairlock/airlock/audit"
)

// Gated is one group of decisions the gate stopped or asked about: the
// same tool, rule and target. It is what `airlock allow recent` lists and
// what the report's grant candidates are drawn from.
type Gated struct {
	Tool, Rule, Target string
	Count              int // gated decisions in the group
	Last               int // position in the stream of the group's latest decision (1-based)
	Refused            int // decisions a person refused through the ask channel (asked human or remembered, then blocked)
}

// isGated reports whether r is a decision the gate blocked or asked about,
// by the policy's verdict or by what happened.
func isGated(r audit.Record) bool {
	if r.Event != "decision" {
		return false
	}
	return r.Decision == "block" || r.Decision == "ask" || r.Effective == "block" || r.Effective == "ask"
}

// gatedGroups groups gated decisions as they are read. The zero value is
// ready to use.
type gatedGroups struct {
	groups map[[3]string]*Gated
	n      int
}

// Add counts one entry of the stream. Every entry must be added, gated or
// not, so that Last orders groups by when they were last gated.
func (g *gatedGroups) Add(r audit.Record) {
	g.n++
	if !isGated(r) {
		return
	}
	if g.groups == nil {
		g.groups = map[[3]string]*Gated{}
	}
	k := [3]string{r.Tool, r.Rule, r.Target}
	grp := g.groups[k]
	if grp == nil {
		grp = &Gated{Tool: r.Tool, Rule: r.Rule, Target: r.Target}
		g.groups[k] = grp
	}
	grp.Count++
	grp.Last = g.n
	if r.Effective == "block" && (r.Asked == audit.AskedHuman || r.Asked == audit.AskedRemembered) {
		grp.Refused++
	}
}

// Ranked returns the groups, most often gated first; among equals, the
// most recently gated first. Last is unique per group, so the order is
// total.
func (g *gatedGroups) Ranked() []Gated {
	out := make([]Gated, 0, len(g.groups))
	for _, grp := range g.groups {
		out = append(out, *grp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Last > out[j].Last
	})
	return out
}

// ReadGated streams src (never loading it whole) and returns its gated
// decisions grouped and ranked. On an error it returns what it read so far.
func ReadGated(src Source) ([]Gated, error) {
	var g gatedGroups
	err := src.Each(func(e Entry) error {
		g.Add(e.Record)
		return nil
	})
	return g.Ranked(), err
}

// Latest is the group gated most recently, and false when there is none.
func Latest(groups []Gated) (Gated, bool) {
	var latest Gated
	for _, g := range groups {
		if g.Last > latest.Last {
			latest = g
		}
	}
	return latest, latest.Last > 0
}
