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

// ErrAnchor is wrapped by the error Append returns when the records and the
// checkpoint were written but the external anchor that was due could not be
// appended (AIRLOCK_ANCHOR_DIR unwritable, install.id unreadable). As with
// ErrCheckpoint the records are in the log: do not append them again. The
// next due anchor (or `airlock verify --anchor`) covers them.
var ErrAnchor = errors.New("audit: record written but not anchored")

// SignRequiredError is OpenWith's error when Options.Sign requires signing
// and its configuration cannot be loaded (Err says why).
type SignRequiredError struct {
	Mode string
	Err  error
}

func (e *SignRequiredError) Error() string {
	return "audit: open: signing with " + e.Mode + " is required and cannot be set up: " + e.Err.Error()
}

func (e *SignRequiredError) Unwrap() error { return e.Err }

// FsyncEnv names the environment variable that says when Append fsyncs:
// "critical" (the default, also for any unknown value) fsyncs appends that
// hold a record worth surviving a power cut: a decision or effect of block,
// ask, hold, change or flag, a configuration or hold change (gate_config,
// mcp_admit/mcp_release), and the package's own audit_start, segment_start
// and audit_recover records and rotations; "always" fsyncs every append;
// "never" none (rotations included).
const FsyncEnv = "AIRLOCK_AUDIT_FSYNC"

// Log appends to the audit log in one home directory. A Log is safe for
// concurrent use by multiple goroutines; any number of processes may append
// to the same home at once (appends are serialised by a lock on audit.lock).
type Log struct {
	home string
	mu   sync.Mutex
	lock *os.File // nil once closed

	// audit.jsonl and audit.head, held open between appends (held.go),
	// and buffers for the checkpoint, reused by every append.
	live, head               heldFile
	headCache                headCache
	headBuf, slotBuf, padBuf []byte
	tail                     tailMemo // the end of the live file as the last append left it (held.go)

	sign    signConfig // loaded once by Open; Signer nil when signing is off
	signErr error      // why the signing configuration could not be loaded: every Append fails with it

	rotateNow bool // rotate before the next append on the fast path (Seal, seal.go)

	anchorDir string // AIRLOCK_ANCHOR_DIR or Options.AnchorDir, "" for no anchors
	homeID    string // HomeID(home), when anchoring
	homeErr   error  // why HomeID failed: every due anchor fails with it

	// The rotated part of the chain, summed from the ledger, for anchor
	// counts; cached by the checkpoint's (Segments, Ledger).
	segCache struct {
		segs  int
		h     string
		total int64
		ok    bool
	}
}

// Options configure OpenWith.
type Options struct {
	// Getenv reads AIRLOCK_SIGN, AIRLOCK_SIGN_KEY, AIRLOCK_VERIFY_KEY and
	// AIRLOCK_ANCHOR_DIR; nil means os.Getenv.
	Getenv func(string) string
	// AnchorDir overrides AIRLOCK_ANCHOR_DIR when not empty.
	AnchorDir string
	// Sign, when not empty ("hmac" or "ed25519"), is the signing mode
	// whatever AIRLOCK_SIGN says (a managed policy's requirement). Then a
	// signing configuration that cannot be loaded fails OpenWith itself:
	// the caller required signing, and no record may be written without.
	Sign string
}

// Open prepares home for appending: it creates the directory (0700) if it
// is missing (an existing directory's permissions are left alone) and opens
// the lock file. It does not read the log. It is OpenWith with the
// configuration taken from the environment.
func Open(home string) (*Log, error) {
	return OpenWith(home, Options{})
}

