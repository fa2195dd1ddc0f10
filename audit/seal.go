package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Sealing is the documented way back from a break that is understood — a
// line torn by a full disk, a record an editor mangled — that keeps the
// evidence. Seal appends an audit_seal record that names each break by its
// position in the whole chain, its kind and the SHA-256 of the line as it
// is, and rotates the file that holds them out (it stays on disk as a
// segment, listed in the ledger), so the chain goes on in a new live file.
// Verify then reports each sealed break as a warning (kind sealed-break)
// that names the file, the line and the seal, in every later run; the
// verdict is intact if nothing else is wrong. What a seal does not cover
// stays broken: a sealed line changed after the seal (its digest differs),
// the seal record itself edited (its h), any break after it.
//
// A seal is a person's decision, made with `airlock audit seal --reason`,
// never automatic: an appender that sealed every torn tail by itself would
// turn anyone's "append a partial line" into a warning.
const eventSeal = "audit_seal"

// recoverBeforeSeal is the reason of the audit_recover record Seal writes
// when the live file needs recovery first (a torn last line, a stale
// checkpoint): the appender repairs the file in that write, so the seal
// that follows can rotate it out. It is no finding.
const recoverBeforeSeal = "before-seal"

// ErrNothingToSeal is returned by Seal for a log with no break to seal.
var ErrNothingToSeal = errors.New("audit: seal: nothing to seal: the log is intact")

// sealResult says what Seal did.
type sealResult struct {
	Sealed  []Problem // the breaks the seal names, as Verify reported them
	Record  Record    // the audit_seal record as written
	Segment string    // the segment the sealed live file became, "" if it was not rotated
}

// sealEntry is one break a seal names.
type sealEntry struct {
	pos  int64 // 1-based line in the whole chain
	kind string
	sum  string // hex SHA-256 of the line's bytes (without its newline)
}

// Seal seals every break Verify reports in the files of the log (see
// EventSeal). It refuses when a finding is not about a line of the log
// (the ledger, the checkpoint, a missing segment, anchors): those are not
// kept in a file a seal can pin, and must be explained first.
func Seal(home, reason string) (*sealResult, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, errors.New("audit: seal: a reason is required: say what broke the log (it is kept in the seal record)")
	}
	rep, err := Verify(home)
	if err != nil {
		return nil, err
	}
	if rep.Status == Intact {
		return nil, ErrNothingToSeal
	}
	l, err := Open(home)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if needsRecovery(rep) {
		r := Record{Event: EventRecover, Source: "cli", Reason: recoverBeforeSeal, Detail: "repairing the live file before sealing it"}
		if _, err := l.Append(r); err != nil {
			return nil, fmt.Errorf("audit: seal: %w", err)
		}
		if rep, err = Verify(home); err != nil {
			return nil, err
		}
	}
	var entries []sealEntry
	var refuse []string
	res := &sealResult{}
	sums := map[string]map[int]string{} // file -> line -> digest, read once per file
	for _, p := range rep.Problems {
		if p.Pos == 0 {
			refuse = append(refuse, fmt.Sprintf("%s: %s: %s", p.File, p.Kind, p.Message))
			continue
		}
		if sums[p.File] == nil {
			sums[p.File] = map[int]string{}
		}
		sums[p.File][p.Line] = ""
	}
	for file, lines := range sums {
		if err := lineDigests(home, file, lines); err != nil {
			return nil, fmt.Errorf("audit: seal: %w", err)
		}
	}
	for _, p := range rep.Problems {
		if p.Pos == 0 {
			continue
		}
		sum := sums[p.File][p.Line]
		if sum == "" {
			return nil, fmt.Errorf("audit: seal: %s has no line %d any more", p.File, p.Line)
		}
		entries = append(entries, sealEntry{pos: p.Pos, kind: p.Kind, sum: sum})
		res.Sealed = append(res.Sealed, p)
	}
	if len(refuse) > 0 {
		return nil, fmt.Errorf("audit: seal: %d finding(s) are not about a line of the log and cannot be sealed; explain or repair them first:\n  %s", len(refuse), strings.Join(refuse, "\n  "))
	}
	if len(entries) == 0 {
		return nil, ErrNothingToSeal
	}
	before := lastSegment(home)
	for _, p := range res.Sealed {
		// rotate the live file out only when it holds a break
		l.rotateNow = l.rotateNow || p.File == LogFile
	}
	rec, err := l.Append(Record{Event: eventSeal, Source: "cli", Reason: reason, Detail: sealDetail(entries)})
	if err != nil && !errors.Is(err, ErrCheckpoint) && !errors.Is(err, ErrAnchor) {
		return nil, fmt.Errorf("audit: seal: %w", err)
	}
	res.Record = rec
	if after := lastSegment(home); after != before {
		res.Segment = after
	}
	return res, err
}

