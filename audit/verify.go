package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Status is the overall verdict of Verify. The CLI exits with int(Status).
type Status int

const (
	// Intact: every line is a canonical record whose hash matches, the chain
	// is unbroken from genesis through every segment, and the ledger and
	// checkpoint match.
	Intact Status = 0
	// Broken: the log, a segment, the ledger or the checkpoint was altered
	// (or a writer was killed mid-append); see Report.Problems.
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
	kindEdited              = "edited"               // a record's content does not match its h
	kindNonCanonical        = "noncanonical"         // content matches h but the bytes were re-encoded
	kindDeleted             = "deleted"              // a record is missing before this line
	kindInserted            = "inserted"             // this line does not belong in the chain
	kindReordered           = "reordered"            // lines are out of order
	kindTruncated           = "truncated"            // records are missing from the end (of the log or a segment)
	kindMalformed           = "malformed"            // not a JSON audit record (or ledger line)
	KindTorn                = "torn"                 // partial line left by a killed writer
	kindCheckpointMissing   = "checkpoint-missing"   // audit.head is (or was) missing
	kindCheckpointMismatch  = "checkpoint-mismatch"  // audit.head names a different record
	kindCheckpointMalformed = "checkpoint-malformed" // audit.head cannot be parsed
	KindCheckpointStale     = "checkpoint-stale"     // lines after the checkpoint are unproven

	kindSegmentMissing      = "segment-missing"      // a segment the ledger lists is gone
	kindSegmentUnlisted     = "segment-unlisted"     // a segment file the ledger does not list
	kindLedgerEdited        = "ledger-edited"        // a ledger line was changed, or rewritten and rehashed
	kindLedgerPruned        = "ledger-pruned"        // ledger lines are missing
	kindLedgerReordered     = "ledger-reordered"     // ledger lines are out of order or repeated
	kindLedgerMismatch      = "ledger-mismatch"      // a segment is not what its ledger line says
	kindBoundary            = "segment-boundary"     // the chain breaks where one file ends and the next begins
	kindRotationInterrupted = "rotation-interrupted" // a writer was killed mid-rotation; the next append finishes it

	// Signatures (see SignConfig and verify_sign.go).
	kindUnsigned     = sigUnsigned  // a record, ledger line or checkpoint that must be signed is not
	kindBadSignature = sigBad       // a signature does not verify with the configured key
	kindWrongAlg     = sigWrongAlg  // signed with another algorithm than AIRLOCK_SIGN says
	kindKeyAbsent    = sigKeyAbsent // AIRLOCK_SIGN is set but the key to verify with is not there

	// External anchors (see anchor.go).
	kindAnchorMismatch = "anchor-mismatch"   // the log has another h at an anchored count: rewritten
	kindAnchorBeyond   = "anchor-beyond-log" // an anchor counts more records than the log has: truncated or rolled back
	kindAnchorForeign  = "anchor-foreign"    // anchors for this home's path under another install id: install.id replaced
	kindNotRegular     = "not-a-file"        // a file of the log is a FIFO, device or directory
	kindAnchorFile     = "anchor-file"       // the anchor file itself was edited, reordered or torn
)

// Problem is one finding of Verify.
type Problem struct {
	Line     int    `json:"line,omitempty"` // 1-based line of File; 0 if not about one line
	Kind     string `json:"kind"`           // one of the Kind* constants
	Message  string `json:"message"`        // human-readable, names the line; file text in it is Escape'd
	Severity Status `json:"severity"`       // Broken or TailUnprovable
	File     string `json:"file"`           // LogFile, a segment's name, LedgerFile, HeadFile or AnchorFile
	Pos      int64  `json:"pos,omitempty"`  // the line's position in the whole chain (what a seal names), 0 if not about a line of the log
}

