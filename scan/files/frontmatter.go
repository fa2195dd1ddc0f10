package files

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// maxFrontmatter bounds the frontmatter block read as YAML.
const maxFrontmatter = 64 << 10

// front is a markdown file's YAML frontmatter: the top-level scalar
// fields an agent reads (name, description, allowed-tools …), and where
// the block ends.
type front struct {
	Fields map[string]string // top-level keys with scalar (or flattened sequence) values
	Lines  int               // lines the block takes, fences included
	Err    error             // the YAML did not parse; Fields holds what could be read
}

// IsSkill reports whether the frontmatter makes its file a skill: a
// name and a description, the two fields every agent's skill loader
// requires.
func (f front) IsSkill() bool {
	return f.Fields["name"] != "" && f.Fields["description"] != ""
}

// Frontmatter reads the YAML block a markdown file starts with, between a
// first line "---" and the next line "---" (or "..."). ok is false when
// the file has none. A block that is not valid YAML still reports ok with
// Err set: a skill loader may read it more leniently than yaml.v3, so the
// scanner still scans it as text.
func Frontmatter(src []byte) (front, bool) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	first, rest, found := cutLine(src)
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return front{}, false
	}
	var block []byte
	lines := 1
	for len(rest) > 0 {
		line, next, _ := cutLine(rest)
		lines++
		t := string(bytes.TrimRight(line, " \t\r"))
		if t == "---" || t == "..." {
			block = src[len(first)+1 : len(src)-len(rest)]
			break
		}
		rest = next
		if len(src)-len(rest) > maxFrontmatter {
			return front{Lines: lines, Err: fmt.Errorf("frontmatter longer than %d bytes", maxFrontmatter)}, true
		}
	}
	if block == nil {
		return front{}, false
	}
	f := front{Fields: map[string]string{}, Lines: lines}
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		f.Err = err
		return f, true
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return f, true
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			f.Fields[k.Value] = v.Value
		case yaml.SequenceNode:
			var b bytes.Buffer
			for j, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					continue
				}
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(e.Value)
			}
			f.Fields[k.Value] = b.String()
		}
	}
	return f, true
}

func cutLine(b []byte) (line, rest []byte, found bool) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:], true
	}
	return b, nil, false
}
