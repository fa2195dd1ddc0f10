package audit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// readBufSize is the bufio buffer used to walk the log. Lines longer than
// this are still handled (they are assembled in lineReader.long).
const readBufSize = 64 << 10

// lineReader yields the lines of r without a length limit. The returned
// slice is only valid until the next call.
type lineReader struct {
	r    *bufio.Reader
	long []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufSize)}
}

// next returns the next line without its '\n' and whether it was terminated
// by one. At the end of input it returns io.EOF.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	b, err := lr.r.ReadSlice('\n')
	if err == nil {
		return b[:len(b)-1], true, nil
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if err == nil {
				return lr.long[:len(lr.long)-1], true, nil
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		b = lr.long
	}
	if errors.Is(err, io.EOF) {
		if len(b) == 0 {
			return nil, false, io.EOF
		}
		return b, false, nil
	}
	return nil, false, fmt.Errorf("read %s: %w", LogFile, err)
}