// Report is the result of Verify.
type Report struct {
	Records  int       `json:"records"`  // lines examined in every file (a trailing partial line counts)
	Segments int       `json:"segments"` // rotated segment files walked before the live file
	Status   Status    `json:"status"`   // worst Severity of Problems, Intact if none
	Verdict  string    `json:"verdict"`  // Status.String()
	Problems []Problem `json:"problems"` // in chain order: ledger, segments, live file, checkpoint, anchors
	Head     *Head     `json:"head"`     // the checkpoint as read, nil if missing or unreadable

	Signing   string `json:"signing,omitempty"`    // the alg signatures were checked with, "" if not checked
	SignKey   string `json:"sign_key,omitempty"`   // the key file they were checked with
	Unsigned  int    `json:"unsigned,omitempty"`   // records before the first sign_start (allowed unsigned)
	AnchorDir string `json:"anchor_dir,omitempty"` // where anchors were read, "" if none configured
	Anchors   int    `json:"anchors"`              // anchors of this home checked
	Total     int64  `json:"total"`                // newline-terminated lines of the whole chain, as anchors count them
	Last      string `json:"last,omitempty"`       // claimed h of the chain's last record

	// Strength says in one sentence what this verdict protects against
	// and what it does not, given the signing and anchors configured.
	Strength string   `json:"strength"`
	Notes    []string `json:"notes,omitempty"` // information that is not a problem
	// Warnings are findings that leave Status intact: an unconfirmed tail
	// a killed writer left, a break a seal record names (verify_tail.go).
	Warnings []warning `json:"warnings,omitempty"`
}

// Verify checks the audit chain in home: the ledger of rotated segments,
// every segment in ledger order and then the live audit.jsonl (every line's
// hash, the chain from genesis across every segment boundary, each segment
// against its ledger line), and the checkpoint. It returns an error only
// for I/O problems that stop verification entirely; everything wrong with
// the log itself is reported in the Report.
//
// Verify reads one line at a time (memory does not grow with the log), and
// re-reads a file to explain a broken link only within that file. It takes
// the append lock only long enough to snapshot the checkpoint, the ledger,
// the segment names and the live file's size, then verifies that snapshot
// while appenders carry on. If the lock file cannot be opened (for example
// a read-only copy of the directory), it verifies without it.
//
// Verify reads the signing and anchor configuration from the environment
// (AIRLOCK_SIGN and its keys, AIRLOCK_ANCHOR_DIR): it is VerifyWith with
// zero options.
func Verify(home string) (*Report, error) {
	return VerifyWith(home, VerifyOptions{})
}

// VerifyWith is Verify with explicit options; see verify_sign.go for what
// signatures and anchors add.
func VerifyWith(home string, o VerifyOptions) (*Report, error) {
	getenv := withSign(o.Getenv, o.Sign)
	// A signing configuration that cannot be loaded (an unknown mode, an
	// unreadable or malformed key) is a finding, not an I/O failure: the
	// signatures cannot be checked, which must not read as intact.
	cfg, cfgErr := loadVerifyConfig(home, getenv)
	anchorDir := o.AnchorDir
	if anchorDir == "" {
		anchorDir = getenv(AnchorDirEnv)
	}
	snap, err := takeSnapshot(home)
	if err != nil {
		return nil, fmt.Errorf("audit: verify: %w", err)
	}
	defer snap.close()
	genesis, err := readGenesis(home)
	if err != nil {
		return nil, fmt.Errorf("audit: verify: %w", err)
	}
	rep := &Report{Head: snap.head, AnchorDir: anchorDir}
	v := &verifier{rep: rep, base: map[string]int64{}}
	v.initSig(cfg)
	if cfgErr != nil {
		v.addIn(LogFile, 0, kindKeyAbsent, Broken, "signatures cannot be checked: %s", textsafe.Escape(cfgErr.Error()))
	}
	an, err := v.loadAnchors(home, anchorDir)
	if err != nil {
		return nil, fmt.Errorf("audit: verify: %w", err)
	}
	v.file = LedgerFile
	led := v.checkLedger(snap.ledger)
	v.bySeq, v.ledgerLine = led.bySeq, led.lineOf
	items := walkOrder(led.entries, snap.segFiles)
	target := headTarget(snap, led, items)
	v.target = target
	v.lastH = append(v.lastH[:0], genesisBytes...)
	var targetState, liveState *fileState
	for idx := range items {
		want := 0
		if idx == target {
			want = snap.head.Count
		}
		st, err := v.walkFile(home, snap, items, idx, want)
		if err != nil {
			return nil, fmt.Errorf("audit: verify: %w", err)
		}
		if idx == target {
			targetState = st
		}
		liveState = st
	}
	v.checkpoint(snap, led, items, target, targetState, liveState)
	v.checkGenesis(genesis, snap)
	v.applySeals(home)
	v.checkHeadSig(snap.head)
	v.checkAnchors(an)
	rep.Total, rep.Last = v.pos, string(v.lastH)
	v.finishNotes()
	sortProblems(rep, items)
	for _, p := range rep.Problems {
		switch {
		case p.Severity == Broken:
			rep.Status = Broken
		case p.Severity == TailUnprovable && rep.Status == Intact:
			rep.Status = TailUnprovable
		}
	}
	rep.Verdict = rep.Status.String()
	rep.Strength = strength(rep, v.sig.cfg, an)
	return rep, nil
}

