// Package textsafe is Airlock's one table of hidden characters and its one
// display escaper. Everything that shows text an agent, a server, a
// scanned file or a record controls — the log and report, ask prompts,
// notifications, monitor, scan output, error messages — passes it through
// Escape (or EscapeLoose), so no such text can forge a line, drive the
// terminal, or hide or reorder what a person reads.
//
// The canonical encodings that digests depend on (audit records, pins.json)
// are not built on this table: their bytes are frozen. Their tests compare
// them with the table and list every difference (see the packages' tests).
package textsafe

import "unicode"

// Class is the kind of a hidden character.
type Class uint8

// The classes of ClassOf. Plain is every character shown as itself.
const (
	plain     Class = iota
	Control         // C0 and C1 controls, DEL
	Bidi            // bidi marks, embeddings, overrides, isolates (U+061C, U+200E/F, U+202A-202E, U+2066-2069)
	ZeroWidth       // render as nothing: zero-width space and joiners, word joiner, invisible operators, BOM, soft hyphen, ...
	Filler          // Hangul fillers, which render blank (U+115F, U+1160, U+3164, U+FFA0)
	Selector        // variation selectors (U+FE00-FE0F, U+E0100-E01EF), which can carry hidden data
	Tag             // Unicode tag characters (U+E0000-E007F), "ASCII smuggling"
	separator       // line and paragraph separators (U+2028, U+2029)
	Format          // the remaining format characters (Unicode category Cf)
	Private         // private-use characters (Unicode category Co), which render as the font likes
)

var classNames = [...]string{"plain", "control", "bidi", "zero-width", "filler", "selector", "tag", "separator", "format", "private-use"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(?)"
}

// ClassOf is the table: the class of r, Plain for a character that is
// shown as itself. (Space, printable ASCII and ordinary letters, marks
// and symbols of every script are Plain; so is U+FFFD.)
func ClassOf(r rune) Class {
	if r < 0x80 {
		if r < 0x20 || r == 0x7f {
			return Control
		}
		return plain
	}
	switch {
	case r <= 0x9F:
		return Control
	case r == 0x061C, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return Bidi
	case r == 0x00AD, r == 0x034F, r == 0x17B4, r == 0x17B5, r == 0x180E,
		r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2065, r >= 0x206A && r <= 0x206F, r == 0xFEFF:
		return ZeroWidth
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return Filler
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return Selector
	case r >= 0xE0000 && r <= 0xE007F:
		return Tag
	case r == 0x2028, r == 0x2029:
		return separator
	case r < 0x0600, r >= 0x2070 && r < 0xE000:
		// No other Cf or Co character is in these ranges (Latin, Greek,
		// Cyrillic, CJK, Hangul syllables ...), so most text skips the
		// category lookups. TestTableCoversCategories holds this against
		// the Unicode tables of every Go release.
		return plain
	case r <= 0xF8FF && r >= 0xE000, r >= 0xF0000 && r <= 0xFFFFD, r >= 0x100000 && r <= 0x10FFFD:
		return Private
	case unicode.Is(unicode.Cf, r):
		return Format
	}
	return plain
}

// Hidden reports whether r is in the table: a character that controls
// the terminal, changes text direction, renders as nothing or as the
// font likes. Escape writes every such character as an escape.
func Hidden(r rune) bool { return ClassOf(r) != plain }

// Invisible reports whether r renders as nothing between visible
// characters, so a reader sees "ignore" where the text says
// "ig\u200bnore": the zero-width, bidi, filler, selector and tag
// classes. (Controls, separators, the remaining format characters and
// private use are hidden but not Invisible: a scanner folding text for
// matching deletes only Invisible ones.)
func Invisible(r rune) bool {
	switch ClassOf(r) {
	case ZeroWidth, Bidi, Filler, Selector, Tag:
		return true
	}
	return false
}
