package shell

import (
	"strings"
	"unicode/utf8"
)

// decodeANSIC decodes the body of a $'…' string.
func decodeANSIC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'e', 'E':
			out = append(out, 27)
		case 'f':
			out = append(out, 12)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, 11)
		case '\\', '\'', '"', '?':
			out = append(out, c)
		case 'c':
			if i+1 < len(s) {
				i++
				out = append(out, s[i]&0x1f)
			} else {
				out = append(out, '\\', 'c')
			}
		case 'x', 'u', 'U':
			limit := 2
			if c == 'u' {
				limit = 4
			} else if c == 'U' {
				limit = 8
			}
			n, j := 0, 0
			for ; j < limit && i+1+j < len(s) && hexVal(s[i+1+j]) >= 0; j++ {
				n = n*16 + hexVal(s[i+1+j])
			}
			if j == 0 {
				out = append(out, '\\', c)
				continue
			}
			i += j
			if c == 'x' {
				out = append(out, byte(n))
			} else {
				if n > utf8.MaxRune {
					n = utf8.RuneError
				}
				out = utf8.AppendRune(out, rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, 0
			for ; j < 3 && i+j < len(s) && s[i+j] >= '0' && s[i+j] <= '7'; j++ {
				n = n*8 + int(s[i+j]-'0')
			}
			i += j - 1
			out = append(out, byte(n))
		default:
			out = append(out, '\\', c)
		}
	}
	// bash stops at a NUL byte
	if i := strings.IndexByte(string(out), 0); i >= 0 {
		out = out[:i]
	}
	return string(out)
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