// headTarget returns the index of the walk item the checkpoint's line
// belongs to, or -1 if there is none.
func headTarget(snap *snapshot, led *ledgerCheck, items []walkItem) int {
	h := snap.head
	live := len(items) - 1
	switch {
	case h == nil:
		return -1
	case h.Segments >= led.maxSeq:
		// A rotation that was killed after moving the live file aside and
		// before listing it: the checkpoint still names the moved file.
		if snap.liveSize == 0 && live > 0 && items[live-1].entry == nil && h.Segments == led.maxSeq {
			return live - 1
		}
		return live
	}
	for i, it := range items {
		if it.entry != nil && it.entry.Seq == h.Segments+1 {
			return i
		}
	}
	return -1
}

// sortProblems orders findings by file in chain order (ledger, segments,
// live file, checkpoint) and by line within a file, line 0 last.
func sortProblems(rep *Report, items []walkItem) {
	rank := map[string]int{LedgerFile: 0}
	for i, it := range items {
		rank[it.name] = i + 1
	}
	rank[headFile] = len(items) + 1
	rank[anchorFile] = len(items) + 2
	const last = int(^uint(0) >> 1)
	key := func(p Problem) (int, int) {
		r, ok := rank[p.File]
		if !ok {
			r = len(items) + 1
		}
		if p.Line == 0 {
			return r, last
		}
		return r, p.Line
	}
	sort.SliceStable(rep.Problems, func(i, j int) bool {
		ri, li := key(rep.Problems[i])
		rj, lj := key(rep.Problems[j])
		if ri != rj {
			return ri < rj
		}
		return li < lj
	})
}

// fileState is what the walk learned about one file.
type fileState struct {
	name       string
	lines      int    // newline-terminated lines
	records    int    // lines examined, a trailing partial line included
	lastFull   []byte // claimed h of the last newline-terminated record
	firstPrev  []byte // prev of the first record
	hasRecord  bool
	partial    bool // the file ends without a newline
	hAt        string
	hAtOK      bool
	linkBroken bool
}

type verifier struct {
	rep   *Report
	cp    canonParser
	bySeq map[int]ledgerEntry

	// across files
	lastH    []byte // claimed h of the last record (the chain so far)
	markFile string // where the first checkpointed mark is
	markLine int
	markWhat string
	prevItem *walkItem
	target   int // walk index of the file the checkpoint names a line of

	firstH       []byte // h of the chain's first record (line 1 of the first file), nil if none
	firstFile    string
	firstGenesis bool             // its prev is Genesis
	wantFirst    bool             // the file being walked is the first of the chain
	base         map[string]int64 // file -> lines of the chain before it
	seals        []sealRec

	ledgerLine map[int]int // ledger seq -> line of audit.chain
	sig        sigCheck
	pos        int64            // newline-terminated lines so far in the whole chain
	wantH      map[int64]bool   // positions anchors name
	gotH       map[int64]string // claimed h at those positions

	// the file being walked
	file      string
	live      bool
	fs        *fileState
	want      int // the line whose h the checkpoint names, 0 if not in this file
	malformed int // line of the most recent malformed-line problem (for torn recovery)
	malIdx    int
}

