package pins

import (
	"bytes"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// rawInCanon lists the characters of textsafe's table that the canonical
// encoding writes raw. The encoding is frozen (tool digests and toolset
// hashes are computed over it, so changing it would re-pend every pinned
// server), so these stay raw in pins.json: Hangul fillers (U+3164 among
// them), the grapheme joiner and Khmer inherent vowels, DEL, the format
// characters beyond its own list (Arabic number signs, Egyptian
// hieroglyph format controls, musical beams, ...) and private use. None of
// them reaches a person raw: everything Airlock shows from a pin (airlock
// pins list/show/diff, admission notices, the audit log's display) passes
// textsafe.Escape.
func rawInCanon(r rune) bool {
	switch textsafe.ClassOf(r) {
	case textsafe.Control:
		return r == 0x7F
	case textsafe.ZeroWidth:
		return r == 0x034F || r == 0x17B4 || r == 0x17B5
	case textsafe.Filler, textsafe.Private:
		return true
	case textsafe.Format:
		return r < 0xFFF9 || r > 0xFFFB
	}
	return false
}

// TestCanonAgainstTable checks the canonical string encoding against the
// table, for every character: a character in the table is escaped unless
// rawInCanon lists it, and a non-ASCII character outside the table is
// written raw. So a change to either side shows here, and the U+3164
// difference (raw in pins.json, \u200b escaped) is a listed one.
func TestCanonAgainstTable(t *testing.T) {
	var buf [4]byte
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not a character: str turns a lone surrogate into U+FFFD
		}
		s := buf[:utf8.EncodeRune(buf[:], r)]
		enc := appendString(nil, string(s))
		raw := bytes.Contains(enc, s)
		switch {
		case textsafe.Hidden(r) && raw != rawInCanon(r):
			t.Errorf("%U (%v): canonical %s, raw=%v but the listed exception says raw=%v", r, textsafe.ClassOf(r), enc, raw, rawInCanon(r))
		case !textsafe.Hidden(r) && r >= 0x80 && !raw:
			t.Errorf("%U is not in textsafe's table but canonical JSON escapes it: %s", r, enc)
		}
	}
}