// OpenWith is Open with explicit options. It loads the signing
// configuration once (LoadSignConfig, which creates audit.key on the first
// use of AIRLOCK_SIGN=hmac; that is done here, outside the append lock). A
// configuration that cannot be loaded does not fail OpenWith: every Append
// fails with it instead, so callers meet the error where they already
// handle audit failures. With an anchor directory it also reads (or
// creates) install.id for HomeID.
func OpenWith(home string, o Options) (*Log, error) {
	getenv := withSign(o.Getenv, o.Sign)
	if home == "" {
		return nil, errors.New("audit: open: empty home directory")
	}
	if err := makeHome(home); err != nil {
		return nil, fmt.Errorf("audit: create home: %w", err)
	}
	lf, err := openRegular(filepath.Join(home, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
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
	l := &Log{home: home, lock: lf, anchorDir: o.AnchorDir}
	if l.anchorDir == "" {
		l.anchorDir = getenv(AnchorDirEnv)
	}
	if l.sign, l.signErr = LoadSignConfig(home, getenv); l.signErr != nil {
		if o.Sign != "" {
			_ = lf.Close()
			return nil, &SignRequiredError{Mode: o.Sign, Err: l.signErr}
		}
		l.signErr = fmt.Errorf("audit: append: signing: %w", l.signErr)
	}
	if l.anchorDir != "" {
		l.homeID, l.homeErr = HomeID(home)
	}
	return l, nil
}

// Home returns the directory the log lives in.
func (l *Log) Home() string { return l.home }

// Close releases the lock file and the files held open between appends.
// Appending after Close fails.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil
	}
	l.releaseFiles()
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
// When the live file would grow past AIRLOCK_AUDIT_MAX_MB, Append first
// rotates it to a segment (see rotate.go) and starts the new live file with
// a segment_start record.
//
// The line is written with a single write to a file opened O_APPEND while
// holding an exclusive lock on audit.lock, then audit.head is written (in
// place, see head.go). The log is fsynced as AIRLOCK_AUDIT_FSYNC says (see
// FsyncEnv), and the checkpoint with it. An error means the records were
// not written, except for ErrCheckpoint. The Log keeps both files open
// for the next append (see held.go).
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
	rs = maskRecords(rs) // before the hash: the chain covers the masks, never a secret (mask.go)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil, errors.New("audit: append: log is closed")
	}
	if l.signErr != nil {
		// Writing unsigned records while signing is configured would be
		// a silent downgrade; the caller still enforces its decision.
		return nil, l.signErr
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
	if !holdFiles {
		l.releaseFiles()
	}
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
	return isStop(r.Decision) || isStop(r.Effective) || criticalEvent(r.Event)
}

// isStop reports decisions and effects that stop or hold a call or change
// what is trusted: losing one of these to a power cut would hide it.
func isStop(s string) bool {
	switch s {
	case "block", "ask", "hold", "change", "flag":
		return true
	}
	return false
}

// criticalEvent reports events that record a change of configuration or
// trust, or the log's own structure.
func criticalEvent(ev string) bool {
	switch ev {
	case "gate_config", "mcp_release", EventStart, eventSegmentStart, EventRecover, eventSignStart:
		return true
	}
	return false
}

// plan is what an append has to write before the caller's record.
type plan struct {
	prev     string   // h the first new line chains to
	count    int      // lines in the log before the new lines (after newline repair)
	newline  bool     // the log ends in a partial line that must be terminated first
	prefix   []Record // audit_start / segment_start / audit_recover records to write first
	recovery bool     // not the fast path: fsync, and do not rotate this time
	segs     int      // rotations in the ledger (for the checkpoint)
	ledgerH  string   // h of the last ledger line, "" if none
	lastAlg  string   // alg of the record prev names ("" if unsigned, or none)
}

func openLive(home string, flag int) (*os.File, os.FileInfo, error) {
	f, err := openRegular(filepath.Join(home, LogFile), flag, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		err = restrictMode(f, st)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("stat log: %w", err)
	}
	return f, st, nil
}

// encoded is an append ready to write.
type encoded struct {
	buf   []byte   // the bytes to write
	out   []Record // the caller's records as written
	sync  bool     // fsync the log
	lines int      // records the buffer adds (prefix included)
}

