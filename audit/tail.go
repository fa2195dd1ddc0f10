package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// EventMalformed is the Event of the placeholder Tail returns for a line
// that is not valid JSON; its Detail holds the raw line (Escape it before
// display). Tail does not check hashes: use Verify for integrity.
const EventMalformed = "malformed"

// Tail returns the last n records of the chain in home, oldest first; n <= 0
// returns all of them. The last n may span rotated segments. A missing log
// yields no records. A trailing partial line (an append in progress, or a
// torn one) is skipped. Only the ends of the files are read.
func Tail(home string, n int) ([]Record, error) {
	if n <= 0 {
		var out []Record
		for e, err := range records(home) {
			if err != nil {
				return nil, fmt.Errorf("audit: tail: %w", err)
			}
			out = append(out, e.Record)
		}
		return out, nil
	}
	snap, err := takeSnapshot(home)
	if err != nil {
		return nil, fmt.Errorf("audit: tail: %w", err)
	}
	defer snap.close()
	items := walkOrder(parseLedger(snap.ledger).entries, snap.segFiles)
	var lines [][]byte // newest file's lines last
	for i := len(items) - 1; i >= 0 && len(lines) < n; i-- {
		it := items[i]
		if (it.live && snap.live == nil) || (!it.live && !it.exists) {
			continue
		}
		f, size, err := snap.openItem(home, it)
		if err != nil {
			return nil, fmt.Errorf("audit: tail: %w", err)
		}
		got, err := readLastLines(f, size, n-len(lines))
		if !it.live {
			f.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("audit: tail: %s: %w", it.name, err)
		}
		lines = append(got, lines...)
	}
	out := make([]Record, 0, len(lines))
	for _, l := range lines {
		out = append(out, parseForDisplay(l))
	}
	return out, nil
}

// readLastLines returns the last n complete lines of f (without their
// newlines), oldest first, reading backwards in chunks. A trailing partial
// line is not among them.
func readLastLines(f *os.File, size int64, n int) ([][]byte, error) {
	const chunk = 64 << 10
	var buf []byte
	pos := size
	newlines := 0
	for pos > 0 && newlines <= n {
		step := min(int64(chunk), pos)
		pos -= step
		b := make([]byte, step, int(step)+len(buf))
		if _, err := f.ReadAt(b, pos); err != nil {
			return nil, fmt.Errorf("read log: %w", err)
		}
		newlines += bytes.Count(b, []byte{'\n'})
		buf = append(b, buf...)
	}
	// Drop the trailing partial line (if any) and the final newline. The
	// first line may be cut at the read boundary, but then there are more
	// than n lines and it is not among the last n.
	last := bytes.LastIndexByte(buf, '\n')
	if last < 0 {
		return nil, nil
	}
	lines := bytes.Split(buf[:last], []byte{'\n'})
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return slices.Clip(lines), nil
}

func parseForDisplay(line []byte) Record {
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{Event: EventMalformed, Detail: string(line)}
	}
	return r
}
