package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/agentairlock/airlock/internal/flock"
)

// ErrCheckpoint is wrapped by the error Append returns when the record was
// written to audit.jsonl but audit.head could not be updated. The record is
// in the log (do not append it again); the next Append repairs the
// checkpoint and records that it had to.
var ErrCheckpoint = errors.New("audit: record written but checkpoint not updated")

// FsyncEnv names the environment variable that overrides when Append
// fsyncs: "always", "never", or anything else for the default (only
// records whose Decision or Effective is block or ask).
const FsyncEnv = "AIRLOCK_AUDIT_FSYNC"

// Log appends to the audit log in one home directory. A Log is safe for
// concurrent use by multiple goroutines; any number of processes may append
// to the same home at once (appends are serialised by a lock on audit.lock).
type Log struct {
	home string
	mu   sync.Mutex
	lock *os.File // nil once closed
}

// Open prepares home for appending: it creates the directory (0700) if it
// is missing (an existing directory's permissions are left alone) and opens
// the lock file. It does not read the log.
func Open(home string) (*Log, error) {
	if home == "" {
		return nil, errors.New("audit: open: empty home directory")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("audit: create home: %w", err)
	}
	lf, err := os.OpenFile(filepath.Join(home, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: open lock: %w", err)
	}
	st, err := lf.Stat()
	if err == nil {
		err = restrictMode(lf, st)
	}
	if err != nil {
		_ = lf.Close()
		return nil, fmt.Errorf("audit: open lock: %w", err)
	}
	return &Log{home: home, lock: lf}, nil
}

// Home returns the directory the log lives in.
func (l *Log) Home() string { return l.home }

// Close releases the lock file. Appending after Close fails.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil
	}
	err := l.lock.Close()
	l.lock = nil
	if err != nil {
		return fmt.Errorf("audit: close lock: %w", err)
	}
	return nil
}

// Append writes r to the end of the chain and returns it as written (with
// Time, Prev and H set). r.Event and r.Source are required; r.Time is set to
// the current time if empty; r.Prev and r.H are ignored.
//
// The first Append to a new log writes an audit_start record first. If the
// log and its checkpoint disagree, Append writes audit_recover records
// describing the disagreement before r (see the package documentation).
//
// The line is written with a single write to a file opened O_APPEND while
// holding an exclusive lock on audit.lock, then audit.head is replaced. The
// log is fsynced when r's Decision or Effective is "block" or "ask", or
// always/never as AIRLOCK_AUDIT_FSYNC says.
func (l *Log) Append(r Record) (Record, error) {
	out, err := l.AppendAll([]Record{r})
	if len(out) == 0 {
		return Record{}, err
	}
	return out[0], err
}

// AppendAll writes rs to the end of the chain in order, under one lock, with
// one write and one checkpoint: a long-lived process (the MCP proxy) drains
// its queue of decisions this way. It returns the records as written; on an
// ErrCheckpoint error they are in the log.
func (l *Log) AppendAll(rs []Record) ([]Record, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	for _, r := range rs {
		if r.Event == "" {
			return nil, errors.New("audit: append: record has no event")
		}
		if r.Source == "" {
			return nil, errors.New("audit: append: record has no source")
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil, errors.New("audit: append: log is closed")
	}
	if err := flock.Lock(l.lock); err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	now := FormatTime(time.Now())
	for i := range rs {
		if rs[i].Time == "" {
			// Taken under the lock, so generated times follow file order.
			rs[i].Time = now
		}
	}
	out, err := l.appendLocked(rs)
	if uerr := flock.Unlock(l.lock); uerr != nil && err == nil {
		err = fmt.Errorf("audit: append: %w", uerr)
	}
	return out, err
}

// needSync reports whether a record must be fsynced under the given
// AIRLOCK_AUDIT_FSYNC setting.
func needSync(r Record, setting string) bool {
	switch setting {
	case "always":
		return true
	case "never":
		return false
	}
	return isStop(r.Decision) || isStop(r.Effective)
}

func isStop(s string) bool { return s == "block" || s == "ask" }

// plan is what an append has to write before the caller's record.
type plan struct {
	prev     string   // h the first new line chains to
	count    int      // lines in the log before the new lines (after newline repair)
	newline  bool     // the log ends in a partial line that must be terminated first
	prefix   []Record // audit_start / audit_recover records to write first
	recovery bool
}

func (l *Log) appendLocked(rs []Record) ([]Record, error) {
	f, err := os.OpenFile(filepath.Join(l.home, LogFile), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: append: open log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: append: stat log: %w", err)
	}
	if err := restrictMode(f, st); err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	head, err := readHead(l.home)
	var headBad error
	if errors.Is(err, errHeadMalformed) {
		headBad, head = err, nil
	} else if err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	p, err := planAppend(f, st.Size(), head, headBad)
	if err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}

	var buf []byte
	if p.newline {
		buf = append(buf, '\n')
	}
	prev := p.prev
	for _, pr := range p.prefix {
		pr.Source, pr.Time = rs[0].Source, rs[0].Time
		line, _, err := encodeRecord(pr, prev)
		if err != nil {
			return nil, fmt.Errorf("audit: append: %w", err)
		}
		buf = append(append(buf, line...), '\n')
		prev = lastH(line)
	}
	out := make([]Record, 0, len(rs))
	sync := p.recovery
	setting := os.Getenv(FsyncEnv)
	for _, r := range rs {
		line, o, err := encodeRecord(r, prev)
		if err != nil {
			return nil, fmt.Errorf("audit: append: %w", err)
		}
		buf = append(append(buf, line...), '\n')
		prev = o.H
		out = append(out, o)
		sync = sync || needSync(r, setting)
	}
	if setting == "never" {
		sync = false
	}

	n, err := f.Write(buf)
	if err != nil {
		return nil, fmt.Errorf("audit: append: write log: %w", err)
	}
	if n != len(buf) {
		return nil, fmt.Errorf("audit: append: write log: %w", io.ErrShortWrite)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("audit: append: sync log: %w", err)
		}
	}
	last := out[len(out)-1]
	h := Head{Count: p.count + len(p.prefix) + len(out), Last: last.H, At: last.Time}
	if err := writeHead(l.home, h, sync); err != nil {
		return out, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	return out, nil
}