// needsRecovery reports whether the next append would take the recovery
// path (which does not rotate): something is wrong at the end of the live
// file or with the checkpoint.
func needsRecovery(rep *Report) bool {
	if rep.Head == nil || rep.Head.Last != rep.Last || len(rep.Warnings) > 0 {
		return true
	}
	for _, p := range rep.Problems {
		if p.File == LogFile || p.File == headFile {
			return true
		}
	}
	return false
}

func lastSegment(home string) string {
	li, err := readLedger(home)
	if err != nil {
		return ""
	}
	if e := li.last(); e != nil {
		return e.Segment
	}
	return ""
}

// sealDetail encodes entries as "breaks=<pos>/<kind>/<sha256>,…".
func sealDetail(es []sealEntry) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d/%s/%s", e.pos, e.kind, e.sum)
	}
	return "breaks=" + strings.Join(parts, ",")
}

func parseSealDetail(detail string) []sealEntry {
	list, ok := strings.CutPrefix(detail, "breaks=")
	if !ok {
		return nil
	}
	var out []sealEntry
	for part := range strings.SplitSeq(list, ",") {
		f := strings.Split(part, "/")
		if len(f) != 3 || !isHexDigest(f[2]) {
			continue
		}
		pos, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || pos < 1 {
			continue
		}
		out = append(out, sealEntry{pos: pos, kind: f[1], sum: f[2]})
	}
	return out
}

// sealRec is an audit_seal record the walk met.
type sealRec struct {
	pos     int64
	file    string
	line    int
	reason  string
	entries []sealEntry
}

// sealed remembers the audit_seal at line n of the file being walked.
func (v *verifier) sealed(n int, reason, detail string) {
	v.seals = append(v.seals, sealRec{pos: v.pos, file: v.file, line: n, reason: reason, entries: parseSealDetail(detail)})
}

// applySeals gives every finding about a line its position in the whole
// chain, and turns those a later seal names — same position, same kind,
// the line still the bytes that were sealed — into sealed-break warnings.
// The seal records come from the log itself, so the work is bounded: the
// entries are indexed by position, and each file is read once for the
// digests of all its candidate lines.
func (v *verifier) applySeals(home string) {
	type cand struct {
		seal *sealRec
		sum  string
	}
	byPos := map[int64][]cand{} // position -> seals naming it (with the kind checked below)
	want := map[string]map[int]string{}
	for i := range v.rep.Problems {
		p := &v.rep.Problems[i]
		if base, ok := v.base[p.File]; ok && p.Line > 0 {
			p.Pos = base + int64(p.Line)
		}
	}
	if len(v.seals) == 0 {
		return
	}
	index := map[int64][]cand{}
	for i := range v.seals {
		s := &v.seals[i]
		for _, e := range s.entries {
			if e.pos < s.pos {
				index[e.pos] = append(index[e.pos], cand{seal: s, sum: e.sum + "/" + e.kind})
			}
		}
	}
	for _, p := range v.rep.Problems {
		if cs := index[p.Pos]; p.Pos > 0 && len(cs) > 0 {
			byPos[p.Pos] = cs
			if want[p.File] == nil {
				want[p.File] = map[int]string{}
			}
			want[p.File][p.Line] = ""
		}
	}
	for file, lines := range want {
		if err := lineDigests(home, file, lines); err != nil {
			return // unreadable now: nothing is demoted
		}
	}
	kept := v.rep.Problems[:0]
	for _, p := range v.rep.Problems {
		var by *sealRec
		for _, c := range byPos[p.Pos] {
			if sum := want[p.File][p.Line]; sum != "" && c.sum == sum+"/"+p.Kind {
				by = c.seal
				break
			}
		}
		if by == nil {
			kept = append(kept, p)
			continue
		}
		v.warn(warning{File: p.File, Line: p.Line, Kind: KindSealedBreak,
			Message: fmt.Sprintf("sealed break: line %d of %s: %s: %s; sealed by the audit_seal at line %d of %s: %s", p.Line, textsafe.Escape(p.File), p.Kind, p.Message, by.line, textsafe.Escape(by.file), textsafe.Escape(by.reason))})
	}
	v.rep.Problems = kept
}

// lineDigests fills lines (line number -> "") with the hex SHA-256 of each
// of those lines of file, in one read.
func lineDigests(home, file string, lines map[int]string) error {
	f, err := openRegular(filepath.Join(home, file), os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer f.Close()
	lr := newLineReader(f)
	for i, left := 1, len(lines); left > 0; i++ {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		if _, ok := lines[i]; ok {
			sum := sha256.Sum256(line)
			lines[i] = hex.EncodeToString(sum[:])
			left--
		}
	}
	return nil
}
