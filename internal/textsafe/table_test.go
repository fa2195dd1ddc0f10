package textsafe

import (
	"testing"
	"unicode"
)

// TestClassOf pins the class of one or more characters of every kind the
// table names, and of characters that must stay plain.
func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want Class
	}{
		{'a', plain}, {' ', plain}, {'~', plain}, {'é', plain}, {'日', plain}, {0x1F600, plain},
		{0xFFFD, plain}, {0x0301, plain}, {0x180B, plain}, // combining acute, Mongolian FVS1: marks, not hidden
		{0x00, Control}, {'\n', Control}, {0x1B, Control}, {0x7F, Control}, {0x80, Control}, {0x9B, Control}, {0x9F, Control},
		{0x061C, Bidi}, {0x200E, Bidi}, {0x200F, Bidi}, {0x202A, Bidi}, {0x202E, Bidi}, {0x2066, Bidi}, {0x2069, Bidi},
		{0x00AD, ZeroWidth}, {0x034F, ZeroWidth}, {0x17B4, ZeroWidth}, {0x17B5, ZeroWidth}, {0x180E, ZeroWidth},
		{0x200B, ZeroWidth}, {0x200C, ZeroWidth}, {0x200D, ZeroWidth}, {0x2060, ZeroWidth}, {0x2064, ZeroWidth},
		{0x2065, ZeroWidth}, {0x206A, ZeroWidth}, {0x206F, ZeroWidth}, {0xFEFF, ZeroWidth},
		{0x115F, Filler}, {0x1160, Filler}, {0x3164, Filler}, {0xFFA0, Filler},
		{0xFE00, Selector}, {0xFE0F, Selector}, {0xE0100, Selector}, {0xE01EF, Selector},
		{0xE0000, Tag}, {0xE0001, Tag}, {0xE0041, Tag}, {0xE007F, Tag},
		{0x2028, separator}, {0x2029, separator},
		{0x0600, Format}, {0x06DD, Format}, {0xFFF9, Format}, {0xFFFB, Format}, {0x110BD, Format}, {0x1D173, Format},
		{0xE000, Private}, {0xF8FF, Private}, {0xF0000, Private}, {0x10FFFD, Private},
	} {
		if got := ClassOf(tc.r); got != tc.want {
			t.Errorf("ClassOf(%U) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// TestTableCoversCategories: every control, format and private-use
// character and every line or paragraph separator Unicode knows is in the
// table (the fast path below U+0600 included), and every Invisible one is
// hidden.
func TestTableCoversCategories(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp) && !Hidden(r) {
			t.Errorf("%U (category %s) is not in the table", r, category(r))
		}
		if (ClassOf(r) == Private) != unicode.Is(unicode.Co, r) {
			t.Errorf("%U: class %v, category %s", r, ClassOf(r), category(r))
		}
		if ClassOf(r) == Format && !unicode.Is(unicode.Cf, r) {
			t.Errorf("%U: class format, category %s", r, category(r))
		}
		if Invisible(r) && !Hidden(r) {
			t.Errorf("%U is Invisible but not Hidden", r)
		}
	}
}

func category(r rune) string {
	for name, tab := range unicode.Categories {
		if len(name) == 2 && unicode.Is(tab, r) {
			return name
		}
	}
	return "?"
}

// TestTableHoldsTheOldTables: the five tables the table replaced
// (audit.Escape's, scan.Escape's, scan's folding and stealth detector's,
// policy's path quoting) held nothing it does not. Listed by their ranges,
// so a narrowing of the table fails here.
func TestTableHoldsTheOldTables(t *testing.T) {
	ranges := [][2]rune{
		{0x80, 0x9F}, {0xAD, 0xAD}, {0x034F, 0x034F}, {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
		{0x180E, 0x180E}, {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
		{0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF9, 0xFFFB},
		{0xE0000, 0xE007F}, {0xE0100, 0xE01EF},
	}
	for _, rg := range ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			if !Hidden(r) {
				t.Errorf("%U is no longer in the table", r)
			}
		}
	}
}

func BenchmarkEscapeASCII(b *testing.B) {
	s := "2026-12-01T10:00:00.000Z decision hook Bash allow git status --porcelain"
	for b.Loop() {
		_ = Escape(s)
	}
}

func BenchmarkEscapeHostile(b *testing.B) {
	s := "évil\u202eexe.txt ig\u200bnore \x1b[31m 日本語 \U000E0041"
	for b.Loop() {
		_ = Escape(s)
	}
}

// TestInvisibleExactly: Invisible is exactly the set scan's folding
// deleted before it read the table (a wider set would join words the
// folding keeps apart, a narrower one let "ig\u200bnore" through).
func TestInvisibleExactly(t *testing.T) {
	want := func(r rune) bool {
		switch {
		case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
			r == 0x180E, r == 0x3164, r == 0xFEFF, r == 0xFFA0:
			return true
		case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F:
			return true
		case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
			return true
		}
		return false
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if Invisible(r) != want(r) {
			t.Errorf("Invisible(%U) = %v, want %v", r, Invisible(r), want(r))
		}
	}
}

func BenchmarkEscapeCJK(b *testing.B) {
	s := "日本語のテキストはそのまま表示されます。ファイル名も同じです"
	for b.Loop() {
		_ = Escape(s)
	}
}
