package calls

import (
	"sync"
	"time"
)

// Memory counts in memory, for a long-lived process (the MCP proxy). Per
// key it keeps a ring of the calls still inside some window it was asked
// about, and per window the counts of each digest and (when asked) each
// tool within it, moved as calls enter and leave: a count costs O(1)
// amortised (O(distinct tools) when a window counts tools) and no copy of
// the history, however many calls the window holds.
type Memory struct {
	mu   sync.Mutex
	keys map[string]*history
}

// history is one key's calls: ring[seq%len(ring)] holds the call numbered
// seq, for first <= seq < next.
type history struct {
	ring        []Call
	first, next int64
	spans       []*span
}

// span is one window's counts: the calls numbered from through the
// history's newest.
type span struct {
	ms    int64
	tools bool
	from  int64
	same  counts
	byTol counts // nil unless tools
}

// counts is a multiset of names that lets its table go after a burst.
type counts struct {
	m    map[string]int
	peak int
}

func (c *counts) add(k string) {
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[k]++
	c.peak = max(c.peak, len(c.m))
}

func (c *counts) remove(k string) {
	if n := c.m[k]; n > 1 {
		c.m[k] = n - 1
		return
	}
	delete(c.m, k)
	// a map never shrinks: after a burst of distinct calls, copy the
	// few left into a small one
	if c.peak >= 256 && len(c.m)*4 < c.peak {
		m := make(map[string]int, len(c.m))
		for k, n := range c.m {
			m[k] = n
		}
		c.m, c.peak = m, len(m)
	}
}

// Tally records c under key and returns what each of windows holds,
// back from c; it never fails. A key counted with a window it was not
// counted with before gets that window's counts from the calls it still
// keeps (a longer window than any before starts with those).
func (m *Memory) Tally(key string, c Call, windows []Window) (Tally, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string]*history{}
	}
	h := m.keys[key]
	if h == nil {
		h = &history{}
		m.keys[key] = h
	}
	t := &memTally{digest: c.Digest, spans: make([]spanCount, len(windows))}
	for i, w := range windows {
		t.spans[i].sp = h.window(w)
	}
	h.push(c)
	for i := range t.spans {
		sc := &t.spans[i]
		sp := sc.sp
		sc.ms, sc.same, sc.sp = sp.ms, sp.same.m[c.Digest], nil
		if sp.tools && windows[i].Tools {
			sc.tools = make([]ToolCount, 0, len(sp.byTol.m))
			for tool, n := range sp.byTol.m {
				sc.tools = append(sc.tools, ToolCount{tool, n})
			}
		}
	}
	return t, nil
}

// window returns the history's span for w, made from the calls it keeps
// when new.
func (h *history) window(w Window) *span {
	ms := w.Span.Milliseconds()
	for _, sp := range h.spans {
		if sp.ms == ms {
			if w.Tools && !sp.tools {
				sp.tools = true
				for s := sp.from; s < h.next; s++ {
					sp.byTol.add(h.at(s).Tool)
				}
			}
			return sp
		}
	}
	sp := &span{ms: ms, tools: w.Tools, from: h.first}
	for s := h.first; s < h.next; s++ {
		sp.enter(h.at(s))
	}
	h.spans = append(h.spans, sp)
	return sp
}

func (h *history) at(seq int64) *Call { return &h.ring[seq%int64(len(h.ring))] }

func (sp *span) enter(c *Call) {
	sp.same.add(c.Digest)
	if sp.tools {
		sp.byTol.add(c.Tool)
	}
}

func (sp *span) leave(c *Call) {
	sp.same.remove(c.Digest)
	if sp.tools {
		sp.byTol.remove(c.Tool)
	}
	sp.from++
}

// push adds c as the newest call, lets out of each span the calls it no
// longer holds (as the list's counter did: from the oldest, while they
// are at or before the span's start; a clock set back keeps newer ones),
// and out of the ring those no span holds. A key keeps at most MaxKept
// calls: past that the oldest leaves every span, so a count saturates.
func (h *history) push(c Call) {
	if h.next-h.first == int64(len(h.ring)) {
		if len(h.ring) == MaxKept {
			old := h.at(h.first)
			for _, sp := range h.spans {
				if sp.from == h.first {
					sp.leave(old)
				}
			}
			h.first++
		} else {
			h.resize(min(MaxKept, max(16, 2*len(h.ring))))
		}
	}
	*h.at(h.next) = c
	h.next++
	for _, sp := range h.spans {
		sp.enter(&c)
		since := c.At - sp.ms
		for sp.from < h.next {
			old := h.at(sp.from)
			if old.At > since {
				break
			}
			sp.leave(old)
		}
	}
	first := h.next
	for _, sp := range h.spans {
		first = min(first, sp.from)
	}
	for ; h.first < first; h.first++ {
		*h.at(h.first) = Call{} // let its strings go
	}
	if n := int(h.next - h.first); len(h.ring) > 64 && n*4 < len(h.ring) {
		h.resize(max(16, 2*n))
	}
}

// resize moves the ring's calls into one of size n.
func (h *history) resize(n int) {
	ring := make([]Call, n)
	for s := h.first; s < h.next; s++ {
		ring[s%int64(n)] = *h.at(s)
	}
	h.ring = ring
}

// ToolCount is how many calls of one tool a window held.
type ToolCount struct {
	Tool string
	N    int
}

// memTally is what one Memory count saw: per window, the calls with the
// counted call's digest and, when asked, per tool.
type memTally struct {
	digest string
	spans  []spanCount
}

type spanCount struct {
	ms    int64
	same  int
	tools []ToolCount
	sp    *span // while Tally fills it
}

// pick is the count of window: the window itself, else the narrowest
// wider one (a count it was not asked for errs towards more calls, so a
// limit errs towards refusing), else the widest.
func (t *memTally) pick(window time.Duration) *spanCount {
	ms := window.Milliseconds()
	var wider, widest *spanCount
	for i := range t.spans {
		sc := &t.spans[i]
		if sc.ms == ms {
			return sc
		}
		if sc.ms > ms && (wider == nil || sc.ms < wider.ms) {
			wider = sc
		}
		if widest == nil || sc.ms > widest.ms {
			widest = sc
		}
	}
	if wider != nil {
		return wider
	}
	return widest
}

// Same is how many calls within window had digest; a Memory count keeps
// the counted call's digest's count alone (the limits ask no other).
func (t *memTally) Same(digest string, window time.Duration) int {
	sc := t.pick(window)
	if sc == nil || digest != t.digest {
		return 0
	}
	return sc.same
}

// Tools is how many calls within window were of tools match accepts (0
// when window was not counted by tool).
func (t *memTally) Tools(window time.Duration, match func(tool string) bool) int {
	sc := t.pick(window)
	if sc == nil {
		return 0
	}
	n := 0
	for _, tc := range sc.tools {
		if match(tc.Tool) {
			n += tc.N
		}
	}
	return n
}
