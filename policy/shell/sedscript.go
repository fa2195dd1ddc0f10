package shell

import (
	"strings"
)

// The sed script reader: what a script runs, reads and writes.

// sedFacts is what a sed script runs and touches: the e command (e CMD),
// the e flag of s (the pattern space after substitution runs), w/W FILE
// and the w flag write, r/R FILE read.
type sedFacts struct {
	runs, reads, writes []string
	execInput           bool // a bare e runs the pattern space: the input lines are commands
}

// sedScript reads a script's commands for sedFacts; it is linear in the
// script and its output bounded.
func sedScript(script string) sedFacts {
	var f sedFacts
	cmds := splitSed(script)
	for _, c := range cmds {
		if len(f.runs)+len(f.reads)+len(f.writes) >= maxCodeRuns {
			break
		}
		s := strings.TrimLeft(c, " \t")
		s = skipSedAddress(s)
		s = strings.TrimLeft(s, " \t!")
		if s == "" {
			continue
		}
		switch s[0] {
		case 'e':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.runs = append(f.runs, arg)
			} else {
				f.execInput = true
			}
		case 'w', 'W':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.writes = append(f.writes, arg)
			}
		case 'r', 'R':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.reads = append(f.reads, arg)
			}
		case 's', 'y':
			if len(s) < 2 || s[0] == 'y' {
				continue
			}
			d := s[1]
			if d == '\\' || d == '\n' {
				continue
			}
			parts, end := sedParts(s[2:], d, 2)
			if len(parts) < 2 {
				continue
			}
			flags := s[2+end:]
			if k := strings.IndexByte(flags, 'w'); k >= 0 {
				if arg := strings.TrimSpace(flags[k+1:]); arg != "" {
					f.writes = append(f.writes, arg)
				}
				flags = flags[:k]
			}
			if strings.IndexByte(flags, 'e') >= 0 {
				f.runs = append(f.runs, parts[1])
			}
		}
	}
	return f
}

// splitSed splits a script into commands at newlines and at ; outside
// s/// and y/// bodies; w, r, e, a, i, c take the rest of the line.
func splitSed(script string) []string {
	var out []string
	start := 0
	for i := 0; i < len(script) && len(out) < 256; i++ {
		switch script[i] {
		case '\n', ';':
			if script[i] == ';' {
				head := strings.TrimLeft(skipSedAddress(strings.TrimLeft(script[start:i], " \t")), " \t!")
				if head != "" && strings.IndexByte("wWrReaic", head[0]) >= 0 {
					continue // the rest of the line is the argument
				}
			}
			out = append(out, script[start:i])
			start = i + 1
		case 's', 'y':
			if !completeAddress(strings.Trim(script[start:i], " \t!{")) {
				continue // inside a word or an unfinished /regex/ address
			}
			head := strings.TrimLeft(skipSedAddress(strings.TrimLeft(script[start:i], " \t")), " \t!")
			if head != "" || i+1 >= len(script) {
				continue
			}
			d := script[i+1]
			if d == '\n' || d == '\\' {
				continue
			}
			_, end := sedParts(script[i+2:], d, 2)
			i += 1 + end
		}
	}
	out = append(out, script[start:])
	return out
}

// sedParts reads n delimiter-ended parts from s, honouring backslash
// escapes, and returns them and the offset after the last delimiter.
func sedParts(s string, d byte, n int) ([]string, int) {
	var parts []string
	var b strings.Builder
	i := 0
	for ; i < len(s) && len(parts) < n; i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if s[i+1] != d {
				b.WriteByte(c)
			}
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if c == d {
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return parts, i
}

// skipSedAddress skips a line address: numbers, $, /regex/, \cregexc, ranges.
func skipSedAddress(s string) string {
	for guard := 0; guard < 4 && s != ""; guard++ {
		switch c := s[0]; {
		case c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
			i := 0
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+') {
				i++
			}
			s = s[i:]
		case c == '/':
			_, end := sedParts(s[1:], '/', 1)
			s = s[1+end:]
			s = strings.TrimLeft(s, "IM")
		case c == '\\' && len(s) > 1:
			_, end := sedParts(s[2:], s[1], 1)
			s = s[2+end:]
		default:
			return s
		}
		if s != "" && s[0] == ',' {
			s = s[1:]
			continue
		}
		return s
	}
	return s
}

// completeAddress reports text that is empty or whole line addresses
// (1, $, /re/, \cREc, first,last), so what follows it starts a command.
func completeAddress(p string) bool {
	for guard := 0; guard < 4 && p != ""; guard++ {
		switch c := p[0]; {
		case c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
			i := 0
			for i < len(p) && (p[i] >= '0' && p[i] <= '9' || p[i] == '$' || p[i] == '~' || p[i] == '+') {
				i++
			}
			p = p[i:]
		case c == '/' || c == '\\' && len(p) > 1:
			d, body := byte('/'), p[1:]
			if c == '\\' {
				d, body = p[1], p[2:]
			}
			parts, end := sedParts(body, d, 1)
			if len(parts) < 1 {
				return false
			}
			p = strings.TrimLeft(body[end:], "IM")
		default:
			return false
		}
		p = strings.TrimLeft(p, " \t!")
		if p != "" && p[0] == ',' {
			p = p[1:]
			continue
		}
		return p == ""
	}
	return p == ""
}
