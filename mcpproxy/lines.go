package mcpproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// defaultMaxMessage is the longest message either peer may send, its
// newline not counted: room for a large resources/read result or a few
// images in base64, small enough that two of them in flight (the proxy
// holds about twice a message while it reads one) fit any machine.
const defaultMaxMessage = 64 << 20

// lineReader reads newline-delimited messages up to a cap. A line past the
// cap is read to its end without being kept: what is left of it is the
// ids its top level carries, so the sender can be answered.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return newLineReaderSize(r, max, 64<<10)
}

func newLineReaderSize(r io.Reader, max int64, size int) *lineReader {
	if max <= 0 {
		max = defaultMaxMessage
	}
	m := int(min(max, int64(^uint(0)>>2)))
	return &lineReader{r: bufio.NewReaderSize(r, size), max: m}
}

// oversized is the error for a line past the cap; the line has been read
// through its newline.
type oversized struct {
	size int64 // bytes before the newline
	max  int
	top  topLevel
}

func (e *oversized) Error() string {
	return fmt.Sprintf("a message of %s, past the %s limit", sizeText(e.size), sizeText(int64(e.max)))
}

// next returns the next line, its newline included (if any). At the end
// of input it returns any final unterminated bytes with a nil error, then
// io.EOF. A line past the cap is an *oversized error and is consumed.
//
// The line is returned as a string of exactly its length: gjson reads a
// string without copying it, so a message costs its size twice at most
// (its pieces, then the string), not the four or five times a growing
// buffer and a copy for the parser did.
func (lr *lineReader) next() (string, error) {
	var parts [][]byte
	n := 0 // bytes kept in parts
	for {
		chunk, err := lr.r.ReadSlice('\n')
		body := len(chunk)
		if err == nil {
			body-- // the newline is not part of the message
		}
		if n+body > lr.max {
			return "", lr.skip(parts, chunk, err, n)
		}
		switch {
		case err == nil, errors.Is(err, io.EOF) && n+len(chunk) > 0:
			if parts == nil {
				return string(chunk), nil
			}
			return join(parts, chunk, n), nil
		case errors.Is(err, bufio.ErrBufferFull):
			parts = appendPart(parts, chunk)
			n += len(chunk)
		default:
			return "", err
		}
	}
}

// appendPart copies chunk (valid only until the next read) into parts,
// filling the last piece before starting a bigger one, so a long line is
// a few dozen pieces, not thousands.
func appendPart(parts [][]byte, chunk []byte) [][]byte {
	if k := len(parts); k > 0 {
		last := parts[k-1]
		if free := cap(last) - len(last); free >= len(chunk) {
			parts[k-1] = append(last, chunk...)
			return parts
		}
	}
	size := max(len(chunk), 256<<10<<min(len(parts), 4)) // 256 KiB, doubling to 4 MiB
	return append(parts, append(make([]byte, 0, size), chunk...))
}

func join(parts [][]byte, last []byte, n int) string {
	var b strings.Builder
	b.Grow(n + len(last))
	for _, p := range parts {
		b.Write(p)
	}
	b.Write(last)
	return b.String()
}

// skip reads the rest of a line past the cap, keeping nothing but what
// the top-level scanner needs.
func (lr *lineReader) skip(parts [][]byte, chunk []byte, err error, n int) error {
	var sc topScanner
	for _, p := range parts {
		sc.feed(p)
	}
	size := int64(n)
	for {
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		sc.feed(body)
		size += int64(len(body))
		if !errors.Is(err, bufio.ErrBufferFull) {
			// the newline, the end of input or a read error (which the
			// next call returns again)
			return &oversized{size: size, max: lr.max, top: sc.result()}
		}
		chunk, err = lr.r.ReadSlice('\n')
	}
}

// sizeText writes a byte count the way the limit is configured.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// lineWriter is the one writer of a direction: every message is written
// whole and flushed under its lock, so lines never interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// write sends msg and, when it lacks one, a terminating newline. After the
// first failure every write fails with the same error.
func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	_, lw.err = lw.w.Write(msg)
	return lw.endLocked(len(msg) == 0 || msg[len(msg)-1] != '\n')
}

// writeString is write for a string: a long message goes to the pipe as
// it is, without a copy.
func (lw *lineWriter) writeString(msg string) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	_, lw.err = lw.w.WriteString(msg)
	return lw.endLocked(len(msg) == 0 || msg[len(msg)-1] != '\n')
}

func (lw *lineWriter) endLocked(newline bool) error {
	if lw.err == nil && newline {
		lw.err = lw.w.WriteByte('\n')
	}
	if lw.err == nil {
		lw.err = lw.w.Flush()
	}
	return lw.err
}
