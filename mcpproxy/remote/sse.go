package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Our own reader of a text/event-stream (the WHATWG event stream format):
// mcp-go's SSE transport reads every message with an id as a response, so
// a server request on the legacy transport would be dropped or taken for
// a call's answer. This one only splits the stream into events; what an
// event is, the connection decides.

// sseEvent is one dispatched event.
type sseEvent struct {
	Type string // "message" when the stream named none
	Data string // the data lines joined by "\n"
	ID   string // the last event id seen so far
}

// errEventTooBig is the error for an event whose data runs past the cap.
var errEventTooBig = errors.New("an event past the message limit")

// sseReader reads events from a stream, each bounded by max bytes of
// data (and each line by max bytes, so no line grows the reader without
// end).
type sseReader struct {
	r       *bufio.Reader
	max     int
	started bool // past the optional byte order mark
	skipLF  bool // the last line ended with CR: a LF next ends nothing
	lastID  string
}

func newSSEReader(r io.Reader, max int) *sseReader {
	if max <= 0 {
		max = 64 << 20
	}
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// line returns the next line without its terminator (CRLF, LF or CR).
// At the end of the stream an unterminated line is returned with io.EOF:
// the format says an event not ended by a blank line is not dispatched.
func (s *sseReader) line() (string, error) {
	var b strings.Builder
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				return b.String(), io.ErrUnexpectedEOF
			}
			return b.String(), err
		}
		if s.skipLF {
			s.skipLF = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\r':
			s.skipLF = true
			return b.String(), nil
		case '\n':
			return b.String(), nil
		}
		if b.Len() >= s.max+16 {
			return "", errEventTooBig
		}
		b.WriteByte(c)
		// copy the rest of the buffered line at once
		if buf, _ := s.r.Peek(s.r.Buffered()); len(buf) > 0 {
			n := 0
			for n < len(buf) && buf[n] != '\r' && buf[n] != '\n' {
				n++
			}
			if b.Len()+n > s.max+16 {
				return "", errEventTooBig
			}
			b.Write(buf[:n])
			_, _ = s.r.Discard(n)
		}
	}
}

// next returns the next dispatched event. The stream's end is io.EOF
// (any unfinished event is dropped, as the format says).
func (s *sseReader) next() (sseEvent, error) {
	var data strings.Builder
	hasData := false
	typ := ""
	for {
		ln, err := s.line()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return sseEvent{}, err
		}
		if !s.started {
			s.started = true
			ln = strings.TrimPrefix(ln, "\uFEFF")
		}
		if ln == "" {
			if !hasData {
				typ = ""
				continue
			}
			if typ == "" {
				typ = "message"
			}
			return sseEvent{Type: typ, Data: strings.TrimSuffix(data.String(), "\n"), ID: s.lastID}, nil
		}
		if ln[0] == ':' {
			continue // a comment (keep-alives)
		}
		field, value, found := strings.Cut(ln, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			if data.Len()+len(value)+1 > s.max {
				return sseEvent{}, fmt.Errorf("%w (%d bytes)", errEventTooBig, s.max)
			}
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		case "event":
			typ = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				s.lastID = value
			}
		}
		// retry and unknown fields are ignored
	}
}