// encodePlan encodes p's prefix and rs chained from p.prev, every line
// signed when signer is set. A signing appender whose chain does not end
// in a record signed with its alg (a new log, a log written before signing
// was turned on, or with another alg) first writes a sign_start record:
// from there on Verify requires every record to be signed.
func encodePlan(p plan, rs []Record, setting string, signer signer, mode string) (encoded, error) {
	var e encoded
	if p.newline {
		e.buf = append(e.buf, '\n')
	}
	prefix := p.prefix
	if signer != nil && p.lastAlg != signer.Alg() {
		prefix = append(prefix[:len(prefix):len(prefix)], Record{Event: eventSignStart, Detail: signStartDetail(mode)})
	}
	prev := p.prev
	e.sync = p.recovery
	for _, pr := range prefix {
		pr.Source, pr.Time = rs[0].Source, rs[0].Time
		line, o, err := encodeSigned(pr, prev, signer)
		if err != nil {
			return encoded{}, err
		}
		e.buf = append(append(e.buf, line...), '\n')
		prev = o.H
		e.sync = e.sync || needSync(pr, setting)
	}
	e.out = make([]Record, 0, len(rs))
	for _, r := range rs {
		line, o, err := encodeSigned(r, prev, signer)
		if err != nil {
			return encoded{}, err
		}
		e.buf = append(append(e.buf, line...), '\n')
		prev = o.H
		e.out = append(e.out, o)
		e.sync = e.sync || needSync(r, setting)
	}
	if setting == "never" {
		e.sync = false
	}
	e.lines = len(prefix) + len(rs)
	return e, nil
}

// encodeSigned is encodeRecord followed, when signer is set, by signing the
// line (alg and sig are outside h, so h does not change).
func encodeSigned(r Record, prev string, signer signer) ([]byte, Record, error) {
	line, o, err := encodeRecord(r, prev)
	if err != nil || signer == nil {
		return line, o, err
	}
	if line, err = signLine(signer, line); err != nil {
		return nil, Record{}, err
	}
	if o.Alg, o.Sig, err = lineSig(line); err != nil {
		return nil, Record{}, fmt.Errorf("sign record: %w", err)
	}
	return line, o, nil
}