var genesisBytes = []byte(Genesis)

// add records a finding about line n of the file being walked.
func (v *verifier) add(n int, kind string, sev Status, format string, args ...any) {
	v.addIn(v.file, n, kind, sev, format, args...)
}

func (v *verifier) addIn(file string, n int, kind string, sev Status, format string, args ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{File: file, Line: n, Kind: kind, Message: fmt.Sprintf(format, args...), Severity: sev})
}

// loc names line n of the file being walked: "line n" in the live file,
// "line n of <segment>" elsewhere.
func (v *verifier) loc(n int) string {
	return fmt.Sprintf("line %d%s", n, v.ofFile())
}

func (v *verifier) ofFile() string {
	if v.live {
		return ""
	}
	return " of " + v.file
}

// walkFile verifies one file of the walk and, for a segment, compares it
// with its ledger line.
func (v *verifier) walkFile(home string, snap *snapshot, items []walkItem, idx, want int) (*fileState, error) {
	it := items[idx]
	st := &fileState{name: it.name}
	v.file, v.live, v.fs, v.want, v.malformed = it.name, it.live, st, want, 0
	defer func() { v.prevItem = &items[idx] }()
	if !it.live && !it.exists {
		e := it.entry
		v.add(0, kindSegmentMissing, Broken, "%s lists segment %s (entry %d, %d records) but the file is gone: the segment was deleted", LedgerFile, textsafe.Escape(e.Segment), e.Seq, e.Count)
		v.lastH = append(v.lastH[:0], e.Last...)
		v.pos += int64(e.Count)
		v.checkLedgerSig(e)
		return st, nil
	}
	if it.live && snap.live == nil {
		return st, nil
	}
	f, size, err := snap.openItem(home, it)
	if errors.Is(err, errNotRegular) && !it.live {
		// planted: a FIFO, device or directory where a segment should be
		v.add(0, kindNotRegular, Broken, "%s is not a regular file (a FIFO, device or directory was put in its place): %s", textsafe.Escape(it.name), textsafe.Escape(err.Error()))
		if it.entry != nil {
			v.lastH = append(v.lastH[:0], it.entry.Last...)
			v.pos += int64(it.entry.Count)
		}
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if !it.live {
		defer f.Close()
		v.rep.Segments++
	}
	start := chainStart{h: digestOf(v.lastH), first: idx == 0}
	if v.prevItem != nil {
		start.prevFile = v.prevItem.name
	}
	v.wantFirst = idx == 0
	v.base[it.name] = v.pos
	if err := v.pass1(io.NewSectionReader(f, 0, size)); err != nil {
		return nil, fmt.Errorf("%s: %w", it.name, err)
	}
	if st.linkBroken {
		entries, err := collectLinks(io.NewSectionReader(f, 0, size))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.name, err)
		}
		v.classifyLinks(entries, start)
	}
	if e := it.entry; e != nil {
		v.compareLedger(e, st)
		v.checkLedgerSig(e)
	} else if !it.live && idx != v.target {
		// (The checkpoint's target is judged in checkpoint: it may be a
		// rotation a killed writer left half done.)
		v.add(0, kindSegmentUnlisted, Broken, "%s is not listed in %s: its ledger line was removed, or the file was planted", textsafe.Escape(it.name), LedgerFile)
	}
	return st, nil
}

