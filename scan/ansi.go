package scan

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal control sequences: a text shown in a terminal (Claude Code,
// Codex and Gemini CLI all print tool definitions and results there) can
// conceal what follows (SGR 8), erase what came before (ED, EL), move the
// cursor to overwrite it, set the window title or a hyperlink (OSC), or
// rub out characters with backspaces. The model reads every byte; the
// person reads what the terminal made of them. A colour or a bold is
// reported too (Med): it hides nothing, but it has no business in a tool
// definition and a result's copy is made inert with the rest.

// ansiSequences reports the control sequences in s, one hit per run of
// adjacent ones.
func ansiSequences(s string) []hit {
	var hits []hit
	for i := 0; i < len(s) && len(hits) < MaxPerID; {
		n, style := controlAt(s, i)
		if n == 0 {
			i++
			continue
		}
		a, b, onlyStyle := i, i+n, style
		for b < len(s) {
			m, st := controlAt(s, b)
			if m == 0 {
				break
			}
			b += m
			onlyStyle = onlyStyle && st
		}
		h := hit{fa: -1, fb: -1, oa: a, ob: b}
		h.ID, h.Category, h.Severity = "stealth.ansi", Stealth, High
		h.Explain = fmt.Sprintf("terminal control sequence %s can hide, erase or overwrite what a person sees in a terminal", clip(s[a:b], 40))
		if onlyStyle {
			h.Severity = Med
			h.Explain = fmt.Sprintf("terminal colour or style sequence %s in the text", clip(s[a:b], 40))
		}
		hits = append(hits, h)
		i = b
	}
	return hits
}

// controlAt is the length of the control sequence at s[i] (0 when there
// is none) and whether it only sets colours or styles.
func controlAt(s string, i int) (n int, style bool) {
	switch c := s[i]; {
	case c == 0x1b:
		if i+1 >= len(s) {
			return 1, false
		}
		switch s[i+1] {
		case '[':
			return csi(s, i, i+2)
		case ']', 'P', 'X', '^', '_':
			return stringSeq(s, i, i+2), false
		}
		return 2, false // ESC c (reset), ESC 7/8 (cursor), ESC D/M …
	case c == 0x08 || c == 0x7f:
		return 1, false // backspace and delete rub out what was shown
	case c == 0xc2 && i+1 < len(s):
		// the 8-bit forms, U+009B CSI and U+009D OSC, which some
		// terminals still obey
		switch s[i+1] {
		case 0x9b:
			return csi(s, i, i+2)
		case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
			return stringSeq(s, i, i+2), false
		}
	}
	return 0, false
}

// csi reads a control sequence's parameters and final byte from j.
func csi(s string, start, j int) (int, bool) {
	p := j
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	params := s[p:j]
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j >= len(s) || s[j] < 0x40 || s[j] > 0x7e {
		return j - start, false
	}
	final := s[j]
	return j + 1 - start, final == 'm' && !concealing(params)
}

// concealing reports whether SGR parameters hide the text (8, conceal).
func concealing(params string) bool {
	for _, p := range strings.Split(params, ";") {
		if strings.TrimLeft(p, "0") == "8" {
			return true
		}
	}
	return false
}

// stringSeq reads an OSC, DCS, SOS, PM or APC string up to its
// terminator (BEL or ST), or the end of s.
func stringSeq(s string, start, j int) int {
	for j < len(s) {
		switch {
		case s[j] == 0x07:
			return j + 1 - start
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2 - start
		case s[j] == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c:
			return j + 2 - start
		}
		_, size := utf8.DecodeRuneInString(s[j:])
		j += size
	}
	return len(s) - start
}

// hasControl reports whether s holds a byte that can start a control
// sequence, cheaply, so plain text skips ansiSequences.
func hasControl(s string) bool {
	return strings.IndexByte(s, 0x1b) >= 0 || strings.IndexByte(s, 0x08) >= 0 || strings.IndexByte(s, 0x7f) >= 0 ||
		strings.Contains(s, "\xc2\x9b") || strings.Contains(s, "\xc2\x9d")
}