func (l *Log) appendLocked(rs []Record) ([]Record, error) {
	f, size, err := l.liveFile(os.O_RDWR | os.O_APPEND | os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	head, hst, err := l.loadHead()
	var headBad error
	if errors.Is(err, errHeadMalformed) {
		headBad, head = err, nil
	} else if err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	signer := l.sign.Signer
	var p plan
	if t := l.tail; t.ok && head != nil && l.headCache.mine && size == t.end && head.Last == t.h {
		// Nothing was added since this Log's last append (tailMemo, held.go).
		p = plan{prev: head.Last, count: head.Count, segs: head.Segments, ledgerH: head.Ledger, lastAlg: t.alg}
	} else if p, err = planAppend(f, size, head, headBad, signer); err != nil {
		l.tail.ok = false
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	l.tail.ok = false // set again only once this append's line and checkpoint are written
	setting := os.Getenv(FsyncEnv)
	enc, err := encodePlan(p, rs, setting, signer, l.sign.Mode)
	if err != nil {
		return nil, fmt.Errorf("audit: append: %w", err)
	}
	rotated, reopened := false, false
	// Rotation is decided here, under the lock and before writing, and
	// only on the fast path: a log that needs recovery is repaired first
	// (in the live file) and rotated by a later append.
	if !p.recovery && size > 0 && (l.rotateNow || size+int64(len(enc.buf)) > maxLiveBytes()) {
		l.live.close() // Windows cannot rename an open file
		reopened = true
		var e ledgerEntry
		e, rotated, err = rotateLive(l.home, head, setting != "never", signer)
		if err != nil {
			return nil, fmt.Errorf("audit: append: %w", err)
		}
		flag := os.O_RDWR | os.O_APPEND | os.O_CREATE
		if rotated {
			flag |= os.O_EXCL
			p = plan{prev: e.Last, prefix: []Record{segmentStartRecord(e)}, segs: e.Seq, ledgerH: e.H, lastAlg: p.lastAlg}
			if enc, err = encodePlan(p, rs, setting, signer, l.sign.Mode); err != nil {
				return nil, fmt.Errorf("audit: append: %w", err)
			}
		}
		// Not rotated (the rename was refused): append to the live file as
		// it is; the next append past the limit tries again.
		if f, _, err = l.liveFile(flag); err != nil {
			return nil, fmt.Errorf("audit: append: %w", err)
		}
	}

	out := enc.out
	last := out[len(out)-1]
	h := Head{Count: p.count + enc.lines, Last: last.H, At: last.Time, Segments: p.segs, Ledger: p.ledgerH}
	if signer != nil {
		// Signed before anything is written, so a signing failure leaves
		// the log untouched.
		if h.Alg, h.Sig, err = signHead(signer, h); err != nil {
			return nil, fmt.Errorf("audit: append: %w", err)
		}
	}
	n, err := f.Write(enc.buf)
	if err != nil {
		noteFault(l.home, f, enc.buf, n, err) // a full disk: see fault.go
		return nil, fmt.Errorf("audit: append: write log: %w", err)
	}
	if n != len(enc.buf) {
		return nil, fmt.Errorf("audit: append: write log: %w", io.ErrShortWrite)
	}
	if size == 0 && p.prev == Genesis {
		_ = markGenesis(l.home, enc.buf) // a new chain: see genesis.go
	}
	if p.recovery {
		clearFaults(l.home) // the recovery names their cause: see fault.go
	}
	if enc.sync {
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("audit: append: sync log: %w", err)
		}
	}
	if err := l.storeHead(h, hst, enc.sync); err != nil {
		return out, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if !reopened && l.headCache.mine {
		l.tail = tailMemo{ok: true, end: size + int64(n), h: last.H, alg: last.Alg}
	}
	if l.anchorDir != "" {
		if err := l.maybeAnchor(h, enc.lines, rotated); err != nil {
			return out, fmt.Errorf("%w: %w", ErrAnchor, err)
		}
	}
	return out, nil
}

// maybeAnchor appends an external anchor for the checkpoint h when the
// whole chain (rotated segments and the live file) crossed a multiple of
// AnchorEvery with the added records, or the append rotated.
func (l *Log) maybeAnchor(h Head, added int, rotated bool) error {
	segs, err := l.segmentTotal(h.Segments, h.Ledger)
	if err != nil {
		return err
	}
	total := segs + int64(h.Count)
	if !rotated && !AnchorDue(total, total-int64(added)) {
		return nil
	}
	if l.homeErr != nil {
		return l.homeErr
	}
	abs, _, _ := homePaths(l.home)
	return appendAnchorAt(l.anchorDir, l.homeID, abs, total, h.Last, time.Now())
}

// segmentTotal returns the records in the first segs rotated segments, as
// the ledger counts them.
func (l *Log) segmentTotal(segs int, ledgerH string) (int64, error) {
	c := &l.segCache
	if segs == 0 {
		return 0, nil
	}
	if c.ok && c.segs == segs && c.h == ledgerH {
		return c.total, nil
	}
	li, err := readLedger(l.home)
	if err != nil {
		return 0, err
	}
	total := ledgerTotal(li.entries, segs)
	c.segs, c.h, c.total, c.ok = segs, ledgerH, total, true
	return total, nil
}

// ledgerTotal sums the counts of ledger entries 1..segs (each seq once).
func ledgerTotal(entries []ledgerEntry, segs int) int64 {
	seen := map[int]bool{}
	var total int64
	for _, e := range entries {
		if e.Seq <= segs && !seen[e.Seq] {
			seen[e.Seq] = true
			total += int64(e.Count)
		}
	}
	return total
}

// planAppend decides what the next record chains to. The common case reads
// only audit.head and the last line of the log. f is the live file, opened
// by its path in the audit home.
func planAppend(f *os.File, size int64, head *Head, headBad error, signer signer) (plan, error) {
	home := filepath.Dir(f.Name())
	if size == 0 {
		return planEmpty(home, head, headBad, signer)
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
				return plan{prev: head.Last, count: head.Count, segs: head.Segments, ledgerH: head.Ledger, lastAlg: string(lf.alg)}, nil
			}
		}
	}
	return planRecover(home, f, head, headBad)
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
	lines     int    // newline-terminated lines
	firstPrev string // prev of the first complete line that is a record
	lastH     string // h of the last complete line that is a record
	hAt       string // h of line `want` if it is a record
	lastAlg   string // alg of the last complete record, "" if unsigned
	mark      bool   // some record is an audit_start "checkpointed" or a segment_start
	partial   []byte // trailing bytes after the last newline
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
		h, prev, ev, detail, ok := recordHashes(&cp, line)
		if !ok {
			continue
		}
		if fa.lastH == "" {
			fa.firstPrev = prev
		}
		fa.lastH = h
		fa.lastAlg, _, _ = lineSig(line)
		if fa.lines == want {
			fa.hAt = h
		}
		if (ev == EventStart && detail == StartDetail) || ev == eventSegmentStart {
			fa.mark = true
		}
	}
}

