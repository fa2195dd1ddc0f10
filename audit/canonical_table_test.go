package audit

import (
	"bytes"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// escapedInRecord lists the characters of textsafe's table that a
// record's canonical line escapes: the C0 controls (as encoding/json does)
// and U+2028/U+2029. The line is frozen — its bytes are what h chains
// and what signatures cover, and it must equal encoding/json's output — so
// every other hidden character (DEL, C1, bidi, zero-width, fillers,
// selectors, tags, format, private use) is stored raw in audit.log: a
// record keeps exactly what the agent sent. Nothing shows a record raw;
// airlock log, report, monitor and verify pass each field through
// textsafe.Escape.
func escapedInRecord(r rune) bool {
	return r < 0x20 || r == 0x2028 || r == 0x2029
}

// TestCanonicalStringAgainstTable checks the record encoding against the
// table for every character, both the fast and the reflective encoder.
func TestCanonicalStringAgainstTable(t *testing.T) {
	var buf [4]byte
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(buf[:utf8.EncodeRune(buf[:], r)])
		enc := appendCanonicalString(nil, s)
		raw := bytes.Contains(enc, []byte(s))
		if textsafe.Hidden(r) && raw == escapedInRecord(r) {
			t.Errorf("%U (%v): the record encoding gives %s, escapedInRecord says escaped=%v", r, textsafe.ClassOf(r), enc, escapedInRecord(r))
		}
		if !textsafe.Hidden(r) && r >= 0x80 && !raw {
			t.Errorf("%U is not in textsafe's table but the record encoding escapes it: %s", r, enc)
		}
	}
	// The reflective path (encoding/json itself) agrees on one of each class.
	for _, r := range []rune{0x01, 0x7F, 0x85, 0x202E, 0x200B, 0x3164, 0xFE0F, 0xE0041, 0x2028, 0x0600, 0xE000} {
		rec := Record{Event: "e", Detail: "x" + string(r) + "y"}
		fast, _, ok := encodeRecordFast(rec, "")
		slow, _, err := encodeRecordSlow(rec, "")
		if !ok || err != nil || !bytes.Equal(fast, slow) {
			t.Errorf("%U: fast %s (ok %v) and slow %s (%v) differ", r, fast, ok, slow, err)
		}
		if raw := bytes.Contains(slow, []byte(string(r))); raw == escapedInRecord(r) {
			t.Errorf("%U: the record line %s, escapedInRecord says escaped=%v", r, slow, escapedInRecord(r))
		}
	}
}
