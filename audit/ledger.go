package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LedgerFile lists the rotated segments, one line per rotation, oldest
// first. It is a hash chain of its own, encoded like the log: canonical JSON,
// h over every other member, prev the h of the line before (Genesis for the
// first), so a line edited, removed or moved is detected.
const LedgerFile = "audit.chain"

// eventSegmentStart is the first record of a live file created by a
// rotation. It chains to the last record of the segment it follows and names
// that segment's ledger line (see SegmentStartDetail), so the log and the
// ledger vouch for each other: dropping a segment, a ledger line, or both
// breaks one or the other.
const eventSegmentStart = "segment_start"

// recoverRotation is the reason of the audit_recover record an appender
// writes when it finished a rotation that a killed appender had started.
// It is a note, not a finding: nothing was lost.
const recoverRotation = "rotation-resumed"

// ledgerEntry is one line of audit.chain: the segment a rotation produced.
type ledgerEntry struct {
	Seq       int    `json:"seq"`           // 1 for the first rotation, then +1
	Segment   string `json:"segment"`       // file name of the segment, in the audit home
	Count     int    `json:"count"`         // lines in the segment
	FirstPrev string `json:"first_prev"`    // prev of the segment's first record
	Last      string `json:"last"`          // h of the segment's last record
	Time      string `json:"ts"`            // when the segment was rotated out
	Prev      string `json:"prev"`          // h of the previous ledger line, Genesis for the first
	H         string `json:"h"`             // SHA-256 of the canonical line without h (and sig/alg)
	Alg       string `json:"alg,omitempty"` // signature algorithm, when the rotating appender signed
	Sig       string `json:"sig,omitempty"` // signature of LedgerSigningInput(H)
}

// segmentStartDetail is the Detail of the segment_start record that opens
// the live file after the rotation e.
func segmentStartDetail(e ledgerEntry) string {
	return fmt.Sprintf("segment=%s seq=%d ledger=%s", e.Segment, e.Seq, e.H)
}

// parseSegmentStart reads a segment_start detail back.
func parseSegmentStart(detail string) (segment string, seq int, ledgerH string, ok bool) {
	for f := range strings.FieldsSeq(detail) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "segment":
			segment = v
		case "seq":
			n, err := strconv.Atoi(v)
			if err != nil {
				return "", 0, "", false
			}
			seq = n
		case "ledger":
			ledgerH = v
		}
	}
	return segment, seq, ledgerH, segment != "" && seq > 0 && ledgerH != ""
}

func segmentStartRecord(e ledgerEntry) Record {
	return Record{Event: eventSegmentStart, Detail: segmentStartDetail(e)}
}

// encodeLedger returns the canonical line of e (without newline) with its h,
// and e with H set.
func encodeLedger(e ledgerEntry, signer signer) ([]byte, ledgerEntry, error) {
	e.H, e.Alg, e.Sig = "", "", ""
	raw, err := json.Marshal(e)
	if err != nil {
		return nil, e, fmt.Errorf("marshal ledger entry: %w", err)
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil, e, fmt.Errorf("re-decode ledger entry: %w", err)
	}
	h, err := hashObject(m)
	if err != nil {
		return nil, e, fmt.Errorf("hash ledger entry: %w", err)
	}
	m["h"] = h
	if signer != nil {
		// The ledger is a chain of its own: its lines are signed like
		// records (with their own domain tag), so a ledger rewritten and
		// rehashed without the key is detected line by line.
		if e.Alg, e.Sig, err = signLedger(signer, h); err != nil {
			return nil, e, err
		}
		m["alg"], m["sig"] = e.Alg, e.Sig
	}
	line, err := appendCanonical(nil, m, 0)
	if err != nil {
		return nil, e, fmt.Errorf("encode ledger entry: %w", err)
	}
	e.H = h
	return line, e, nil
}

// validSegmentName reports whether name can be a segment of this package:
// a plain file name (never a path: the ledger is untrusted input) of the
// form audit-*.jsonl.
func validSegmentName(name string) bool {
	return strings.HasPrefix(name, "audit-") && strings.HasSuffix(name, ".jsonl") &&
		len(name) > len("audit-.jsonl") && filepath.Base(name) == name &&
		!strings.ContainsAny(name, `/\`+"\x00") && name != LogFile
}

// parseLedgerEntry decodes a ledger line without checking its hash.
func parseLedgerEntry(line []byte) (ledgerEntry, error) {
	var e ledgerEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return e, fmt.Errorf("invalid JSON: %w", err)
	}
	switch {
	case e.Seq < 1:
		return e, fmt.Errorf("seq %d is not a positive number", e.Seq)
	case !validSegmentName(e.Segment):
		return e, fmt.Errorf("segment %q is not a segment file name", e.Segment)
	case !isHexDigest(e.Last) || !isHexDigest(e.FirstPrev) || !isHexDigest(e.Prev) || !isHexDigest(e.H):
		return e, errors.New("prev, h, first_prev and last must be sha256 hex digests")
	case e.Count < 1:
		return e, fmt.Errorf("count %d is not a positive number", e.Count)
	}
	return e, nil
}

// ledgerInfo is the lenient reading of audit.chain the append path needs:
// the entries that parse, in file order, unverified.
type ledgerInfo struct {
	entries []ledgerEntry
	partial bool // the file ends without a newline (a writer was killed)
}

func (li *ledgerInfo) last() *ledgerEntry {
	if len(li.entries) == 0 {
		return nil
	}
	return &li.entries[len(li.entries)-1]
}

// readLedger reads audit.chain; a missing file is an empty ledger. The
// ledger has one short line per rotation, so it is read whole.
func readLedger(home string) (ledgerInfo, error) {
	b, err := readRegular(filepath.Join(home, LedgerFile), maxLedgerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return ledgerInfo{}, nil
	}
	if err != nil {
		return ledgerInfo{}, fmt.Errorf("read %s: %w", LedgerFile, err)
	}
	return parseLedger(b), nil
}

func parseLedger(b []byte) ledgerInfo {
	var li ledgerInfo
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			li.partial = true
			break
		}
		if e, err := parseLedgerEntry(b[:i]); err == nil {
			li.entries = append(li.entries, e)
		}
		b = b[i+1:]
	}
	return li
}

// appendLedger appends e (Seq, Prev and Time already set) to audit.chain
// with one write, terminating a torn last line first, and returns e with H.
func appendLedger(home string, e ledgerEntry, partial, sync bool, signer signer) (ledgerEntry, error) {
	line, e, err := encodeLedger(e, signer)
	if err != nil {
		return e, err
	}
	var buf []byte
	if partial {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	f, err := openRegular(filepath.Join(home, LedgerFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return e, fmt.Errorf("open %s: %w", LedgerFile, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		if err := restrictMode(f, st); err != nil {
			return e, err
		}
	}
	if _, err := f.Write(buf); err != nil {
		return e, fmt.Errorf("write %s: %w", LedgerFile, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return e, fmt.Errorf("sync %s: %w", LedgerFile, err)
		}
	}
	if err := f.Close(); err != nil {
		return e, fmt.Errorf("close %s: %w", LedgerFile, err)
	}
	return e, nil
}