// lastH extracts h from a line produced by encodeRecord.
func lastH(line []byte) string {
	var p canonParser
	var f lineFields
	if p.parseCanonical(line, &f) != nil {
		return ""
	}
	return string(f.h)
}

// planAppend decides what the next record chains to. The common case reads
// only audit.head and the last line of the log.
func planAppend(f *os.File, size int64, head *Head, headBad error) (plan, error) {
	if size == 0 {
		p := plan{prev: Genesis, prefix: []Record{{Event: EventStart, Detail: StartDetail}}}
		switch {
		case head != nil:
			p.prefix = append(p.prefix, recoverRecord(RecoverTruncated,
				fmt.Sprintf("audit.jsonl was empty but the checkpoint recorded %d records (last h %s); starting a new chain", head.Count, head.Last)))
			p.recovery = true
		case headBad != nil:
			p.prefix = append(p.prefix, recoverRecord(RecoverCheckpointBad,
				fmt.Sprintf("audit.jsonl was empty and the checkpoint was unreadable (%v); starting a new chain", headBad)))
			p.recovery = true
		}
		return p, nil
	}
	if head != nil {
		last, complete, err := readLastLine(f, size)
		if err != nil {
			return plan{}, err
		}
		if complete {
			var cp canonParser
			var lf lineFields
			if cp.parseCanonical(last, &lf) == nil && string(lf.h) == head.Last {
				return plan{prev: head.Last, count: head.Count}, nil
			}
		}
	}
	return planRecover(f, head, headBad)
}

// readLastLine returns the last line of the log (without '\n') and whether
// it is newline-terminated, reading backwards from the end in growing
// windows.
func readLastLine(f *os.File, size int64) ([]byte, bool, error) {
	window := int64(4096)
	for {
		if window > size {
			window = size
		}
		buf := make([]byte, window)
		if _, err := f.ReadAt(buf, size-window); err != nil {
			return nil, false, fmt.Errorf("read log tail: %w", err)
		}
		if buf[len(buf)-1] != '\n' {
			return nil, false, nil
		}
		if i := bytes.LastIndexByte(buf[:len(buf)-1], '\n'); i >= 0 {
			return buf[i+1 : len(buf)-1], true, nil
		}
		if window == size {
			return buf[:len(buf)-1], true, nil
		}
		window *= 4
	}
}

func recoverRecord(reason, detail string) Record {
	return Record{Event: EventRecover, Reason: reason, Detail: detail}
}

// logFacts is what a full scan of the log tells the rare append path.
type logFacts struct {
	lines   int    // newline-terminated lines
	lastH   string // h of the last complete line that is a record
	hAt     string // h of line `want` if it is a record
	mark    bool   // some record is an audit_start "checkpointed" record
	partial []byte // trailing bytes after the last newline
}

// recordHashes returns the h and prev strings of a line, canonical or not.
func recordHashes(cp *canonParser, line []byte) (h, prev string, ev, detail string, ok bool) {
	var f lineFields
	if err := cp.parseCanonical(line, &f); err == nil {
		if f.h == nil || f.prev == nil {
			return "", "", "", "", false
		}
		return stringValue(f.h), stringValue(f.prev), stringValue(f.event), stringValue(f.detail), true
	}
	m, err := decodeObject(line)
	if err != nil {
		return "", "", "", "", false
	}
	h, ok1 := m["h"].(string)
	prev, ok2 := m["prev"].(string)
	ev, _ = m["event"].(string)
	detail, _ = m["detail"].(string)
	return h, prev, ev, detail, ok1 && ok2
}

