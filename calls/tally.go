package calls

import "time"

// Window is a span back from a counted call that its count is asked
// about: how many calls within it had the call's digest, and, with Tools,
// how many were of each tool.
type Window struct {
	Span  time.Duration
	Tools bool
}

// Tally is what one count saw of a key's calls, back from the call it
// counted (the newest, included). It has the method set of
// policy.Tally, which the gate hands it to.
type Tally interface {
	// Same is how many calls within window had digest.
	Same(digest string, window time.Duration) int
	// Tools is how many calls within window were of tools match
	// accepts, asking match once per distinct tool name in a run.
	Tools(window time.Duration, match func(tool string) bool) int
}

// List is the calls a Store read back, oldest first, the counted call
// last; as a Tally it counts back from that last call.
type List []Call

func (l List) since(window time.Duration) int64 {
	if len(l) == 0 {
		return 0
	}
	return l[len(l)-1].At - window.Milliseconds()
}

// Same counts the calls within window with digest.
func (l List) Same(digest string, window time.Duration) int {
	since, n := l.since(window), 0
	for i := range l {
		if c := &l[i]; c.At > since && c.Digest == digest {
			n++
		}
	}
	return n
}

// Tools counts the calls within window of the tools match accepts; a run
// of one tool's calls asks match once.
func (l List) Tools(window time.Duration, match func(tool string) bool) int {
	since, n := l.since(window), 0
	var last string
	var asked, lastOK bool
	for i := range l {
		c := &l[i]
		if c.At <= since {
			continue
		}
		if !asked || c.Tool != last {
			last, lastOK, asked = c.Tool, match(c.Tool), true
		}
		if lastOK {
			n++
		}
	}
	return n
}
