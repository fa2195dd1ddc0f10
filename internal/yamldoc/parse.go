package yamldoc

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

// maxFound bounds the repeated keys reported for one file: a file of
// ten thousand repeated keys is reported by its first few.
const maxFound = 20

// Parse parses data as at most one YAML document and checks it. On a
// syntax error it returns nil and that one problem. Otherwise it returns
// the document node (a DocumentNode with no content when data holds no
// document) and the repeated keys, merge keys and extra documents found;
// a caller must refuse the file when any problem is returned.
func Parse(data []byte) (*yaml.Node, []problem) {
	docs, err := decodeAll(data)
	if err != nil {
		return nil, []problem{syntaxProblem(data, err)}
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode}
	if len(docs) > 0 {
		doc = docs[0]
	}
	var probs []problem
	if len(docs) > 1 {
		probs = append(probs, problem{Line: docStart(data, docs[1]),
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
	probs []problem
	path  []step // where the walk is, built into a string only for a message
}

// step is one step of a key path: a key of a mapping or an item of a list.
type step struct {
	key   string
	index int // -1 for a key
}

// add reports a problem at the key k.
func (w *walker) add(k *yaml.Node, format string, args ...any) {
	if len(w.probs) < maxFound {
		w.probs = append(w.probs, problem{Line: k.Line, Column: k.Column, Msg: fmt.Sprintf(format, args...)})
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
				w.add(k, "an alias %s used as a key in %s: the loaders read a key by its name as written, another reader by what the alias refers to; write the key out", quote("*"+k.Value), w.where())
				continue
			}
			if key.Kind == yaml.ScalarNode && key.ShortTag() == "!!merge" {
				w.add(k, "a merge key (<<) in %s: a key written beside it silently replaces the merged one, so the file does not say which value is in force; write the keys out instead", w.where())
				continue
			}
			if key.Kind != yaml.ScalarNode {
				// yaml.v3 would compare it by its kind alone; no file
				// Airlock reads has a use for one
				w.add(k, "a %s used as a key in %s: a key is a name; write one", Kind(key), w.where())
				continue
			}
			name := key.Value // as yaml.v3 compares keys: `mode` and "mode" are one
			w.path = append(w.path, step{key: name, index: -1})
			if first, dup := firstLine(n.Content[:i], seen, name); dup {
				w.add(k, "key %s repeated (first at line %d); remove one", quote(w.pathString()), first)
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
