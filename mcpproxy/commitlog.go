package mcpproxy

import (
	"errors"
	"sync"

	"github.com/agentairlock/airlock/audit"
)

// commitLog records the proxy's decisions and events before their effect:
// Append returns once its record is written (to the kernel; fsynced as
// AIRLOCK_AUDIT_FSYNC says), so a call is forwarded or answered only after
// its decision is in the log, and a proxy killed at any moment leaves no
// served call without a record.
//
// Concurrent callers share one append (group commit): while one caller
// writes, the records of the others queue, and the first of them writes the
// whole queue with one AppendAll — one lock, one write, one checkpoint —
// as soon as the write before it ends. Nobody waits for company: a lone
// call is written at once.
type commitLog struct {
	log batchAppender // nil: records are dropped (tests of the relay alone)

	mu      sync.Mutex
	queue   []*commitWaiter // records waiting for the next append
	writing bool            // an append is under way
	closed  bool
}

// commitWaiter is one caller's record on its way to the log.
type commitWaiter struct {
	rec  audit.Record
	out  audit.Record
	err  error
	lead bool          // set before wake is closed: this caller writes the queue
	wake chan struct{} // closed when rec is written (or failed), or when lead is set
}

// errLogClosed is what an Append after the proxy's last record gets.
var errLogClosed = errors.New("audit: the proxy's log is closed (its last record is written)")

// batchAppender writes records in order under one lock; *audit.Log is one.
// An error means none was written, unless it wraps audit.ErrCheckpoint or
// audit.ErrAnchor (all were).
type batchAppender interface {
	AppendAll([]audit.Record) ([]audit.Record, error)
}

func newCommitLog(l *audit.Log) *commitLog {
	c := &commitLog{}
	if l != nil {
		c.log = l
	}
	return c
}

// Append writes r and returns it as written. An error means r is not in the
// log, except when it wraps audit.ErrCheckpoint or audit.ErrAnchor (written,
// not yet checkpointed or anchored).
func (c *commitLog) Append(r audit.Record) (audit.Record, error) {
	out, err := c.appendAll([]audit.Record{r}, false)
	if len(out) == 0 {
		return r, err
	}
	return out[0], err
}

// appendAll writes rs in order, in one append of their own or as part of a
// shared one. The records of one call stay together and in order. final
// closes the log to every later call, atomically with queueing rs.
func (c *commitLog) appendAll(rs []audit.Record, final bool) ([]audit.Record, error) {
	for _, r := range rs {
		// checked here, not by AppendAll: one bad record must not fail
		// the other callers' records it would share an append with
		if r.Event == "" || r.Source == "" {
			return nil, errors.New("audit: append: record has no event or no source")
		}
	}
	ws := make([]*commitWaiter, len(rs))
	for i, r := range rs {
		ws[i] = &commitWaiter{rec: r, wake: make(chan struct{})}
	}
	me := ws[len(ws)-1] // the last is woken when the whole call is written
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errLogClosed
	}
	c.closed = final
	c.queue = append(c.queue, ws...)
	if c.writing {
		c.mu.Unlock()
		<-me.wake
		if !me.lead {
			return results(ws)
		}
		c.mu.Lock()
	}
	// This caller writes everything queued so far, its own records
	// included, then hands the next queue to the first caller in it.
	c.writing = true
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()

	c.write(batch, me)

	c.mu.Lock()
	if len(c.queue) > 0 {
		next := c.queue[len(c.queue)-1]
		next.lead = true
		close(next.wake)
	} else {
		c.writing = false
	}
	c.mu.Unlock()
	return results(ws)
}

// write appends batch and wakes every waiter in it but me. Only the last
// waiter of each call is woken; the others' channels are never read.
func (c *commitLog) write(batch []*commitWaiter, me *commitWaiter) {
	rs := make([]audit.Record, len(batch))
	for i, w := range batch {
		rs[i] = w.rec
	}
	var (
		out []audit.Record
		err error
	)
	if c.log != nil {
		out, err = c.log.AppendAll(rs)
	} else {
		out = rs
	}
	for i, w := range batch {
		w.err = err
		if i < len(out) {
			w.out = out[i]
		} else {
			w.out = w.rec
		}
		if w != me && !w.lead {
			close(w.wake)
		}
	}
}

func results(ws []*commitWaiter) ([]audit.Record, error) {
	me := ws[len(ws)-1]
	if me.err != nil && !errors.Is(me.err, audit.ErrCheckpoint) && !errors.Is(me.err, audit.ErrAnchor) {
		return nil, me.err
	}
	out := make([]audit.Record, len(ws))
	for i, w := range ws {
		out[i] = w.out
	}
	return out, me.err
}

// closeWith writes rs as the log's last records and closes it: every
// Append after it fails with errLogClosed, so nothing follows them. A
// second call writes nothing and returns errLogClosed.
func (c *commitLog) closeWith(rs ...audit.Record) error {
	if len(rs) == 0 {
		c.close()
		return nil
	}
	_, err := c.appendAll(rs, true)
	return err
}

// close stops accepting records. Appends already queued are written by
// the caller writing now.
func (c *commitLog) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}
