// Package yamlcheck parses the YAML files a person (or a repository
// nobody has read) writes for Airlock — the policy, a repository overlay,
// the contracts file — strictly, and says what is wrong with them on the
// line a person would point at.
//
// yaml.v3 alone is not strict enough for a gate's configuration:
//
//   - A key written twice in one mapping is refused when yaml.v3 decodes
//     into a Go value, but a caller that walks the yaml.Node tree itself
//     (as the policy loader does, to keep every line) sees both and keeps
//     whichever it reads last: one appended `mode: observe` switched the
//     gate off. Parse refuses a repeated key at every level, naming both
//     lines and the key's path.
//   - A merge key (`<<: *defaults`) lets a key written beside it replace
//     a merged one silently, so a reader of the file cannot tell which
//     value is in force: refused.
//   - yaml.Unmarshal reads the first document and ignores the rest, so a
//     `---` followed by more settings is silently dropped: a second
//     document is refused.
//   - yaml.v3's syntax errors name the line where the construct around
//     the problem starts, counted from 0 for some errors and from 1 for
//     others, and sometimes no line at all. Parse finds the first line at
//     which the document cannot be valid and reports that line once,
//     with what to fix.
package yamlcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Problem is one thing wrong in a file: the line (0 for the file as a
// whole) and a message that says what to fix. The message never repeats
// the line.
type Problem struct {
	Line int
	Msg  string
}

// MaxProblems bounds the repeated keys reported for one file: a file of
// ten thousand repeated keys is reported by its first few.
const MaxProblems = 20

// Parse parses data as at most one YAML document and checks it. On a
// syntax error it returns nil and that one problem. Otherwise it returns
// the document node (a DocumentNode with no content when data holds no
// document) and the repeated keys, merge keys and extra documents found;
// a caller must refuse the file when any problem is returned.
func Parse(data []byte) (*yaml.Node, []Problem) {
	docs, err := decodeAll(data)
	if err != nil {
		return nil, []Problem{syntaxProblem(data, err)}
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode}
	if len(docs) > 0 {
		doc = docs[0]
	}
	var probs []Problem
	if len(docs) > 1 {
		probs = append(probs, Problem{Line: docStart(data, docs[1]),
			Msg: "a second YAML document starts here (after a `---` line): Airlock reads one document per file and would ignore this one; remove the `---` line and merge the two"})
	}
	w := walker{probs: probs}
	w.node(doc)
	return doc, w.probs
}

// decodeAll decodes every document of data.
func decodeAll(data []byte) (docs []*yaml.Node, err error) {
	defer func() {
		// yaml.v3 recovers its own panics into errors; this is for one it
		// does not, so that a file never takes the process down.
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("yaml: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
		if len(docs) == 2 {
			return docs, nil // the second is refused: no need to read on
		}
	}
}

// docStart is the line of the `---` that starts doc: the line of its
// first node, or one before it past blank lines, comments, directives and
// a `...` ending the document before. A document that follows a `...`
// with no `---` starts at its first node.
func docStart(data []byte, doc *yaml.Node) int {
	line := doc.Line
	if len(doc.Content) > 0 {
		line = doc.Content[0].Line
	}
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return line
	}
	if bytes.HasPrefix(lines[line-1], []byte("---")) {
		return line
	}
	for l := line - 1; l >= 1; l-- {
		text := lines[l-1]
		if bytes.HasPrefix(text, []byte("---")) {
			return l
		}
		if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '#' && t[0] != '%' && !bytes.Equal(t, []byte("...")) {
			break
		}
	}
	return line
}

type walker struct {
	probs []Problem
	path  []step // where the walk is, built into a string only for a message
}

// step is one step of a key path: a key of a mapping or an item of a list.
type step struct {
	key   string
	index int // -1 for a key
}

func (w *walker) add(line int, format string, args ...any) {
	if len(w.probs) < MaxProblems {
		w.probs = append(w.probs, Problem{line, fmt.Sprintf(format, args...)})
	}
}

// pathString is the walk's path as a message shows it: rules[0].action.
func (w *walker) pathString() string {
	var b strings.Builder
	for i, s := range w.path {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case i > 0:
			b.WriteString(".")
			fallthrough
		default:
			b.WriteString(textsafe.Cut(s.key, maxKeyShown))
		}
	}
	return b.String()
}

// where is the walk's place for a message: quoted, or the top level.
func (w *walker) where() string {
	if len(w.path) == 0 {
		return "the top-level mapping"
	}
	return quote(w.pathString())
}

