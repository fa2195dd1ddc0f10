package audit

import (
	"errors"
	"fmt"
	"io"
)

// Position names one line of the chain for a reader that resumes after it
// (airlock forward's cursor): the file that held it when it was read, the
// byte offset of the line in that file, and the record's h. A rotation
// renames audit.jsonl into a segment without rewriting it, so a position
// taken in the live file is found again, at the same offset, in the newest
// segments.
type Position struct {
	File string `json:"file"`
	Off  int64  `json:"off"`
	H    string `json:"h"`
}

// Line is one complete line of the chain as read, for a reader that ships
// the stored bytes (a record's h can only be recomputed from them).
type Line struct {
	Pos  Position // where the line is; Pos.H is the claimed h, "" for a line that is no record
	Prev string   // the claimed prev, "" for a line that is no record
	Raw  []byte   // the line without its newline; valid only until fn returns
}

// ErrPositionLost is returned by LinesAfter when the record a position names
// is in no file of the chain any more: the log was replaced, rewritten or
// its segments deleted. Resuming anywhere else would hide a gap.
var ErrPositionLost = errors.New("the record the position names is in no file of the chain")

// ErrSegmentMissing is returned by LinesAfter when a segment the ledger
// lists is gone from the audit home after the position (or anywhere, from
// the start): the lines it held would be skipped without a trace.
var ErrSegmentMissing = errors.New("a segment of the chain is missing")

// LinesAfter calls fn, in chain order, for every complete line of the chain
// after the line at p, or from the first line when p.H is "". Like Each it
// reads a snapshot taken under the append lock: lines appended later are not
// read, and a trailing partial line is not yielded. It stops at the first
// error fn returns and returns it.
func LinesAfter(home string, p Position, fn func(Line) error) error {
	snap, err := takeSnapshot(home)
	if err != nil {
		return fmt.Errorf("audit: lines: %w", err)
	}
	defer snap.close()
	all := walkOrder(parseLedger(snap.ledger).entries, snap.segFiles)
	var items []walkItem
	var orig []int // orig[i]: the index in all of items[i]
	for i, it := range all {
		if (it.live && snap.live == nil) || (!it.live && !it.exists) {
			continue
		}
		items, orig = append(items, it), append(orig, i)
	}
	start, off := 0, int64(0)
	if p.H != "" {
		if start, off, err = locate(snap, home, items, p); err != nil {
			return err
		}
	}
	// a segment the ledger lists and the directory lacks, after where the
	// reader resumes, is a hole: stepping over it would yield the next
	// file's lines as if they followed
	from := 0
	if p.H != "" {
		from = len(all)
		if start < len(orig) {
			from = orig[start]
		}
	}
	for _, it := range all[from:] {
		if !it.live && !it.exists {
			return fmt.Errorf("audit: lines: segment %s is in the ledger and not in %s: %w", it.name, home, ErrSegmentMissing)
		}
	}
	var cp canonParser
	for _, it := range items[start:] {
		if err := linesFrom(snap, home, it, off, &cp, fn); err != nil {
			return err
		}
		off = 0
	}
	return nil
}

// locate finds the file and offset just after the line p names: first where
// p says, then at p's offset in each segment newest first (where a rotated
// live file went), then by reading every file for p.H.
func locate(snap *snapshot, home string, items []walkItem, p Position) (int, int64, error) {
	try := func(i int) (int64, bool, error) {
		h, n, err := lineAt(snap, home, items[i], p.Off)
		if err != nil || h != p.H {
			return 0, false, err
		}
		return p.Off + n, true, nil
	}
	for i, it := range items {
		if it.name == p.File {
			next, ok, err := try(i)
			if err != nil {
				return 0, 0, err
			}
			if ok {
				return i, next, nil
			}
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].live || items[i].name == p.File {
			continue
		}
		if e := items[i].entry; e != nil && e.Last == p.H && i+1 < len(items) {
			return i + 1, 0, nil
		}
		next, ok, err := try(i)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			return i, next, nil
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		found, next := false, int64(0)
		var cp canonParser
		err := linesFrom(snap, home, items[i], 0, &cp, func(l Line) error {
			if l.Pos.H == p.H {
				found, next = true, l.Pos.Off+int64(len(l.Raw))+1
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return 0, 0, err
		}
		if found {
			return i, next, nil
		}
	}
	return 0, 0, fmt.Errorf("audit: lines: %s offset %d h %s: %w", p.File, p.Off, shortHash([]byte(p.H)), ErrPositionLost)
}

var errStop = errors.New("stop")

// lineAt returns the claimed h of the complete line at off in it, and the
// bytes it takes with its newline; "" when there is none.
func lineAt(snap *snapshot, home string, it walkItem, off int64) (string, int64, error) {
	f, size, err := snap.openItem(home, it)
	if err != nil {
		return "", 0, fmt.Errorf("audit: lines: %w", err)
	}
	if !it.live {
		defer f.Close()
	}
	if off < 0 || off >= size {
		return "", 0, nil
	}
	line, complete, err := newLineReader(io.NewSectionReader(f, off, size-off)).next()
	if errors.Is(err, io.EOF) || (err == nil && !complete) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("audit: lines: %s: %w", it.name, err)
	}
	var cp canonParser
	h, _, _, _, ok := recordHashes(&cp, line)
	if !ok {
		return "", 0, nil
	}
	return h, int64(len(line)) + 1, nil
}

// linesFrom yields the complete lines of one file from off on.
func linesFrom(snap *snapshot, home string, it walkItem, off int64, cp *canonParser, fn func(Line) error) error {
	f, size, err := snap.openItem(home, it)
	if err != nil {
		return fmt.Errorf("audit: lines: %w", err)
	}
	if !it.live {
		defer f.Close()
	}
	if off > size {
		return fmt.Errorf("audit: lines: %s is %d bytes, shorter than the position %d: %w", it.name, size, off, ErrPositionLost)
	}
	lr := newLineReader(io.NewSectionReader(f, off, size-off))
	for {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit: lines: %s: %w", it.name, err)
		}
		l := Line{Pos: Position{File: it.name, Off: off}, Raw: line}
		if h, prev, _, _, ok := recordHashes(cp, line); ok {
			l.Pos.H, l.Prev = h, prev
		}
		if err := fn(l); err != nil {
			return err
		}
		off += int64(len(line)) + 1
	}
}

// LineCheck is what CheckLine found in one exported line.
type LineCheck struct {
	H, Prev string // the claimed h and prev
	Event   string
	Time    string
}

// CheckLine decodes one stored record line (a copy a receiver holds) and
// recomputes its h the way Verify does. It returns the claimed links, and an
// error when the line is not a record or its h does not match its content.
// Signatures are not checked: that needs the key (Verify with the home).
func CheckLine(raw []byte) (LineCheck, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return LineCheck{}, err
	}
	var c LineCheck
	c.H, _ = m["h"].(string)
	c.Prev, _ = m["prev"].(string)
	c.Event, _ = m["event"].(string)
	c.Time, _ = m["ts"].(string)
	if !isHexDigest(c.H) || !isHexDigest(c.Prev) {
		return c, errors.New("no h and prev of 64 hex digits: not a chain record")
	}
	sum, err := hashObject(m)
	if err != nil {
		return c, err
	}
	if sum != c.H {
		return c, fmt.Errorf("h %s does not match the content (which hashes to %s): the record was edited", shortHash([]byte(c.H)), shortHash([]byte(sum)))
	}
	return c, nil
}
