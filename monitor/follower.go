package monitor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
)

const (
	// readChunk is how much of the live file one read takes.
	readChunk = 64 << 10
	// maxLine bounds a line held while it is incomplete: a longer one is
	// shown as malformed instead of growing the buffer with the file.
	maxLine = 4 << 20
	// maxField bounds each string of a record kept for display, so the
	// ring's memory does not depend on what an agent put in a target.
	maxField = 2 << 10
)

// batch is what one read of the log found: the newest records (at most the
// follower's keep, oldest first), the counts of the records read but left
// out because newer ones filled the batch, and the chain status after them.
type batch struct {
	Earlier counts
	Records []audit.Record
	Chain   chain
}

// chain is the state of the hash chain as far as the follower has read.
type chain struct {
	Records int    // complete lines read, across every file
	Broken  string // where and why the chain broke ("" while it holds); sticky
	Note    string // why verify could not prove the tail at start ("" if it could)
}

// String is the status line: "chain ok (N records)" or "chain BROKEN at …".
func (c chain) String() string {
	switch {
	case c.Broken != "":
		return "chain BROKEN at " + c.Broken
	case c.Note != "":
		return fmt.Sprintf("chain ok (%d records; tail unprovable: %s)", c.Records, c.Note)
	}
	return fmt.Sprintf("chain ok (%d records)", c.Records)
}

// follower tails the audit log of one home. Start verifies the log and
// reads what is there; each Poll then reads what was appended since. It
// follows audit.jsonl by identity, not by name: when the file it was
// reading is rotated into a segment (a rename), it reads that segment's
// remaining lines before starting on the new audit.jsonl, so a rotation
// loses nothing and the chain check runs straight across it.
//
// Between reads it holds no file open (Windows cannot rename a file that
// is open, and rotation must not wait for a monitor). A Follower is not
// safe for concurrent use.
type follower struct {
	home string
	keep int

	cur      os.FileInfo // the live file being read; nil before there is one
	off      int64       // next byte of cur to read
	line     int         // complete lines read from cur (through its segment, if rotated)
	partial  []byte      // the bytes of an incomplete last line
	oversize bool        // inside a line longer than maxLine

	lastH string
	chain chain
}

// newFollower returns a follower of the audit log in home that delivers at
// most keep records per batch (at least 1).
func newFollower(home string, keep int) *follower {
	return &follower{home: home, keep: max(keep, 1), lastH: audit.Genesis}
}

// Start verifies the whole chain with audit.Verify, then streams it once
// (segments, then audit.jsonl) for the counts, keeping only the newest
// records. A missing log is not an error: the follower waits for it.
func (f *follower) Start() (batch, error) {
	rep, err := audit.Verify(f.home)
	if err != nil {
		return batch{}, fmt.Errorf("monitor: %w", err)
	}
	f.chain.Broken, f.chain.Note = verdict(rep)

	col := newCollector(f.keep)
	// Fix the live file's identity before listing segments: if it is
	// rotated while the segments are streamed, it shows up there under its
	// new name, is skipped, and is then read as the file this follower was
	// on (see advance).
	if fi, err := os.Stat(filepath.Join(f.home, audit.LogFile)); err == nil {
		f.cur = fi
	}
	lastFile, skip := "", false
	err = audit.Each(f.home, func(e audit.Entry) error {
		if e.File == audit.LogFile {
			return nil
		}
		if e.File != lastFile && !skip {
			lastFile = e.File
			// this segment and those after it are read by advance
			skip = f.cur != nil && sameFileAt(filepath.Join(f.home, e.File), f.cur)
		}
		if !skip {
			f.observe(e.Record, e.File, e.Line, col.push)
		}
		return nil
	})
	if err != nil {
		return batch{}, fmt.Errorf("monitor: %w", err)
	}
	if err := f.advance(col.push); err != nil {
		return batch{}, err
	}
	return col.batch(f.chain), nil
}

// Poll reads what was appended since the last Start or Poll.
func (f *follower) Poll() (batch, error) {
	col := newCollector(f.keep)
	err := f.advance(col.push)
	return col.batch(f.chain), err
}

