package yamldoc

import (
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// message is yaml.v3's error text without its "yaml: " and "line N: ".
func message(err error) (msg string, line int) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	line, msg = CutLine(msg)
	return msg, line
}

// CutLine splits the "line N: " yaml.v3 puts in front of a message from
// it; line is 0 when there is none. (By hand: a package-level regexp would
// be compiled by every process that reads a policy, the hook included.)
func CutLine(msg string) (line int, rest string) {
	digits, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return 0, msg
	}
	i := 0
	for i < len(digits) && i < 9 && '0' <= digits[i] && digits[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(digits[i:], ": ") {
		return 0, msg
	}
	n, _ := strconv.Atoi(digits[:i])
	return n, digits[i+2:]
}

// syntaxProblem reports a syntax error on the line a person would point
// at. For most errors that is the first line at which the document can no
// longer be valid: the shortest prefix of whole lines that fails exactly
// as the whole file fails (a shorter prefix either parses or fails with
// another message or line). A quote or a bracket left open is found only
// at the end of the file, and there the line to point at is the one it
// opens on: yaml.v3 names it (counted from 1 for a quote, from 0 for a
// bracket) unless it is the first line, when it names the end instead.
func syntaxProblem(data []byte, err error) problem {
	msg, r := message(err)
	ends := lineEnds(data)
	line := 0
	var candidates []int
	var opener string
	switch {
	case strings.Contains(msg, "end of stream"):
		candidates, opener = []int{r, 1}, `"'`
	case strings.HasPrefix(msg, "did not find expected ',' or ']'"):
		candidates, opener = []int{r + 1, 1}, "["
	case strings.HasPrefix(msg, "did not find expected ',' or '}'"):
		candidates, opener = []int{r + 1, 1}, "{"
	}
	for _, c := range candidates {
		if strings.ContainsAny(lineText(data, ends, c), opener) {
			line = c
			break
		}
	}
	if line == 0 {
		full := err.Error()
		line = firstFailing(data, ends, r, func(e error) bool { return e.Error() == full })
	}
	// yaml.v3 names an unknown alias whole, as long as the file makes it
	return problem{Line: line, Msg: "not valid YAML: " + textsafe.Cut(msg, maxMsgShown), Fix: hint(msg, lineText(data, ends, line))}
}

// maxMsgShown bounds yaml.v3's own message in a syntax problem.
const maxMsgShown = 120

// lineEnds are the offsets just past each line of data (its newline
// included); a last line without a newline counts.
func lineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}

// firstFailing is the least k in 1..len(ends) such that the first k lines
// fail with an error same accepts: once the lines up to the problem are
// in, every longer prefix fails the same way. The search starts from the
// line yaml.v3 named (hint), which is the problem's line or a little
// before it, and gallops on from there, so it mostly costs two or three
// parses; it parses at most about four times the file, past which it
// answers with the least line it has seen fail (a 1 MiB policy broken on
// its last line would otherwise take some twenty parses, seconds on
// every call the hook refuses).
func firstFailing(data []byte, ends []int, hint int, same func(error) bool) int {
	n := len(ends)
	budget := 3*len(data) + searchBytes
	// fails reports whether the first k lines fail so; ok is false when
	// the search cannot afford to find out
	fails := func(k int) (fail, ok bool) {
		size := ends[k-1]
		if size > budget {
			return false, false
		}
		budget -= size
		_, err := decodeAll(data[:size])
		return err != nil && same(err), true
	}
	lo, hi := 0, n // the first lo lines do not fail so; the first hi do
	if base := min(max(hint-1, 1), n); base < n {
		fail, ok := fails(base)
		switch {
		case !ok:
			return hi
		case fail:
			hi = base
		default:
			lo = base
			for step := 1; lo+step < hi; step *= 2 {
				fail, ok := fails(lo + step)
				if !ok {
					return hi
				}
				if fail {
					hi = lo + step
					break
				}
				lo += step
			}
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		fail, ok := fails(mid)
		if !ok {
			break
		}
		if fail {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// searchBytes is what the search for an error's line may always parse,
// whatever the size of the file.
const searchBytes = 256 << 10

func lineText(data []byte, ends []int, line int) string {
	if line < 1 || line > len(ends) {
		return ""
	}
	start := 0
	if line > 1 {
		start = ends[line-2]
	}
	return strings.TrimRight(string(data[start:ends[line-1]]), "\r\n")
}

// hint says what to fix, for the errors people make; "" for others.
func hint(msg, text string) string {
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	switch {
	case strings.Contains(indent, "\t") || strings.Contains(msg, "tab character"):
		return "a tab indents this line; YAML indents with spaces only: replace the tab with spaces"
	case strings.Contains(msg, "end of stream") && strings.ContainsAny(text, `"'`):
		return "a quote opened on this line is never closed: close it, or remove it"
	case strings.HasPrefix(msg, "did not find expected ',' or"), msg == "did not find expected node content" && strings.ContainsAny(text, "[{"):
		return "a [ or { opened on this line is never closed, or two of its items lack a comma between them: close it, or write the list on lines of their own starting with \"- \""
	case msg == "did not find expected key" && strings.HasPrefix(strings.TrimSpace(text), "-"):
		return "a list item (\"- \") where a key was expected: indent it under the key whose list it belongs to, or remove the \"-\""
	case msg == "did not find expected key":
		return "this line is not indented like the keys around it: line it up with the key it belongs beside"
	case msg == "did not find expected '-' indicator":
		return "this line is not indented like the list around it: line it up with the \"- \" above, or indent it under that item's first key"
	case msg == "mapping values are not allowed in this context":
		return "a \"key: value\" cannot start here: check this line's indentation and that the line above ends its key with \":\"; quote a value that contains \": \""
	case msg == "could not find expected ':'":
		return "this line has a key with no \":\" after it: write key: value"
	case msg == "block sequence entries are not allowed in this context":
		return "a list item (\"- \") cannot follow a key on its line: put the list on lines of its own under the key"
	case strings.HasPrefix(msg, "unknown anchor"):
		return "an alias (*name) must name an anchor (&name) written before it"
	}
	return ""
}
