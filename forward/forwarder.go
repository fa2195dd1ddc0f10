package forward

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/atomicfile"
)

// CursorDir is the directory of the cursors, inside the audit home.
const CursorDir = "forward"

// Cursor is where one target's copy ends: the last line its receiver
// confirmed. It is written (atomically, fsynced) after every confirmed
// batch, so a restarted forwarder resends at most the batch that was in
// flight, and never skips one.
type Cursor struct {
	Target  string         `json:"target"`
	Pos     audit.Position `json:"pos"`     // the last confirmed line; zero before any
	Shipped int64          `json:"shipped"` // lines confirmed since the cursor was created
	At      string         `json:"at"`      // when it was written
}

// CursorPath is the cursor file of t in home.
func CursorPath(home string, t Target) string {
	return filepath.Join(home, CursorDir, t.Name()+".cursor")
}

// LoadCursor reads t's cursor; a missing one is the start of the chain.
func LoadCursor(home string, t Target) (Cursor, error) {
	path := CursorPath(home, t)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{Target: t.Raw}, nil
	}
	if err != nil {
		return Cursor{}, fmt.Errorf("read cursor: %w", err)
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, fmt.Errorf("cursor %s: %w (remove it to resend the whole chain)", path, err)
	}
	return c, nil
}

func saveCursor(home string, t Target, c Cursor) error {
	if err := os.MkdirAll(filepath.Join(home, CursorDir), 0o700); err != nil {
		return fmt.Errorf("cursor: %w", err)
	}
	c.At = audit.FormatTime(time.Now())
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("cursor: %w", err)
	}
	return atomicfile.WriteState(CursorPath(home, t), append(b, '\n'), 0o600)
}

// Config is one forwarder: one audit home to one target.
type Config struct {
	Home    string
	Target  Target
	Host    string // the syslog HOSTNAME and OTLP host.name
	Version string // the airlock version

	Batch      int           // lines per batch (the in-memory spool's bound); default 256
	BatchBytes int           // bytes per batch, at least one line; default 1 MiB
	Heartbeat  time.Duration // interval between heartbeats; default 60s
	Poll       time.Duration // how often the log is read for new lines; default 1s
	Timeout    time.Duration // a connection's dial, write and answer timeout; default 10s
	MinBackoff time.Duration // first retry delay; default 500ms
	MaxBackoff time.Duration // longest retry delay; default 30s
	Settle     time.Duration // tls, tcp: how long a batch's connection must stay up after it before it counts as delivered; default 2s
	MaxPending int           // tls, tcp: lines written and not yet counted, past which nothing more is read until they are; default 16 batches
	Once       bool          // ship what is there, send a heartbeat and return
	Status     io.Writer     // one line per state change; nil for none
}

func (c *Config) defaults() {
	if c.Batch <= 0 {
		c.Batch = 256
	}
	if c.BatchBytes <= 0 {
		c.BatchBytes = 1 << 20
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 60 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = 500 * time.Millisecond
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = max(30*time.Second, c.MinBackoff)
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 16 * c.Batch
	}
	if c.Settle <= 0 {
		c.Settle = 2 * time.Second
	}
	if c.Status == nil {
		c.Status = io.Discard
	}
}

// sender is one transport. Send returns nil only when the transport's
// promise holds for every item; after an error the next Send reconnects.
type sender interface {
	Send(ctx context.Context, items []item) error
	Close() error
}

func newSender(ctx context.Context, c Config, chain string) (sender, error) {
	render := func(it item) []byte { return syslogMessage(it, c.Target.Format, c.Host, chain, c.Version) }
	switch c.Target.Kind {
	case KindRELP:
		return newRELPSender(c.Target.Addr, c.Timeout, render), nil
	case KindTLS, KindTCP, KindUDP:
		return newStreamSender(c.Target, c.Timeout, render)
	case KindOTLP:
		return newOTLPSender(ctx, c.Target, c.Timeout, c.Host, chain, c.Version)
	}
	return nil, fmt.Errorf("target %s: unknown transport %q", c.Target.Raw, c.Target.Kind)
}

