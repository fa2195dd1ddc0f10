package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// EventMalformed is the Event of the placeholder Tail returns for a line
// that is not valid JSON; its Detail holds the raw line (Escape it before
// display). Tail does not check hashes: use Verify for integrity.
const EventMalformed = "malformed"

// Tail returns the last n records of the log in home, oldest first; n <= 0
// returns all of them. A missing log yields no records. A trailing partial
// line (an append in progress, or a torn one) is skipped. Only the end of
// the file is read.
func Tail(home string, n int) ([]Record, error) {
	f, err := os.Open(filepath.Join(home, LogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: tail: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: tail: stat log: %w", err)
	}
	if n <= 0 {
		return tailAll(io.NewSectionReader(f, 0, st.Size()))
	}
	data, err := readLastLines(f, st.Size(), n)
	if err != nil {
		return nil, fmt.Errorf("audit: tail: %w", err)
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]Record, 0, len(lines))
	for _, l := range lines {
		out = append(out, parseForDisplay(l))
	}
	return out, nil
}

// readLastLines returns the last n complete lines of f (joined by '\n',
// without the final newline), reading backwards in chunks.
func readLastLines(f *os.File, size int64, n int) ([]byte, error) {
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
	return buf[:last], nil
}

func tailAll(r io.Reader) ([]Record, error) {
	var out []Record
	lr := newLineReader(r)
	for {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("audit: tail: %w", err)
		}
		out = append(out, parseForDisplay(line))
	}
}

func parseForDisplay(line []byte) Record {
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{Event: EventMalformed, Detail: string(line)}
	}
	return r
}
