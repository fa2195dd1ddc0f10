package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/flock"
)

// Status is the overall verdict of Verify. The CLI exits with int(Status).
type Status int

const (
	// Intact: every line is a canonical record whose hash matches, the chain
	// is unbroken from genesis, and the checkpoint matches the end.
	Intact Status = 0
	// Broken: the log or its checkpoint was altered (or a writer was killed
	// mid-append); see Report.Problems.
	Broken Status = 1
	// TailUnprovable: what is there is intact, but nothing proves that no
	// records were removed from the end (no usable checkpoint).
	TailUnprovable Status = 2
)

// String returns "intact", "broken" or "tail-unprovable".
func (s Status) String() string {
	switch s {
	case Intact:
		return "intact"
	case Broken:
		return "broken"
	case TailUnprovable:
		return "tail-unprovable"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Problem kinds.
const (
	KindEdited              = "edited"               // a record's content does not match its h
	KindNonCanonical        = "noncanonical"         // content matches h but the bytes were re-encoded
	KindDeleted             = "deleted"              // a record is missing before this line
	KindInserted            = "inserted"             // this line does not belong in the chain
	KindReordered           = "reordered"            // lines are out of order
	KindTruncated           = "truncated"            // records are missing from the end
	KindMalformed           = "malformed"            // not a JSON audit record
	KindTorn                = "torn"                 // partial line left by a killed writer
	KindCheckpointMissing   = "checkpoint-missing"   // audit.head is (or was) missing
	KindCheckpointMismatch  = "checkpoint-mismatch"  // audit.head names a different record
	KindCheckpointMalformed = "checkpoint-malformed" // audit.head cannot be parsed
	KindCheckpointStale     = "checkpoint-stale"     // lines after the checkpoint are unproven
)

// Problem is one finding of Verify.
type Problem struct {
	Line     int    // 1-based line of audit.jsonl; 0 if not about one line
	Kind     string // one of the Kind* constants
	Message  string // human-readable, names the line; file text in it is Escape'd
	Severity Status // Broken or TailUnprovable
}

// Report is the result of Verify.
type Report struct {
	Records  int       // lines examined (a trailing partial line counts)
	Status   Status    // worst Severity of Problems, Intact if none
	Problems []Problem // in line order
	Head     *Head     // the checkpoint as read, nil if missing or unreadable
}

func (rep *Report) add(line int, kind string, sev Status, format string, args ...any) {
	rep.Problems = append(rep.Problems, Problem{Line: line, Kind: kind, Message: fmt.Sprintf(format, args...), Severity: sev})
}

// Verify checks the audit log in home: every line's hash, the chain from
// genesis, and the checkpoint. It returns an error only for I/O problems
// that stop verification entirely; everything wrong with the log itself is
// reported in the Report.
//
// Verify takes the append lock only long enough to read the checkpoint and
// the log's size, then verifies that snapshot while appenders carry on. If
// the lock file cannot be opened (for example a read-only copy of the
// directory), it verifies without it.
func Verify(home string) (*Report, error) {
	f, size, head, headBad, err := snapshot(home)
	if err != nil {
		return nil, fmt.Errorf("audit: verify: %w", err)
	}
	if f != nil {
		defer f.Close()
	}
	rep := &Report{Head: head}
	v := &verifier{rep: rep, want: 0}
	if head != nil {
		v.want = head.Count
	}
	if f != nil {
		if err := v.pass1(io.NewSectionReader(f, 0, size)); err != nil {
			return nil, fmt.Errorf("audit: verify: %w", err)
		}
		if v.linkBroken {
			entries, err := collectLinks(io.NewSectionReader(f, 0, size))
			if err != nil {
				return nil, fmt.Errorf("audit: verify: %w", err)
			}
			classifyLinks(rep, entries)
		}
	}
	v.checkpoint(head, headBad)
	sort.SliceStable(rep.Problems, func(i, j int) bool {
		li, lj := rep.Problems[i].Line, rep.Problems[j].Line
		if li == 0 {
			li = int(^uint(0) >> 1)
		}
		if lj == 0 {
			lj = int(^uint(0) >> 1)
		}
		return li < lj
	})
	for _, p := range rep.Problems {
		switch {
		case p.Severity == Broken:
			rep.Status = Broken
		case p.Severity == TailUnprovable && rep.Status == Intact:
			rep.Status = TailUnprovable
		}
	}
	return rep, nil
}

// snapshot reads the checkpoint and the log size consistently: under the
// append lock when it can be taken, so no append is half done.
func snapshot(home string) (f *os.File, size int64, head *Head, headBad error, err error) {
	if lf, lerr := os.Open(filepath.Join(home, LockFile)); lerr == nil {
		if flock.Lock(lf) == nil {
			defer func() { _ = flock.Unlock(lf) }()
		}
		defer lf.Close()
	}
	head, err = readHead(home)
	if errors.Is(err, errHeadMalformed) {
		headBad, head, err = err, nil, nil
	}
	if err != nil {
		return nil, 0, nil, nil, err
	}
	f, err = os.Open(filepath.Join(home, LogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, head, headBad, nil
	}
	if err != nil {
		return nil, 0, nil, nil, fmt.Errorf("open %s: %w", LogFile, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, nil, nil, fmt.Errorf("stat %s: %w", LogFile, err)
	}
	return f, st.Size(), head, headBad, nil
}

type verifier struct {
	rep        *Report
	cp         canonParser
	want       int    // head.Count: the line whose h the checkpoint names
	lines      int    // newline-terminated lines
	lastH      []byte // claimed h of the last record (decoded)
	lastFull   []byte // claimed h of the last newline-terminated record
	partial    bool   // the log ends without a newline
	hAt        string // claimed h of line want
	hAtOK      bool
	markLine   int  // first audit_start "checkpointed" line
	linkBroken bool // some record's prev is not the previous record's h
	malformed  int  // line of the most recent malformed-line problem (for torn recovery)
	malIdx     int
}

var genesisBytes = []byte(Genesis)

func (v *verifier) pass1(r io.Reader) error {
	v.lastH = append(v.lastH[:0], genesisBytes...)
	lr := newLineReader(r)
	var f lineFields
	var sumHex [2 * sha256.Size]byte
	n := 0
	for {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		n++
		v.rep.Records++
		if complete {
			v.lines++
		} else {
			v.partial = true
		}
		var h, prev, event, reason, detail []byte
		// Fast path: a canonical line is byte-for-byte the encoding of its
		// decoded map, so hashing the line minus h/sig/alg equals hashing
		// the re-marshalled map (FuzzCanonical checks this). Anything else
		// takes the decode path below and is reported either way.
		if err := v.cp.parseCanonical(line, &f); err == nil {
			if f.h == nil || f.prev == nil {
				v.badLine(n, complete, "it is a JSON object without string h and prev members")
				continue
			}
			hex.Encode(sumHex[:], f.hashed[:])
			h = f.h
			if bytes.IndexByte(h, '\\') >= 0 {
				h = []byte(stringValue(h))
			}
			if !bytes.Equal(sumHex[:], h) {
				v.rep.add(n, KindEdited, Broken, "line %d was edited: its content hashes to %s but its h is %s", n, sumHex[:12], shortHash(h))
			}
			prev = f.prev
			if bytes.IndexByte(prev, '\\') >= 0 {
				prev = []byte(stringValue(prev))
			}
			event, reason, detail = f.event, f.reason, f.detail
		} else {
			m, derr := decodeObject(line)
			if derr != nil {
				v.badLine(n, complete, derr.Error())
				continue
			}
			hs, ok1 := m["h"].(string)
			ps, ok2 := m["prev"].(string)
			if !ok1 || !ok2 {
				v.badLine(n, complete, "it is a JSON object without string h and prev members")
				continue
			}
			sum, herr := hashObject(m)
			switch {
			case herr != nil:
				v.rep.add(n, KindMalformed, Broken, "line %d cannot be hashed: %v", n, herr)
			case sum == hs:
				v.rep.add(n, KindNonCanonical, Broken, "line %d was re-encoded: its content still matches its h but its bytes are not the canonical encoding that was written", n)
			default:
				v.rep.add(n, KindEdited, Broken, "line %d was edited: its content hashes to %s but its h is %s", n, sum[:12], shortHash([]byte(hs)))
			}
			h, prev = []byte(hs), []byte(ps)
			ev, _ := m["event"].(string)
			rs, _ := m["reason"].(string)
			dt, _ := m["detail"].(string)
			event, reason, detail = []byte(ev), []byte(rs), []byte(dt)
		}
		if !complete {
			v.rep.add(n, KindTorn, Broken, "line %d has no trailing newline: torn last line (a writer was killed mid-append)", n)
		}
		if !bytes.Equal(prev, v.lastH) {
			v.linkBroken = true
		}
		v.lastH = append(v.lastH[:0], h...)
		if complete {
			v.lastFull = append(v.lastFull[:0], h...)
		}
		if n == v.want && complete {
			v.hAt, v.hAtOK = string(h), true
		}
		switch string(event) {
		case EventStart:
			if v.markLine == 0 && string(detail) == StartDetail {
				v.markLine = n
			}
		case EventRecover:
			v.recovered(n, string(reason), string(detail))
		}
	}
}

// badLine reports a line that is not a record.
func (v *verifier) badLine(n int, complete bool, why string) {
	if !complete {
		v.rep.add(n, KindTorn, Broken, "line %d: torn last line (a writer was killed mid-append)", n)
		return
	}
	v.rep.add(n, KindMalformed, Broken, "line %d is malformed: %s", n, Escape(why))
	v.malformed, v.malIdx = n, len(v.rep.Problems)-1
}

// recovered turns an audit_recover record into the finding it preserves.
func (v *verifier) recovered(n int, reason, detail string) {
	d := Escape(detail)
	switch reason {
	case RecoverTorn:
		// The appender terminates the torn line and writes this record in
		// the same write, so the torn line is the latest malformed one.
		if v.malformed > 0 {
			p := &v.rep.Problems[v.malIdx]
			p.Kind = KindTorn
			p.Message = fmt.Sprintf("line %d: torn line (a writer was killed mid-append); the log continues at line %d", v.malformed, v.malformed+1)
			v.malformed = 0
		}
	case RecoverTruncated:
		v.rep.add(n, KindTruncated, Broken, "line %d: an appender found the log truncated: %s", n, d)
	case RecoverCheckpointMissing:
		v.rep.add(n, KindCheckpointMissing, Broken, "line %d: an appender found the checkpoint deleted: %s", n, d)
	case RecoverUncheckpointed:
		v.rep.add(n, KindCheckpointMissing, TailUnprovable, "line %d: an appender found no checkpoint, so records before line %d may have been removed from the end: %s", n, n, d)
	case RecoverCheckpointBad:
		v.rep.add(n, KindCheckpointMismatch, Broken, "line %d: an appender found the checkpoint did not match the log: %s", n, d)
	}
}

func (v *verifier) checkpoint(head *Head, headBad error) {
	rep, L := v.rep, v.lines
	switch {
	case headBad != nil:
		rep.add(0, KindCheckpointMalformed, Broken, "%s is unreadable: %s", HeadFile, Escape(headBad.Error()))
	case head == nil:
		if rep.Records == 0 {
			return
		}
		if v.markLine > 0 {
			rep.add(0, KindCheckpointMissing, Broken, "%s is missing but the log is checkpointed (audit_start at line %d): the checkpoint was deleted, so records may have been removed from the end", HeadFile, v.markLine)
		} else {
			rep.add(0, KindCheckpointMissing, TailUnprovable, "%s is missing and the log was never checkpointed: records after line %d may have been removed without trace", HeadFile, L)
		}
	case v.partial && head.Count == L+1 && string(v.lastH) == head.Last:
		// The checkpointed record lost its newline: reported as torn.
	case head.Count != L && string(v.lastFull) == head.Last:
		// The log still ends with the checkpointed record, so lines were
		// removed or added inside it: the chain findings explain that.
		if !v.linkBroken {
			rep.add(0, KindCheckpointMismatch, Broken, "the checkpoint counts %d lines but the log has %d although it ends with the checkpointed record: %s was edited", head.Count, L, HeadFile)
		}
	case head.Count > L:
		missing := head.Count - L
		if L == 0 {
			rep.add(1, KindTruncated, Broken, "%s is empty or missing but the checkpoint records %d records: all %d missing (truncated)", LogFile, head.Count, missing)
		} else {
			rep.add(L+1, KindTruncated, Broken, "the log ends after line %d but the checkpoint records %d lines: %d record(s) missing from the end (truncated)", L, head.Count, missing)
		}
	case !v.hAtOK || v.hAt != head.Last:
		got := "no record"
		if v.hAtOK {
			got = "h " + shortHash([]byte(v.hAt))
		}
		rep.add(head.Count, KindCheckpointMismatch, Broken, "the checkpoint says line %d has h %s but line %d has %s: the log was rewritten, or truncated and appended to", head.Count, shortHash([]byte(head.Last)), head.Count, got)
	case head.Count < L:
		rep.add(head.Count+1, KindCheckpointStale, TailUnprovable, "lines %d-%d come after the checkpoint (line %d; a writer was killed before updating it?): records after line %d may have been removed without trace", head.Count+1, L, head.Count, L)
	}
}

// shortHash renders a claimed hash for messages: first 12 characters, escaped.
func shortHash(h []byte) string {
	s := string(h)
	if len(s) > 12 {
		s = s[:12] + "…"
	}
	if s == "" {
		return `""`
	}
	return Escape(s)
}

// digest is a fixed-size key for a claimed hash string: the decoded SHA-256
// for well-formed values, a hash of the text otherwise, so equal strings
// give equal digests either way.
type digest [sha256.Size]byte

func digestOf(s []byte) digest {
	var d digest
	if len(s) == 2*sha256.Size && strings.Trim(string(s), hexDigits) == "" {
		if _, err := hex.Decode(d[:], s); err == nil {
			return d
		}
	}
	return sha256.Sum256(append([]byte("\x00not-hex\x00"), s...))
}

type linkEntry struct {
	h, prev digest
	ok      bool // the line is a record
}

// collectLinks re-reads the log keeping only each record's h and prev.
func collectLinks(r io.Reader) ([]linkEntry, error) {
	var out []linkEntry
	var cp canonParser
	lr := newLineReader(r)
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		h, prev, _, _, ok := recordHashes(&cp, line)
		e := linkEntry{ok: ok}
		if ok {
			e.h, e.prev = digestOf([]byte(h)), digestOf([]byte(prev))
		}
		out = append(out, e)
	}
}

// classifyLinks explains every place where a record's prev is not the h of
// the record before it, as a deletion, insertion or reordering.
func classifyLinks(rep *Report, es []linkEntry) {
	first := make(map[digest]int, len(es)) // h -> first line with it
	var dups map[digest][]int              // h -> all lines, only for repeated h
	for i, e := range es {
		if !e.ok {
			continue
		}
		if j, seen := first[e.h]; seen {
			if dups == nil {
				dups = map[digest][]int{}
			}
			if len(dups[e.h]) == 0 {
				dups[e.h] = []int{j}
			}
			dups[e.h] = append(dups[e.h], i+1)
			continue
		}
		first[e.h] = i + 1
	}
	genesis := digestOf(genesisBytes)
	lookup := func(d digest) (int, bool) {
		if d == genesis {
			return 0, true
		}
		j, ok := first[d]
		return j, ok
	}
	nextOK := func(i int) int { // line after i that is a record, 0 if none
		for k := i; k < len(es); k++ {
			if es[k].ok {
				return k + 1
			}
		}
		return 0
	}
	involved := map[int]bool{}
	p, hp := 0, genesis
	for idx, e := range es {
		i := idx + 1
		if !e.ok {
			continue
		}
		if e.prev == hp {
			p, hp = i, e.h
			continue
		}
		j, found := lookup(e.prev)
		n := nextOK(i)
		switch {
		case involved[i] || (p > 0 && involved[p]) || (found && j > 0 && involved[j]):
			// Already explained by an earlier finding.
		case len(dups[e.h]) > 1:
			other := dups[e.h][0]
			if other == i {
				other = dups[e.h][1]
			}
			rep.add(i, KindInserted, Broken, "line %d was inserted: it is a copy of line %d", i, other)
			involved[i] = true
			continue // not part of the chain: the next record should chain to line p
		case found && j > i:
			rep.add(i, KindReordered, Broken, "line %d is out of order: it chains to line %d, which comes after it", i, j)
			involved[i], involved[j] = true, true
		case n > 0 && es[n-1].prev == hp:
			rep.add(i, KindInserted, Broken, "line %d was inserted: line %d chains to %s, skipping it", i, n, lineName(p))
			involved[i] = true
			continue
		case found && j < p && n > 0 && es[n-1].prev == e.h:
			rep.add(j+1, KindInserted, Broken, "lines %d-%d were inserted: line %d chains to %s, skipping them", j+1, p, i, lineName(j))
			for k := j + 1; k <= p; k++ {
				involved[k] = true
			}
		case found && j < p:
			rep.add(i, KindInserted, Broken, "line %d was inserted: it chains to %s instead of line %d", i, lineName(j), p)
			involved[i] = true
			continue
		case p == 0:
			rep.add(i, KindDeleted, Broken, "line %d does not start the chain: the record(s) before it were deleted from the start of the log", i)
		default:
			rep.add(i, KindDeleted, Broken, "line %d does not chain to line %d: record(s) between them were deleted (or line %d was rewritten)", i, p, p)
		}
		p, hp = i, e.h
	}
}

func lineName(n int) string {
	if n == 0 {
		return "genesis"
	}
	return fmt.Sprintf("line %d", n)
}
