package yamldoc

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Suggest is the "did you mean" of a load error: the entry of known
// fewest edits from s (compared without regard to case), when that is
// at most two; "" when none is that near. A misspelt "acton" must name
// "action", never quietly become a rule that does nothing.
func Suggest(s string, known []string) string {
	best, bestD := "", 3
	s = strings.ToLower(s)
	for _, k := range known {
		if d := Distance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// neighbours ("scna" is one edit from "scan"). It is the one measure of
// a typo in the tree: the loaders' Suggest and the command line's
// suggestions use it.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// UnknownKeys reports each key of the mapping m that is not in known,
// with the known key it is nearest (Suggest) or, when none is near, the
// list of known keys. what names the mapping in the message ("a rule",
// "the contract for \"fs\"").
func UnknownKeys(m *yaml.Node, known []string, what string, p *Problems) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if slices.Contains(known, k.Value) {
			continue
		}
		// a key is the start of a line of the file: show little of it
		key := textsafe.Cut(k.Value, maxKeyShown)
		fix := "known keys are " + strings.Join(known, ", ")
		if hint := Suggest(k.Value, known); hint != "" {
			fix = fmt.Sprintf("did you mean %q?", hint)
		}
		p.AddFix(k.Line, fix, "unknown key %q in %s", key, what)
	}
}

// Kind names a node's kind as a message says it: "list", "mapping",
// "single value", "alias".
func Kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "single value"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}
