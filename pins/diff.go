package pins

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// change names the pinned fields of one tool that differ:
// "title", "description", "inputSchema", "outputSchema", "annotations".
type change struct {
	Name   string
	Fields []string
}

// diff is what changed between two toolsets, each list sorted by name.
type diff struct {
	Added, Removed []string
	Changed        []change
}

// Compare reports how new differs from old; a nil old means everything in
// new was added.
func Compare(old, new *Toolset) diff {
	var d diff
	var ot, nt []Tool
	if old != nil {
		ot = old.Tools
	}
	if new != nil {
		nt = new.Tools
	}
	// both lists are sorted by name: walk them together
	i, j := 0, 0
	for i < len(ot) || j < len(nt) {
		switch {
		case j == len(nt) || i < len(ot) && ot[i].Name < nt[j].Name:
			d.Removed = append(d.Removed, ot[i].Name)
			i++
		case i == len(ot) || nt[j].Name < ot[i].Name:
			d.Added = append(d.Added, nt[j].Name)
			j++
		default:
			if ot[i].Digest != nt[j].Digest {
				d.Changed = append(d.Changed, change{Name: nt[j].Name, Fields: changedFields(&ot[i], &nt[j])})
			}
			i++
			j++
		}
	}
	return d
}

// changedFields lists the pinned fields whose canonical values differ. A
// field present on one side only counts as changed.
func changedFields(a, b *Tool) []string {
	fa, errA := a.Fields()
	fb, errB := b.Fields()
	if errA != nil || errB != nil {
		// Canon is produced by canonical(); this only happens to a
		// hand-edited pins.json. The tool changed; say so without detail.
		return []string{"tool"}
	}
	var fields []string
	for _, f := range pinnedFields[1:] {
		if !bytes.Equal(fa[f], fb[f]) {
			fields = append(fields, f)
		}
	}
	return fields
}

// Empty reports whether the toolsets were the same.
func (d diff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// maxListed bounds each part of String: the line goes into refusal
// messages, and a server adding a thousand tools should not make a
// thousand-name reason.
const maxListed = 8

// String is the diff on one line, names escaped for a terminal:
// `added run_command; removed x; changed read_file (description, inputSchema)`.
func (d diff) String() string {
	if d.Empty() {
		return "no change"
	}
	var parts []string
	if len(d.Added) > 0 {
		parts = append(parts, "added "+listNames(d.Added, func(s string) string { return textsafe.Escape(s) }))
	}
	if len(d.Removed) > 0 {
		parts = append(parts, "removed "+listNames(d.Removed, func(s string) string { return textsafe.Escape(s) }))
	}
	if len(d.Changed) > 0 {
		names := make([]string, len(d.Changed))
		for i, c := range d.Changed {
			names[i] = fmt.Sprintf("%s (%s)", textsafe.Escape(c.Name), strings.Join(c.Fields, ", "))
		}
		parts = append(parts, "changed "+listNames(names, func(s string) string { return s }))
	}
	return strings.Join(parts, "; ")
}

func listNames(names []string, show func(string) string) string {
	n := min(len(names), maxListed)
	out := make([]string, n)
	for i := range n {
		out[i] = show(names[i])
	}
	s := strings.Join(out, ", ")
	if len(names) > n {
		s += fmt.Sprintf(" and %d more", len(names)-n)
	}
	return s
}
