package report

import (
	"time"
)

// series is decisions over time: one bucket per step, each counting
// decisions by effective result.
type series struct {
	Step    time.Duration
	Unit    string   // "hour", "6 hours", "day", "week", "30 days"
	Keys    []string // effective results present, in stacking order
	Buckets []bucket
}

// bucket is one bar of the series.
type bucket struct {
	Start  time.Time
	Counts map[string]int
	Total  int
}

// maxBuckets bounds the number of bars a chart draws.
const maxBuckets = 60

var steps = []struct {
	d    time.Duration
	unit string
}{
	{time.Hour, "hour"},
	{6 * time.Hour, "6 hours"},
	{24 * time.Hour, "day"},
	{7 * 24 * time.Hour, "week"},
	{30 * 24 * time.Hour, "30 days"},
}

// stackOrder puts the results a reader looks for first at the bottom.
var stackOrder = []string{"block", "ask", "allow"}

func buildSeries(times []time.Time, labels []string) series {
	if len(times) == 0 {
		return series{}
	}
	lo, hi := times[0], times[0]
	for _, t := range times {
		if t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	st := steps[len(steps)-1]
	for _, c := range steps {
		if int(hi.Sub(lo.Truncate(c.d))/c.d)+1 <= maxBuckets {
			st = c
			break
		}
	}
	start := lo.UTC().Truncate(st.d)
	n := int(hi.Sub(start)/st.d) + 1
	if n > maxBuckets { // a span beyond 30 days × maxBuckets: keep the latest
		start = hi.UTC().Truncate(st.d).Add(-time.Duration(maxBuckets-1) * st.d)
		n = maxBuckets
	}
	s := series{Step: st.d, Unit: st.unit, Buckets: make([]bucket, n)}
	for i := range s.Buckets {
		s.Buckets[i] = bucket{Start: start.Add(time.Duration(i) * st.d), Counts: map[string]int{}}
	}
	seen := map[string]bool{}
	for i, t := range times {
		k := int(t.Sub(start) / st.d)
		if t.Before(start) || k >= n {
			continue
		}
		s.Buckets[k].Counts[labels[i]]++
		s.Buckets[k].Total++
		seen[labels[i]] = true
	}
	for _, k := range stackOrder {
		if seen[k] {
			s.Keys = append(s.Keys, k)
			delete(seen, k)
		}
	}
	for _, c := range ranked(countKeys(seen), 0) {
		s.Keys = append(s.Keys, c.Key)
	}
	return s
}

func countKeys(m map[string]bool) map[string]int {
	out := map[string]int{}
	for k := range m {
		out[k] = 1
	}
	return out
}

// Max is the largest bucket total.
func (s series) Max() int {
	m := 0
	for _, b := range s.Buckets {
		m = max(m, b.Total)
	}
	return m
}
