package setup

// blankJSONC returns a copy of src in which the parts JSONC allows and
// JSON does not — // and /* */ comments and a comma right before a closing
// } or ] — are replaced with spaces. Line breaks inside block comments are
// kept, so every byte of the result sits at the same offset and on the
// same line as in src: positions found in the result point into the
// original file. Bytes inside string literals are never changed, so
// "https://x" and "/* not a comment */" survive. A leading UTF-8 byte-order
// mark, which encoding/json refuses, is blanked too.
//
// The result is not checked: an unterminated comment or string runs to the
// end of the input, and encoding/json reports whatever is left that is not
// JSON.
func blankJSONC(src []byte) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out[0], out[1], out[2] = ' ', ' ', ' '
	}
	lastSig := -1 // index of the last byte outside comments that is not white space
	for i := 0; i < len(out); {
		c := out[i]
		switch {
		case c == '"':
			i = stringEnd(out, i)
			lastSig = i - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			i += 2
			for i < len(out) {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i += 2
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
				i++
			}
		case c == '}' || c == ']':
			if lastSig >= 0 && out[lastSig] == ',' {
				out[lastSig] = ' '
			}
			lastSig = i
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			lastSig = i
			i++
		}
	}
	return out
}

// stringEnd returns the offset just past the string literal whose opening
// quote is at b[i], or len(b) when it is never closed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}