// node checks n and everything under it. Aliases are not followed: the
// node they refer to is checked where it is written, so the walk is linear
// in the file whatever the aliases expand to.
func (w *walker) node(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			w.node(c)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			w.path = append(w.path, step{index: i})
			w.node(c)
			w.path = w.path[:len(w.path)-1]
		}
	case yaml.MappingNode:
		var seen map[string]int // key → its line; for a small mapping, a scan back is cheaper
		if len(n.Content) > 2*smallMapping {
			seen = make(map[string]int, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := k
			if key.Kind == yaml.AliasNode {
				// yaml.v3 gives an alias node its anchor's name as its
				// Value: a loader that walks the nodes would read
				// `*mode : observe` as the key mode whatever &mode anchors
				w.add(k.Line, "an alias %s used as a key in %s: the loaders read a key by its name as written, another reader by what the alias refers to; write the key out", quote("*"+k.Value), w.where())
				continue
			}
			if key.Kind == yaml.ScalarNode && key.ShortTag() == "!!merge" {
				w.add(k.Line, "a merge key (<<) in %s: a key written beside it silently replaces the merged one, so the file does not say which value is in force; write the keys out instead", w.where())
				continue
			}
			if key.Kind != yaml.ScalarNode {
				// yaml.v3 would compare it by its kind alone; no file
				// Airlock reads has a use for one
				w.add(k.Line, "a %s used as a key in %s: a key is a name; write one", kindName(key), w.where())
				continue
			}
			name := key.Value // as yaml.v3 compares keys: `mode` and "mode" are one
			w.path = append(w.path, step{key: name, index: -1})
			if first, dup := firstLine(n.Content[:i], seen, name); dup {
				w.add(k.Line, "key %s repeated (first at line %d); remove one", quote(w.pathString()), first)
			} else if seen != nil {
				seen[name] = k.Line
			}
			w.node(v)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// smallMapping is the most keys a mapping is checked for repeats by
// scanning back over its earlier keys rather than with a map: most
// mappings of a policy have a handful, and a map each cost a tenth more
// allocations for the whole load.
const smallMapping = 16

// firstLine is the line of the first key called name in a mapping whose
// earlier pairs are before (seen holds them, for a large mapping).
func firstLine(before []*yaml.Node, seen map[string]int, name string) (int, bool) {
	if seen != nil {
		l, ok := seen[name]
		return l, ok
	}
	for j := 0; j+1 < len(before); j += 2 {
		k := before[j]
		if k.Kind == yaml.ScalarNode && k.ShortTag() != "!!merge" && k.Value == name {
			return before[j].Line, true
		}
	}
	return 0, false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value"
}

// quote shows a key path from the file with its control characters
// escaped and at most maxPathShown bytes of it: a repository's overlay
// may be written to forge lines of a message or to flood it.
func quote(s string) string {
	return strconv.Quote(textsafe.Cut(s, maxPathShown))
}

// maxKeyShown bounds each key of a path a message shows, and maxPathShown
// the path: a key is the start of a line of the file, which may be a
// credentials file copied into a repository, so little of it is shown.
const (
	maxKeyShown  = 32
	maxPathShown = 80
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
func syntaxProblem(data []byte, err error) Problem {
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
	return Problem{Line: line, Msg: "not valid YAML: " + textsafe.Cut(msg, maxMsgShown) + hint(msg, lineText(data, ends, line))}
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

// hint says what to fix, for the errors people make.
func hint(msg, text string) string {
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	switch {
	case strings.Contains(indent, "\t") || strings.Contains(msg, "tab character"):
		return ": a tab indents this line; YAML indents with spaces only: replace the tab with spaces"
	case strings.Contains(msg, "end of stream") && strings.ContainsAny(text, `"'`):
		return ": a quote opened on this line is never closed: close it, or remove it"
	case strings.HasPrefix(msg, "did not find expected ',' or"), msg == "did not find expected node content" && strings.ContainsAny(text, "[{"):
		return ": a [ or { opened on this line is never closed, or two of its items lack a comma between them: close it, or write the list on lines of their own starting with \"- \""
	case msg == "did not find expected key" && strings.HasPrefix(strings.TrimSpace(text), "-"):
		return ": a list item (\"- \") where a key was expected: indent it under the key whose list it belongs to, or remove the \"-\""
	case msg == "did not find expected key":
		return ": this line is not indented like the keys around it: line it up with the key it belongs beside"
	case msg == "did not find expected '-' indicator":
		return ": this line is not indented like the list around it: line it up with the \"- \" above, or indent it under that item's first key"
	case msg == "mapping values are not allowed in this context":
		return ": a \"key: value\" cannot start here: check this line's indentation and that the line above ends its key with \":\"; quote a value that contains \": \""
	case msg == "could not find expected ':'":
		return ": this line has a key with no \":\" after it: write key: value"
	case msg == "block sequence entries are not allowed in this context":
		return ": a list item (\"- \") cannot follow a key on its line: put the list on lines of its own under the key"
	case strings.HasPrefix(msg, "unknown anchor"):
		return ": an alias (*name) must name an anchor (&name) written before it"
	}
	return ""
}