// PollEach is Poll without the bound: it hands every record appended since
// the last read to fn, oldest first, holding none of them.
func (f *follower) PollEach(fn func(audit.Record)) (chain, error) {
	err := f.advance(fn)
	return f.chain, err
}

// verdict turns verify's report into the chain's starting state.
func verdict(rep *audit.Report) (broken, note string) {
	for _, p := range rep.Problems {
		if p.Severity == audit.Broken {
			at := p.File
			if p.Line > 0 {
				at = fmt.Sprintf("%s:%d", p.File, p.Line)
			}
			// Message is already escaped by audit; the rest is ours.
			return fmt.Sprintf("%s (%s: %s)", textsafe.Escape(at), p.Kind, p.Message), ""
		}
		if note == "" && p.Severity == audit.TailUnprovable {
			note = p.Kind
		}
	}
	return "", note
}

// advance reads the live file from where the follower left it. If the
// name now holds another file, the old one was rotated: its rest is read
// from the segment it became, then the new file from its start. A file
// that shrank in place was rewritten, which breaks the chain.
func (f *follower) advance(push func(audit.Record)) error {
	path := filepath.Join(f.home, audit.LogFile)
	fh, err := regular.OpenState(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		// No log yet, or a rotation between its rename and the new file.
		if f.cur != nil {
			if err := f.drainMoved(push); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("monitor: open %s: %w", audit.LogFile, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("monitor: stat %s: %w", audit.LogFile, err)
	}
	if f.cur != nil && !os.SameFile(f.cur, fi) {
		if err := f.drainMoved(push); err != nil {
			return err
		}
	}
	if f.cur == nil {
		f.cur, f.off, f.line = fi, 0, 0
	}
	if fi.Size() < f.off {
		f.breakAt(audit.LogFile, f.line, fmt.Sprintf("the file shrank from %d to %d bytes", f.off, fi.Size()))
		f.off, f.line, f.partial, f.oversize = 0, 0, f.partial[:0], false
	}
	return f.readFrom(fh, fi.Size(), audit.LogFile, push)
}

// drainMoved reads the rest of the file the follower was on, which has
// been renamed into a segment, then every segment rotated out after it
// (several rotations can happen between two polls), and leaves the
// follower on no file. If no segment is that file (it was deleted, not
// rotated), there is nothing more to read from it; a record lost with it
// shows as a broken link.
func (f *follower) drainMoved(push func(audit.Record)) error {
	names, err := filepath.Glob(filepath.Join(f.home, "audit-*.jsonl")) // sorted: rotation order
	if err != nil {
		f.leaveFile(push)
		return fmt.Errorf("monitor: list segments: %w", err)
	}
	at := len(names) - 1
	for at >= 0 && !sameFileAt(names[at], f.cur) {
		at--
	}
	if at < 0 {
		f.leaveFile(push)
		return nil
	}
	for i, path := range names[at:] {
		if i > 0 {
			f.leaveFile(push)
		}
		if err := f.readPath(path, push); err != nil {
			f.leaveFile(push)
			return err
		}
	}
	f.leaveFile(push)
	return nil
}

// readPath reads the segment at path from f.off to its end.
func (f *follower) readPath(path string, push func(audit.Record)) error {
	fh, err := regular.OpenState(path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("monitor: open segment: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("monitor: stat segment: %w", err)
	}
	return f.readFrom(fh, fi.Size(), filepath.Base(path), push)
}

// leaveFile forgets the current file. A segment never ends inside a line,
// so leftover bytes are a torn line: it is shown (and breaks the chain)
// rather than glued to the next file's first line.
func (f *follower) leaveFile(push func(audit.Record)) {
	if len(f.partial) > 0 || f.oversize {
		f.line++
		f.observe(malformed(f.partial, f.oversize), "a rotated segment", f.line, push)
	}
	f.cur, f.off, f.line, f.partial, f.oversize = nil, 0, 0, f.partial[:0], false
}

// readFrom reads r from f.off up to size, one chunk at a time, and
// observes each complete line. The bytes after the last newline wait for
// the next read: a record being appended is not shown half written.
func (f *follower) readFrom(r io.ReaderAt, size int64, name string, push func(audit.Record)) error {
	buf := make([]byte, readChunk)
	for f.off < size {
		n, err := r.ReadAt(buf[:min(int64(readChunk), size-f.off)], f.off)
		f.off += int64(n)
		f.consume(buf[:n], name, push)
		if n == 0 || (err != nil && !errors.Is(err, io.EOF)) {
			if err == nil || errors.Is(err, io.EOF) {
				return nil // the file shrank while read; the next poll sees it
			}
			return fmt.Errorf("monitor: read %s: %w", name, err)
		}
	}
	return nil
}

func (f *follower) consume(b []byte, name string, push func(audit.Record)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if f.oversize || len(f.partial)+len(b) > maxLine {
				f.oversize, f.partial = true, f.partial[:0]
			} else {
				f.partial = append(f.partial, b...)
			}
			return
		}
		line := b[:i]
		b = b[i+1:]
		f.line++
		switch {
		case f.oversize:
			f.observe(malformed(nil, true), name, f.line, push)
		case len(f.partial) > 0:
			f.observe(parse(append(f.partial, line...)), name, f.line, push)
		default:
			f.observe(parse(line), name, f.line, push)
		}
		f.partial, f.oversize = f.partial[:0], false
	}
}

// observe checks r's link to the record before it and hands it on.
func (f *follower) observe(r audit.Record, name string, line int, push func(audit.Record)) {
	f.chain.Records++
	if r.Prev != f.lastH {
		f.breakAt(name, line, "prev is not the h of the record before it")
	}
	f.lastH = r.H
	push(r)
}

func (f *follower) breakAt(name string, line int, why string) {
	if f.chain.Broken == "" {
		f.chain.Broken = fmt.Sprintf("%s:%d (%s)", textsafe.Escape(name), line, why)
	}
}

// parse decodes a line for display. Like audit.Tail, a line that is not
// a JSON record becomes an audit.EventMalformed placeholder. Strings are
// clipped: the display never needs more, and the ring stays small.
func parse(line []byte) audit.Record {
	var r audit.Record
	if err := json.Unmarshal(line, &r); err != nil {
		return malformed(line, false)
	}
	for _, s := range []*string{&r.Event, &r.Source, &r.Session, &r.Tool, &r.Decision, &r.Effective,
		&r.Rule, &r.Reason, &r.Target, &r.Detail, &r.Mode, &r.Asked, &r.Time} {
		*s = clip(*s)
	}
	r.ArgsDigest, r.Alg, r.Sig = "", "", "" // never shown
	return r
}

func malformed(line []byte, oversize bool) audit.Record {
	if oversize {
		return audit.Record{Event: audit.EventMalformed, Detail: fmt.Sprintf("a line longer than %d bytes", maxLine)}
	}
	return audit.Record{Event: audit.EventMalformed, Detail: clip(string(line))}
}

// clip cuts s to at most maxField bytes on a rune boundary, marking the cut.
func clip(s string) string { return textsafe.Cut(s, maxField) }

func sameFileAt(path string, fi os.FileInfo) bool {
	st, err := os.Stat(path)
	return err == nil && os.SameFile(st, fi)
}

// collector keeps the newest keep records of one read in a ring and counts
// the ones it drops.
type collector struct {
	earlier counts
	ring    []audit.Record
	next    int // where the next record goes once the ring is full
}

func newCollector(keep int) *collector {
	return &collector{ring: make([]audit.Record, 0, keep)}
}

func (c *collector) push(r audit.Record) {
	if len(c.ring) < cap(c.ring) {
		c.ring = append(c.ring, r)
		return
	}
	c.earlier.Add(c.ring[c.next])
	c.ring[c.next] = r
	c.next = (c.next + 1) % len(c.ring)
}

func (c *collector) batch(ch chain) batch {
	recs := append(c.ring[c.next:len(c.ring):len(c.ring)], c.ring[:c.next]...)
	return batch{Earlier: c.earlier, Records: recs, Chain: ch}
}
