package audit

import (
	"errors"
	"fmt"
	"io"
	"iter"
)

// Entry is one line of the audit chain as a reader sees it.
type Entry struct {
	File   string // LogFile, or the name of the rotated segment holding the line
	Line   int    // 1-based line within File
	Record Record // the record; a line that is not JSON is an EventMalformed placeholder
}

// records yields every record of the chain in order: every rotated segment
// (in ledger order), then the live audit.jsonl. It streams, holding one line
// at a time, and reads a snapshot taken when iteration starts: records
// appended later are not yielded. A trailing partial line (an append in
// progress, or a torn one) is skipped. Records does not check hashes: use
// Verify for integrity. An I/O error is yielded once, with a zero Entry, and
// ends the iteration.
func records(home string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		snap, err := takeSnapshot(home)
		if err != nil {
			yield(Entry{}, fmt.Errorf("audit: records: %w", err))
			return
		}
		defer snap.close()
		for _, it := range walkOrder(parseLedger(snap.ledger).entries, snap.segFiles) {
			if !it.exists && !it.live {
				continue
			}
			if it.live && snap.live == nil {
				continue
			}
			if !eachInFile(snap, home, it, yield) {
				return
			}
		}
	}
}

// eachInFile yields the records of one file; false means stop.
func eachInFile(snap *snapshot, home string, it walkItem, yield func(Entry, error) bool) bool {
	f, size, err := snap.openItem(home, it)
	if err != nil {
		return yield(Entry{}, fmt.Errorf("audit: records: %w", err))
	}
	if !it.live {
		defer f.Close()
	}
	lr := newLineReader(io.NewSectionReader(f, 0, size))
	for n := 1; ; n++ {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			return true
		}
		if err != nil {
			return yield(Entry{}, fmt.Errorf("audit: records: %s: %w", it.name, err))
		}
		if !yield(Entry{File: it.name, Line: n, Record: parseForDisplay(line)}, nil) {
			return false
		}
	}
}

// Each calls fn for every record of the chain in order (see Records). It
// stops at the first error fn returns and returns it.
func Each(home string, fn func(Entry) error) error {
	for e, err := range records(home) {
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