// planEmpty plans the first append to an empty (or missing) live file: a
// new log, a rotation a killed appender left half done, or a live file
// that was emptied.
func planEmpty(home string, head *Head, headBad error, signer signer) (plan, error) {
	li, err := readLedger(home)
	if err != nil {
		return plan{}, err
	}
	var notes []Record
	if head != nil {
		e, ok, err := resumeRotation(home, li, head, signer)
		if err != nil {
			return plan{}, err
		}
		if ok {
			li.entries, li.partial = append(li.entries, e), false
			notes = append(notes, recoverRecord(recoverRotation, fmt.Sprintf("an appender was killed after renaming audit.jsonl to %s and before listing it in %s; listed it as entry %d", e.Segment, LedgerFile, e.Seq)))
		}
	}
	last := li.last()
	if last == nil {
		p := plan{prev: Genesis, prefix: []Record{{Event: EventStart, Detail: StartDetail}}}
		switch {
		case head != nil:
			p.prefix = append(p.prefix, recoverRecord(recoverTruncated,
				fmt.Sprintf("audit.jsonl was empty but the checkpoint recorded %d records (last h %s); starting a new chain", head.Count, head.Last)))
			p.recovery = true
		case headBad != nil:
			p.prefix = append(p.prefix, recoverRecord(recoverCheckpointBad,
				fmt.Sprintf("audit.jsonl was empty and the checkpoint was unreadable (%v); starting a new chain", headBad)))
			p.recovery = true
		}
		return p, nil
	}
	// The chain continues from the last rotated segment.
	p := plan{prev: last.Last, segs: last.Seq, ledgerH: last.H, recovery: true,
		prefix: append([]Record{segmentStartRecord(*last)}, notes...), lastAlg: lastAlgOf(filepath.Join(home, last.Segment))}
	var rec *Record
	switch {
	case headBad != nil:
		r := recoverRecord(recoverCheckpointBad, fmt.Sprintf("audit.jsonl was empty and the checkpoint was unreadable (%v)", headBad))
		rec = &r
	case head == nil:
		r := recoverRecord(recoverCheckpointMissing, fmt.Sprintf("audit.jsonl was empty and audit.head was missing although the log was rotated %d times", last.Seq))
		rec = &r
	case head.Segments < last.Seq && head.Count == last.Count && head.Last == last.Last:
		// The checkpoint describes the segment just rotated out: a rotation
		// was interrupted before the new live file was written.
		if len(notes) == 0 {
			r := recoverRecord(recoverRotation, fmt.Sprintf("an appender was killed after rotating audit.jsonl to %s and before starting the new audit.jsonl", last.Segment))
			rec = &r
		}
	case head.Segments != last.Seq:
		r := recoverRecord(recoverCheckpointBad, fmt.Sprintf("the checkpoint counted %d rotations but %s lists %d, and audit.jsonl was empty", head.Segments, LedgerFile, last.Seq))
		rec = &r
	default:
		r := recoverRecord(recoverTruncated, fmt.Sprintf("audit.jsonl was empty but the checkpoint recorded %d records (last h %s); continuing from %s", head.Count, head.Last, last.Segment))
		rec = &r
	}
	if rec != nil {
		p.prefix = append(p.prefix, *rec)
	}
	return p, nil
}

