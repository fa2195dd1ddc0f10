package mcpproxy

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A message the proxy will not parse (past the size cap, nested past the
// limit, not JSON, split differently by another reader) still deserves an
// answer its sender can match, and the id sits at the top level. The
// scanner reads a message's bytes once, in pieces, without recursion and
// without keeping more than a key and an id, and says what ids its top
// level carries.

// maxScanned bounds the messages of one batch the scanner keeps.
const maxScanned = 1024

// topLevel is what the scanner found.
type topLevel struct {
	kind byte         // '{' an object, '[' a batch, 0 neither
	msgs []topMessage // the object, or each object in the batch
	more bool         // the batch held more than maxScanned objects
}

// topMessage is one message's top level.
type topMessage struct {
	id     string // the raw id, trimmed; "" when there is none or it is unusable
	idBad  bool   // an id key was there but its value cannot be used
	method bool   // a "method" key was there
}

type topScanner struct {
	started, done bool
	kind          byte
	depth         int
	inStr, esc    bool

	active  bool // inside a message object, at msgDepth
	cur     topMessage
	ids     int  // "id" keys in cur
	wantKey bool // the next string at msgDepth is a key
	inKey   bool
	key     []byte
	keyLong bool
	capture bool // reading the value of "id"
	val     []byte
	valLong bool

	res topLevel
}

func (s *topScanner) msgDepth() int {
	if s.kind == '[' {
		return 2
	}
	return 1
}

// scanTop scans a whole message.
func scanTop(msg string) topLevel {
	var s topScanner
	s.feedString(msg)
	return s.result()
}

func (s *topScanner) feed(b []byte) {
	for _, c := range b {
		if s.done {
			return
		}
		s.step(c)
	}
}

func (s *topScanner) feedString(b string) {
	for i := 0; i < len(b) && !s.done; i++ {
		s.step(b[i])
	}
}

func (s *topScanner) step(c byte) {
	if !s.started {
		switch c {
		case ' ', '\t', '\r', '\n':
			return
		case '{':
			s.started, s.kind, s.depth = true, '{', 1
			s.open()
		case '[':
			s.started, s.kind, s.depth = true, '[', 1
		default:
			s.started, s.done = true, true
		}
		return
	}
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			if s.inKey {
				s.inKey = false
				return
			}
		}
		s.keep(c)
		return
	}
	top := s.active && s.depth == s.msgDepth()
	switch c {
	case '"':
		s.inStr = true
		if top && s.wantKey {
			s.inKey, s.wantKey, s.keyLong = true, false, false
			s.key = s.key[:0]
			return
		}
	case ':':
		if top && !s.capture {
			s.startValue()
			return
		}
	case ',':
		if top {
			s.endValue()
			s.wantKey = true
			return
		}
	case '{', '[':
		s.keep(c)
		s.depth++
		if s.kind == '[' && c == '{' && s.depth == 2 {
			s.open()
		}
		return
	case '}', ']':
		if top && c == '}' {
			s.close()
		} else {
			s.keep(c)
		}
		s.depth--
		if s.depth <= 0 {
			s.done = true
		}
		return
	}
	s.keep(c)
}

// keep adds c to the key or the id value being read.
func (s *topScanner) keep(c byte) {
	switch {
	case s.inKey:
		if len(s.key) < 32 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case s.capture:
		if len(s.val) < maxIDLen {
			s.val = append(s.val, c)
		} else {
			s.valLong = true
		}
	}
}

func (s *topScanner) open() {
	s.active, s.cur, s.ids, s.wantKey, s.capture = true, topMessage{}, 0, true, false
}

// startValue reads the key just ended: the value after it is the id, or
// the key says the message is a request.
func (s *topScanner) startValue() {
	if s.keyLong || s.inKey {
		return
	}
	key := string(s.key)
	if strings.IndexByte(key, '\\') >= 0 {
		key = gjson.Parse(`"` + key + `"`).String()
	}
	switch key {
	case "id":
		s.ids++
		s.capture, s.valLong = true, false
		s.val = s.val[:0]
	case "method":
		s.cur.method = true
	}
}

func (s *topScanner) endValue() {
	if !s.capture {
		return
	}
	s.capture = false
	raw := strings.Trim(string(s.val), " \t\r\n")
	v := gjson.Parse(raw)
	if s.valLong || !gjson.Valid(raw) || (v.Type != gjson.String && v.Type != gjson.Number) {
		s.cur.id, s.cur.idBad = "", true
		return
	}
	s.cur.id = raw
}

func (s *topScanner) close() {
	s.endValue()
	if s.ids > 1 {
		// which one a reader takes depends on the reader
		s.cur.id, s.cur.idBad = "", true
	}
	s.active = false
	if len(s.res.msgs) >= maxScanned {
		s.res.more = true
		return
	}
	s.res.msgs = append(s.res.msgs, s.cur)
}

// result ends the scan; a message cut off at the end keeps what was read
// of it.
func (s *topScanner) result() topLevel {
	if s.active {
		s.close()
	}
	s.res.kind = s.kind
	return s.res
}