// Run forwards until ctx is done (or, with Once, until the chain is
// shipped). It returns nil when ctx ends it, an error when it cannot go on:
// the cursor names a record the chain no longer has (audit.ErrPositionLost),
// or the cursor cannot be written.
func Run(ctx context.Context, c Config) error {
	c.defaults()
	chain, err := audit.HomeID(c.Home)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	cur, err := LoadCursor(c.Home, c.Target)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	s, err := newSender(ctx, c, chain)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	defer s.Close()
	f := &run{c: c, s: s, cur: cur, chain: chain}
	return f.loop(ctx)
}

type run struct {
	c        Config
	s        sender
	cur      Cursor         // confirmed, and persisted
	sent     audit.Position // the last line written: cur.Pos, or past it while batches are pending
	pending  []written      // written and not yet confirmed (tls, tcp)
	chain    string
	beats    int64
	lastBeat time.Time
	downAt   time.Time // when the receiver stopped confirming; zero while it does
	backoff  time.Duration
	full     bool // the pending bound was hit, and said
}

func (f *run) pendingLines() int64 {
	var n int64
	for _, w := range f.pending {
		n += w.n
	}
	return n
}

// written is a batch a stream transport wrote: confirmed once the same
// connection has carried a later write Settle after it.
type written struct {
	pos audit.Position
	n   int64
	at  time.Time
}

func (f *run) status(format string, a ...any) {
	fmt.Fprintf(f.c.Status, "airlock forward %s: %s\n", f.c.Target.Raw, fmt.Sprintf(format, a...))
}

// acked: the transport's success is the confirmation (RELP, OTLP), or
// nothing more can be learnt (UDP).
func (f *run) acked() bool {
	return f.c.Target.Kind != KindTLS && f.c.Target.Kind != KindTCP
}

func (f *run) loop(ctx context.Context) error {
	f.sent, f.backoff = f.cur.Pos, f.c.MinBackoff
	// the cursor is found (and no segment after it is missing) before the
	// first heartbeat: a forwarder that cannot go on, restarted by its
	// service, must be silence at the receiver, not beats of an idle one
	if _, err := f.read(); err != nil {
		return err
	}
	f.status("starting after %s (%d shipped so far)", describe(f.cur.Pos), f.cur.Shipped)
	for !f.beat(ctx) {
		if ctx.Err() != nil {
			return nil
		}
	}
	for {
		var items []item
		if f.pendingLines() < int64(f.c.MaxPending) {
			var err error
			if items, err = f.read(); err != nil {
				return err
			}
		} else if !f.full {
			f.full = true
			f.status("%d lines written and not yet counted as delivered: reading no more until they are (%s after they were written)", f.pendingLines(), f.c.Settle)
		}
		if len(items) > 0 {
			if !f.send(ctx, items) {
				if ctx.Err() != nil {
					return nil
				}
				continue
			}
			if err := f.written(items); err != nil {
				return err
			}
			if len(items) == f.c.Batch && time.Since(f.lastBeat) < f.c.Heartbeat {
				continue // more may be waiting: no poll delay
			}
		}
		settled := len(f.pending) > 0 && time.Since(f.pending[0].at) >= f.c.Settle
		if f.c.Once && len(items) < f.c.Batch && len(f.pending) == 0 {
			if f.beat(ctx) || ctx.Err() != nil {
				return nil
			}
			continue
		}
		if settled || time.Since(f.lastBeat) >= f.c.Heartbeat {
			if !f.beat(ctx) && ctx.Err() != nil {
				return nil
			}
			if err := f.promote(); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.c.Poll):
		}
	}
}