func scanFacts(r io.Reader, want int) (logFacts, error) {
	var fa logFacts
	var cp canonParser
	lr := newLineReader(r)
	for {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) {
			return fa, nil
		}
		if err != nil {
			return fa, err
		}
		if !complete {
			fa.partial = bytes.Clone(line)
			return fa, nil
		}
		fa.lines++
		h, _, ev, detail, ok := recordHashes(&cp, line)
		if !ok {
			continue
		}
		fa.lastH = h
		if fa.lines == want {
			fa.hAt = h
		}
		if ev == EventStart && detail == StartDetail {
			fa.mark = true
		}
	}
}

// planRecover is the rare path: the checkpoint is missing or disagrees with
// the last line. It reads the whole log once, chains to the last record in
// the file, and describes what it found in audit_recover records.
func planRecover(f *os.File, head *Head, headBad error) (plan, error) {
	want := 0
	if head != nil {
		want = head.Count
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return plan{}, fmt.Errorf("rewind log: %w", err)
	}
	fa, err := scanFacts(f, want)
	if err != nil {
		return plan{}, err
	}
	p := plan{count: fa.lines, prev: fa.lastH, recovery: true}
	// A partial last line is either a whole record that only lacks its
	// newline (adopted) or torn; either way it is terminated first.
	if fa.partial != nil {
		p.newline = true
		p.count++
		var cp canonParser
		h, prev, _, _, ok := recordHashes(&cp, fa.partial)
		if ok && prev == orGenesis(fa.lastH) {
			// A whole record that only lacks its newline: adopt it.
			p.prev, fa.lastH = h, h
			fa.lines++
			if fa.lines == want {
				fa.hAt = h
			}
		} else {
			p.prefix = append(p.prefix, recoverRecord(RecoverTorn,
				fmt.Sprintf("line %d was torn (%d bytes without a newline, a writer was killed mid-append); the chain continues from the record before it", p.count, len(fa.partial))))
		}
	}
	if p.prev == "" {
		// No record survives: this is a new chain, so it gets the
		// audit_start mark first.
		p.prev = Genesis
		p.prefix = append([]Record{{Event: EventStart, Detail: StartDetail}}, p.prefix...)
	}
	var rec *Record
	switch {
	case headBad != nil:
		r := recoverRecord(RecoverCheckpointBad, fmt.Sprintf("the checkpoint was unreadable (%v); the log had %d lines", headBad, fa.lines))
		rec = &r
	case head == nil && fa.lastH == "":
		// Nothing was checkpointed and nothing is lost.
	case head == nil && fa.mark:
		r := recoverRecord(RecoverCheckpointMissing, fmt.Sprintf("audit.head was missing although the log is checkpointed; the log had %d lines", fa.lines))
		rec = &r
	case head == nil:
		r := recoverRecord(RecoverUncheckpointed, fmt.Sprintf("audit.head was missing and the log was never checkpointed; the log had %d lines", fa.lines))
		rec = &r
	case head.Count > fa.lines:
		r := recoverRecord(RecoverTruncated, fmt.Sprintf("the checkpoint recorded %d records (last h %s) but the log had %d lines: %d missing", head.Count, head.Last, fa.lines, head.Count-fa.lines))
		rec = &r
	case fa.hAt != head.Last:
		r := recoverRecord(RecoverCheckpointBad, fmt.Sprintf("the checkpoint said line %d has h %s but the log has %s there", head.Count, head.Last, quoteOrNone(fa.hAt)))
		rec = &r
	case head.Count < fa.lines:
		r := recoverRecord(RecoverCheckpointStale, fmt.Sprintf("the checkpoint covered %d of %d lines (a writer was killed before updating it)", head.Count, fa.lines))
		rec = &r
	}
	if rec != nil {
		p.prefix = append(p.prefix, *rec)
	}
	return p, nil
}

func orGenesis(h string) string {
	if h == "" {
		return Genesis
	}
	return h
}

func quoteOrNone(s string) string {
	if s == "" {
		return "no record"
	}
	return strconv.Quote(s)
}

// restrictMode makes sure a file we own is not accessible to others
// (0600). It never touches directories. A file we cannot chmod (owned by
// someone else) is left as it is.
func restrictMode(f *os.File, st os.FileInfo) error {
	if runtime.GOOS == "windows" || st.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := f.Chmod(st.Mode().Perm() & 0o700); err != nil && !errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("chmod %s: %w", f.Name(), err)
	}
	return nil
}
