package scan

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// folded is the text indicators match against, with a map back to the
// original: NFKC, lower case, invisible characters and nonspacing marks
// removed, Unicode tag characters decoded to the ASCII they hide, a few
// Cyrillic and Greek look-alikes mapped to Latin, every Unicode space made
// an ASCII space. A zero-width space inside "ig\u200bnore" therefore cannot
// split the word, and fullwidth "ｉｇｎｏｒｅ" reads as "ignore".
type folded struct {
	s    string
	offs []int // original byte offset of each byte of s; nil when s maps 1:1
	// plain: the original is ASCII without control characters other than
	// \t \n \r, so no stealth character can be in it.
	plain bool
}

func fold(s string) folded {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
			plain = false
			break
		}
	}
	if plain && !markdownish(s) {
		b := []byte(s)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return folded{s: string(b), plain: true}
	}

	out := make([]byte, 0, len(s))
	offs := make([]int, 0, len(s))
	emit := func(r rune, at int) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			offs = append(offs, at)
			return
		}
		n := len(out)
		out = utf8.AppendRune(out, r)
		for range len(out) - n {
			offs = append(offs, at)
		}
	}
	var nfkc []byte
	inTags := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		isTag := r >= 0xE0020 && r <= 0xE007E
		if isTag != inTags {
			// Hidden tag text starts or ends: keep it a separate word.
			emit(' ', i)
			inTags = isTag
		}
		switch {
		case r == '*' || (r == '_' && emphasisEdge(s, i)):
			// markdown emphasis: "**ignore** all _previous_ instructions"
			// reads, to a model, as the plain phrase
		case r == '>' && lineStart(s, i):
			emit(' ', i) // a blockquote marker
		case r == '&':
			if c, n := entity(s[i:]); n > 0 {
				emit(c, i)
				i += n
				continue
			}
			emit(r, i)
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			emit(r, i)
		case r == utf8.RuneError && size == 1:
			// invalid byte: dropped, like an invisible character
		case isTag:
			emit(unicode.ToLower(r-0xE0000), i)
		case textsafe.Invisible(r):
		default:
			nfkc = norm.NFKC.AppendString(nfkc[:0], s[i:i+size])
			for _, c := range string(nfkc) {
				switch {
				case unicode.Is(unicode.Mn, c) || textsafe.Invisible(c):
				case unicode.IsSpace(c):
					emit(' ', i)
				default:
					c = unicode.ToLower(c)
					if a, ok := lookalike(c); ok {
						c = a
					}
					emit(c, i)
				}
			}
		}
		i += size
	}
	return folded{s: string(out), offs: offs, plain: plain}
}

// markdownish reports whether s holds markdown or HTML that folding
// reads through: emphasis markers, blockquotes, character entities.
func markdownish(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '&':
			return true
		case '_':
			if emphasisEdge(s, i) {
				return true
			}
		case '>':
			if lineStart(s, i) {
				return true
			}
		}
	}
	return false
}

// emphasisEdge: an underscore at the edge of a word ("_previous_"), not
// inside one (AWS_SECRET_ACCESS_KEY).
func emphasisEdge(s string, i int) bool {
	before := i > 0 && isWordByte(s[i-1])
	after := i+1 < len(s) && isWordByte(s[i+1])
	return before != after
}

// lineStart: only spaces between the start of the line and i.
func lineStart(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case ' ', '\t':
			continue
		case '\n':
			return true
		}
		return false
	}
	return true
}

// entity decodes the HTML character reference s starts with
// (&lt; &#60; &#x3c; …), returning the character and the bytes it takes.
func entity(s string) (rune, int) {
	end := strings.IndexByte(s[:min(len(s), 10)], ';')
	if end < 2 {
		return 0, 0
	}
	name := strings.ToLower(s[1:end])
	switch name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "quot":
		return '"', end + 1
	case "apos":
		return '\'', end + 1
	case "nbsp":
		return ' ', end + 1
	}
	if name[0] == '#' {
		base, digits := 10, name[1:]
		if strings.HasPrefix(digits, "x") {
			base, digits = 16, digits[1:]
		}
		if v, err := strconv.ParseUint(digits, base, 32); err == nil && v > 0 && v < 0x80 {
			r := rune(v)
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			return r, end + 1
		}
	}
	return 0, 0
}

// orig maps a half-open byte range of the folded text back to the original.
func (f folded) orig(src string, a, b int) (int, int) {
	if f.offs == nil {
		return a, b
	}
	if a >= len(f.offs) {
		return len(src), len(src)
	}
	start := f.offs[a]
	if b <= a {
		return start, start
	}
	last := f.offs[b-1]
	_, size := utf8.DecodeRuneInString(src[last:])
	return start, last + size
}

// lookalike maps lower-case Cyrillic and Greek letters that render like
// Latin ones, the usual homoglyph substitutions in "іgnore" tricks.
var lookalikes = [...][2]rune{
	{'а', 'a'},
	{'е', 'e'},
	{'о', 'o'},
	{'р', 'p'},
	{'с', 'c'},
	{'у', 'y'},
	{'х', 'x'},
	{'і', 'i'},
	{'ј', 'j'},
	{'ѕ', 's'},
	{'ԁ', 'd'},
	{'һ', 'h'},
	{'ӏ', 'l'},
	{'ԛ', 'q'},
	{'ԝ', 'w'},
	{'α', 'a'},
	{'ο', 'o'},
	{'ι', 'i'},
	{'ν', 'v'},
	{'κ', 'k'},
	{'τ', 't'},
	{'ρ', 'p'},
}

// lookalike is the Latin letter c renders like, if any. A table, not a
// map: a map literal is built at package initialisation, which every hook
// process would pay for (the hook links scan for its post-tool event).
func lookalike(c rune) (rune, bool) {
	if c < 0x370 || c > 0x52f { // outside Greek and Cyrillic: most text
		return 0, false
	}
	for _, p := range lookalikes {
		if p[0] == c {
			return p[1], true
		}
	}
	return 0, false
}

// UnquoteShell drops the empty quotes and backslashes a shell removes
// inside a word (c”url, c\url), so spellings meant to dodge a matcher
// read as the command they run. Text does not apply it: a caller that
// weighs a command line (an agent config's hook or server launch) does.
func UnquoteShell(s string) string {
	if !strings.ContainsAny(s, `'"\`) {
		return s
	}
	r := strings.NewReplacer(`''`, "", `""`, "")
	s = r.Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isWordByte(s[i+1]) {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