// compareLedger checks a segment against its ledger line. When the
// segment's end differs, the walk continues from the end the ledger
// records, so the next file is judged against the ledger, not the damage.
func (v *verifier) compareLedger(e *ledgerEntry, st *fileState) {
	last := string(st.lastFull)
	switch {
	case last != e.Last && st.lines < e.Count:
		v.add(st.lines+1, kindTruncated, Broken, "%s ends after line %d but its ledger line (entry %d) records %d lines: %d record(s) missing from its end (truncated)", v.file, st.lines, e.Seq, e.Count, e.Count-st.lines)
	case last != e.Last:
		v.add(0, kindLedgerMismatch, Broken, "%s ends with h %s after %d lines but its ledger line (entry %d) records h %s after %d lines: the segment was changed after rotation", v.file, shortHash(st.lastFull), st.lines, e.Seq, shortHash([]byte(e.Last)), e.Count)
	case st.lines != e.Count && !st.linkBroken:
		v.add(0, kindLedgerMismatch, Broken, "%s has %d lines but its ledger line (entry %d) records %d", v.file, st.lines, e.Seq, e.Count)
	case st.hasRecord && !st.linkBroken && string(st.firstPrev) != e.FirstPrev:
		v.add(0, kindLedgerMismatch, Broken, "%s starts from h %s but its ledger line (entry %d) says %s", v.file, shortHash(st.firstPrev), e.Seq, shortHash([]byte(e.FirstPrev)))
	}
	v.lastH = append(v.lastH[:0], e.Last...)
}

func (v *verifier) pass1(r io.Reader) error {
	st := v.fs
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
		st.records++
		v.rep.Records++
		if complete {
			st.lines++
			v.pos++
		} else {
			st.partial = true
		}
		var h, prev, event, reason, detail, alg, sig []byte
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
				v.add(n, kindEdited, Broken, "%s was edited: its content hashes to %s but its h is %s", v.loc(n), sumHex[:12], shortHash(h))
			}
			prev = f.prev
			if bytes.IndexByte(prev, '\\') >= 0 {
				prev = []byte(stringValue(prev))
			}
			event, reason, detail, alg, sig = f.event, f.reason, f.detail, f.alg, f.sig
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
				v.add(n, kindMalformed, Broken, "%s cannot be hashed: %v", v.loc(n), herr)
			case sum == hs:
				v.add(n, kindNonCanonical, Broken, "%s was re-encoded: its content still matches its h but its bytes are not the canonical encoding that was written", v.loc(n))
			default:
				v.add(n, kindEdited, Broken, "%s was edited: its content hashes to %s but its h is %s", v.loc(n), sum[:12], shortHash([]byte(hs)))
			}
			h, prev = []byte(hs), []byte(ps)
			ev, _ := m["event"].(string)
			rs, _ := m["reason"].(string)
			dt, _ := m["detail"].(string)
			as, _ := m["alg"].(string)
			ss, _ := m["sig"].(string)
			event, reason, detail, alg, sig = []byte(ev), []byte(rs), []byte(dt), []byte(as), []byte(ss)
		}
		if complete && v.wantH[v.pos] {
			v.gotH[v.pos] = string(h)
		}
		v.recordSig(n, h, event, alg, sig)
		if !complete {
			v.add(n, KindTorn, Broken, "%s has no trailing newline: torn last line (a writer was killed mid-append)", v.loc(n))
		}
		if !bytes.Equal(prev, v.lastH) {
			st.linkBroken = true
		}
		if !st.hasRecord {
			st.hasRecord = true
			st.firstPrev = append(st.firstPrev[:0], prev...)
		}
		v.lastH = append(v.lastH[:0], h...)
		if complete {
			st.lastFull = append(st.lastFull[:0], h...)
		}
		if n == 1 && v.wantFirst {
			v.firstH, v.firstFile, v.firstGenesis = bytes.Clone(h), v.file, bytes.Equal(prev, genesisBytes)
		}
		if n == v.want && complete {
			st.hAt, st.hAtOK = string(h), true
		}
		switch string(event) {
		case EventStart:
			if string(detail) == StartDetail {
				v.mark(n, EventStart)
			}
		case eventSegmentStart:
			v.mark(n, eventSegmentStart)
			v.segmentStart(n, string(detail))
		case EventRecover:
			v.recovered(n, string(reason), string(detail))
		case eventSeal:
			v.sealed(n, string(reason), string(detail))
		}
	}
}

