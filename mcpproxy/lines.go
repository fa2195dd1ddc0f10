package mcpproxy

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// lineReader reads newline-delimited messages of any length. The returned
// slice includes the newline (if any) and is valid until the next call.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line. At the end of input it returns any final
// unterminated bytes with a nil error, then io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err == nil {
			if len(lr.buf) == 0 {
				return chunk, nil // the common case: no copy
			}
			lr.buf = append(lr.buf, chunk...)
			return lr.buf, nil
		}
		lr.buf = append(lr.buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(lr.buf) > 0 && errors.Is(err, io.EOF) {
			return lr.buf, nil
		}
		return nil, err
	}
}

// shrink drops a buffer grown by one huge line so a long session does not
// keep megabytes it no longer needs.
func (lr *lineReader) shrink() {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil
	}
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
	if _, err := lw.w.Write(msg); err != nil {
		lw.err = err
		return err
	}
	if len(msg) == 0 || msg[len(msg)-1] != '\n' {
		if err := lw.w.WriteByte('\n'); err != nil {
			lw.err = err
			return err
		}
	}
	if err := lw.w.Flush(); err != nil {
		lw.err = err
	}
	return lw.err
}
