package mcpproxy

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// asyncLog records decisions without putting the audit append (a lock, a
// write and a checkpoint rename) on the call's path: records queue in
// order and one goroutine writes them in batches. The queue is bounded; a
// full queue slows the relay rather than drop a record. Close drains it.
type asyncLog struct {
	log    *audit.Log
	stderr io.Writer

	mu     sync.RWMutex
	closed bool
	ch     chan audit.Record
	done   chan struct{}

	lastErr time.Time
	failed  int
}

const logQueue = 1024

// gatherWindow is how long the writer waits for more records before an
// append; a crash loses at most this much.
const gatherWindow = 2 * time.Millisecond

func newAsyncLog(l *audit.Log, stderr io.Writer) *asyncLog {
	a := &asyncLog{log: l, stderr: stderr, ch: make(chan audit.Record, logQueue), done: make(chan struct{})}
	go a.run()
	return a
}

// Append queues r. It never fails: a write failure is reported on stderr
// by the writer, and the decision it records stands.
func (a *asyncLog) Append(r audit.Record) (audit.Record, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		return r, fmt.Errorf("audit: the proxy's log is closed")
	}
	if r.Time == "" {
		r.Time = audit.FormatTime(time.Now())
	}
	a.ch <- r
	return r, nil
}

func (a *asyncLog) run() {
	defer close(a.done)
	batch := make([]audit.Record, 0, 256)
	for r := range a.ch {
		// Gather what arrives within a moment: one append (a lock, a
		// write, a checkpoint) then serves a burst of calls.
		batch = append(batch[:0], r)
		window := time.NewTimer(gatherWindow)
	fill:
		for len(batch) < cap(batch) {
			select {
			case r, ok := <-a.ch:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			case <-window.C:
				break fill
			}
		}
		window.Stop()
		if a.log == nil {
			continue
		}
		if _, err := a.log.AppendAll(batch); err != nil {
			a.failed += len(batch)
			if time.Since(a.lastErr) > time.Minute {
				a.lastErr = time.Now()
				fmt.Fprintf(a.stderr, "airlock-mcp: could not write the audit log (%d records so far); decisions are still enforced: %v\n", a.failed, err)
			}
		}
	}
}

// close stops accepting records and waits until the queue is written.
func (a *asyncLog) close() {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	<-a.done
}