// planRecover is the rare path: the checkpoint is missing or disagrees with
// the last line. It reads the whole log once, chains to the last record in
// the file, and describes what it found in audit_recover records.
func planRecover(home string, f *os.File, head *Head, headBad error) (plan, error) {
	li, err := readLedger(home)
	if err != nil {
		return plan{}, err
	}
	last := li.last()
	rotations := 0
	if last != nil {
		rotations = last.Seq
	}
	// A checkpoint written before the last rotation names a line of a
	// segment, not of this file.
	headHere := head != nil && head.Segments == rotations
	want := 0
	if headHere {
		want = head.Count
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return plan{}, fmt.Errorf("rewind log: %w", err)
	}
	fa, err := scanFacts(f, want)
	if err != nil {
		return plan{}, err
	}
	p := plan{count: fa.lines, prev: fa.lastH, recovery: true, lastAlg: fa.lastAlg}
	if last != nil {
		p.segs, p.ledgerH = last.Seq, last.H
	}
	start := Genesis
	if last != nil {
		start = last.Last
	}
	// A partial last line is either a whole record that only lacks its
	// newline (adopted) or torn; either way it is terminated first.
	if fa.partial != nil {
		p.newline = true
		p.count++
		var cp canonParser
		h, prev, _, _, ok := recordHashes(&cp, fa.partial)
		if ok && prev == orStart(fa.lastH, start) {
			// A whole record that only lacks its newline: adopt it.
			p.prev, fa.lastH = h, h
			p.lastAlg, _, _ = lineSig(fa.partial)
			fa.lines++
			if fa.lines == want {
				fa.hAt = h
			}
		} else {
			p.prefix = append(p.prefix, recoverRecord(recoverTorn,
				fmt.Sprintf("line %d was torn (%d bytes without a newline, a writer was killed mid-append); the chain continues from the record before it", p.count, len(fa.partial))+
					tornCause(home, f, len(fa.partial)))) // fault.go
		}
	}
	if p.prev == "" {
		// No record survives in this file: it starts over, as a new chain
		// (audit_start) or as the continuation of the last segment.
		first := Record{Event: EventStart, Detail: StartDetail}
		if last != nil {
			first = segmentStartRecord(*last)
		}
		p.prev = start
		p.prefix = append([]Record{first}, p.prefix...)
	}
	mark := fa.mark || last != nil
	var rec *Record
	switch {
	case headBad != nil:
		r := recoverRecord(recoverCheckpointBad, fmt.Sprintf("the checkpoint was unreadable (%v); the log had %d lines", headBad, fa.lines))
		rec = &r
	case head == nil && fa.lastH == "" && last == nil:
		// Nothing was checkpointed and nothing is lost.
	case head == nil && mark:
		r := recoverRecord(recoverCheckpointMissing, fmt.Sprintf("audit.head was missing although the log is checkpointed; the log had %d lines", fa.lines))
		rec = &r
	case head == nil:
		r := recoverRecord(recoverUncheckpointed, fmt.Sprintf("audit.head was missing and the log was never checkpointed; the log had %d lines", fa.lines))
		rec = &r
	case !headHere && last != nil && head.Segments == last.Seq-1 && head.Count == last.Count && head.Last == last.Last:
		r := recoverRecord(recoverCheckpointStale, fmt.Sprintf("the checkpoint predates the rotation to %s (a writer was killed before updating it); audit.jsonl had %d lines", last.Segment, fa.lines))
		rec = &r
	case !headHere:
		r := recoverRecord(recoverCheckpointBad, fmt.Sprintf("the checkpoint counted %d rotations (last h %s) but %s lists %d", head.Segments, head.Last, LedgerFile, rotations))
		rec = &r
	case head.Count > fa.lines:
		r := recoverRecord(recoverTruncated, fmt.Sprintf("the checkpoint recorded %d records (last h %s) but the log had %d lines: %d missing", head.Count, head.Last, fa.lines, head.Count-fa.lines))
		rec = &r
	case fa.hAt != head.Last:
		r := recoverRecord(recoverCheckpointBad, fmt.Sprintf("the checkpoint said line %d has h %s but the log has %s there", head.Count, head.Last, quoteOrNone(fa.hAt)))
		rec = &r
	case head.Count < fa.lines:
		r := recoverRecord(recoverCheckpointStale, fmt.Sprintf("the checkpoint covered %d of %d lines (a writer was killed before updating it)", head.Count, fa.lines))
		rec = &r
	}
	if rec != nil {
		p.prefix = append(p.prefix, *rec)
	}
	return p, nil
}

// lastAlgOf returns the alg of the last line of the file at path ("" if
// unsigned or unreadable: then the appender writes one sign_start too many,
// which is harmless).
func lastAlgOf(path string) string {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return ""
	}
	line, complete, err := readLastLine(f, st.Size())
	if err != nil || !complete {
		return ""
	}
	alg, _, _ := lineSig(line)
	return alg
}

func orStart(h, start string) string {
	if h == "" {
		return start
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