// send writes items once. On failure it says so, waits the backoff and
// rewinds to the confirmed cursor, so the next read resends everything not
// confirmed: the receiver may get a record twice (same h), never a hole.
func (f *run) send(ctx context.Context, items []item) bool {
	err := f.s.Send(ctx, items)
	if err == nil {
		if !f.downAt.IsZero() {
			f.status("receiver back after %s", time.Since(f.downAt).Round(time.Millisecond))
			f.downAt = time.Time{}
		}
		f.backoff = f.c.MinBackoff
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	if f.downAt.IsZero() {
		f.downAt = time.Now()
	}
	f.status("not confirmed (%v); resending from %s in %s — the log keeps the rest, nothing is dropped", err, describe(f.cur.Pos), f.backoff)
	f.sent, f.pending = f.cur.Pos, nil
	select {
	case <-ctx.Done():
	case <-time.After(f.backoff):
	}
	f.backoff = min(f.backoff*2, f.c.MaxBackoff)
	return false
}

// written records a batch the transport took: confirmed at once for RELP,
// OTLP and UDP, pending for TLS and TCP.
func (f *run) written(items []item) error {
	last := items[len(items)-1].line.Pos
	f.sent = last
	f.pending = append(f.pending, written{pos: last, n: int64(len(items)), at: time.Now()})
	if f.acked() {
		return f.promoteAll()
	}
	return f.promote()
}

// promote confirms the pending batches written Settle or more before the
// write that just succeeded on the same connection.
func (f *run) promote() error {
	n := 0
	for n < len(f.pending) && time.Since(f.pending[n].at) >= f.c.Settle {
		n++
	}
	return f.confirm(n)
}

func (f *run) promoteAll() error { return f.confirm(len(f.pending)) }

func (f *run) confirm(n int) error {
	if n == 0 {
		return nil
	}
	var count int64
	for _, w := range f.pending[:n] {
		count += w.n
	}
	f.cur.Pos = f.pending[n-1].pos
	f.cur.Shipped += count
	f.pending = f.pending[n:]
	f.full = false
	if err := saveCursor(f.c.Home, f.c.Target, f.cur); err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	f.status("confirmed %d (%d in all), through %s", count, f.cur.Shipped, describe(f.cur.Pos))
	return nil
}

// read takes the next batch after the cursor: at most Batch lines and
// BatchBytes bytes (at least one line). What it does not take stays in the
// audit log, which is the spool: nothing is read past an unconfirmed batch.
func (f *run) read() ([]item, error) {
	var items []item
	size := 0
	errFull := errors.New("batch full")
	err := audit.LinesAfter(f.c.Home, f.sent, func(l audit.Line) error {
		if len(items) >= f.c.Batch || (len(items) > 0 && size+len(l.Raw) > f.c.BatchBytes) {
			return errFull
		}
		items = append(items, newItem(l))
		size += len(l.Raw)
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		if errors.Is(err, audit.ErrPositionLost) {
			return nil, fmt.Errorf("forward: the cursor %s names a record the chain no longer has — the log was replaced or its segments removed; run airlock verify, then remove the cursor to resend the chain from its start: %w", CursorPath(f.c.Home, f.c.Target), err)
		}
		if errors.Is(err, audit.ErrSegmentMissing) {
			return nil, fmt.Errorf("forward: a segment after the cursor is gone, so its records cannot be shipped and nothing after them is, to leave no silent gap; run airlock verify: %w", err)
		}
		return nil, fmt.Errorf("forward: %w", err)
	}
	return items, nil
}

// beat sends a heartbeat naming the last confirmed record; false when it
// was not taken.
func (f *run) beat(ctx context.Context) bool {
	f.beats++
	b := &Beat{
		Event: HeartbeatEvent, Time: audit.FormatTime(time.Now()), Chain: f.chain, Seq: f.beats,
		LastH: f.cur.Pos.H, Shipped: f.cur.Shipped, EveryS: int64(f.c.Heartbeat / time.Second), Target: f.c.Target.Raw,
	}
	if !f.send(ctx, []item{{beat: b}}) {
		return false
	}
	f.lastBeat = time.Now()
	return true
}

func describe(p audit.Position) string {
	if p.H == "" {
		return "the start of the chain"
	}
	return fmt.Sprintf("%s…(%s at %d)", p.H[:min(12, len(p.H))], p.File, p.Off)
}
