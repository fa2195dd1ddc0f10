package textsafe

import "strconv"

// Path is a file's path as a message shows it: as it is when it prints
// plainly, quoted when it holds a control character (a repository's
// directory named to forge a line, or to send a terminal escape) or any
// other character of the table (a Hangul filler strconv.Quote would
// keep, being a letter).
func Path(p string) string {
	if q := strconv.Quote(p); q[1:len(q)-1] != p || Escape(p) != p {
		return EscapeLoose(q) // strconv.Quote's form, with the hidden letters it keeps escaped too
	}
	return p
}