// mark remembers the first record saying the log is checkpointed.
func (v *verifier) mark(n int, what string) {
	if v.markLine == 0 {
		v.markFile, v.markLine, v.markWhat = v.file, n, what
	}
}

// segmentStart checks that a segment_start names the ledger line of the
// segment before it, as the ledger has it.
func (v *verifier) segmentStart(n int, detail string) {
	seg, seq, lh, ok := parseSegmentStart(detail)
	if !ok {
		v.add(n, kindLedgerMismatch, Broken, "%s is a segment_start that names no ledger line", v.loc(n))
		return
	}
	e, found := v.bySeq[seq]
	switch {
	case !found:
		v.add(n, kindLedgerPruned, Broken, "%s is the segment_start after %s, ledger entry %d, which %s no longer has: ledger lines were removed", v.loc(n), textsafe.Escape(seg), seq, LedgerFile)
	case e.H != lh || e.Segment != seg:
		v.add(n, kindLedgerEdited, Broken, "%s is the segment_start after %s, ledger entry %d with h %s, but %s has %s with h %s there: the ledger was rewritten", v.loc(n), textsafe.Escape(seg), seq, shortHash([]byte(lh)), LedgerFile, textsafe.Escape(e.Segment), shortHash([]byte(e.H)))
	case v.prevItem != nil && v.prevItem.entry != nil && v.prevItem.exists && v.prevItem.entry.Seq != seq:
		v.add(n, kindLedgerMismatch, Broken, "%s is the segment_start after %s (entry %d) but follows %s (entry %d)", v.loc(n), textsafe.Escape(seg), seq, textsafe.Escape(v.prevItem.name), v.prevItem.entry.Seq)
	}
}

// badLine reports a line that is not a record.
func (v *verifier) badLine(n int, complete bool, why string) {
	if !complete {
		v.add(n, KindTorn, Broken, "%s: torn last line (a writer was killed mid-append)", v.loc(n))
		return
	}
	v.add(n, kindMalformed, Broken, "%s is malformed: %s", v.loc(n), textsafe.Escape(why))
	v.malformed, v.malIdx = n, len(v.rep.Problems)-1
}

// recovered turns an audit_recover record into the finding it preserves.
func (v *verifier) recovered(n int, reason, detail string) {
	d := textsafe.Escape(detail)
	switch reason {
	case recoverTorn:
		// The appender terminates the torn line and writes this record in
		// the same write, so the torn line is the latest malformed one.
		if v.malformed > 0 {
			p := &v.rep.Problems[v.malIdx]
			p.Kind = KindTorn
			p.Message = fmt.Sprintf("%s: torn line (a writer was killed mid-append); the log continues at line %d", v.loc(v.malformed), v.malformed+1)
			if why := tornReason(detail); why != "" {
				p.Message = fmt.Sprintf("%s: torn: %s (an append failed part-way: its cause is in the audit_recover at line %d); the log continues at line %d", v.loc(v.malformed), why, n, v.malformed+1)
			}
			v.malformed = 0
		}
	case recoverTruncated:
		v.add(n, kindTruncated, Broken, "%s: an appender found the log truncated: %s", v.loc(n), d)
	case recoverCheckpointMissing:
		v.add(n, kindCheckpointMissing, Broken, "%s: an appender found the checkpoint deleted: %s", v.loc(n), d)
	case recoverUncheckpointed:
		v.add(n, kindCheckpointMissing, TailUnprovable, "%s: an appender found no checkpoint, so records before line %d may have been removed from the end: %s", v.loc(n), n, d)
	case recoverCheckpointBad:
		v.add(n, kindCheckpointMismatch, Broken, "%s: an appender found the checkpoint did not match the log: %s", v.loc(n), d)
	}
}
