package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"gopkg.in/yaml.v3"
)

// The policy file's schema, as YAML sees it. Every mapping is checked
// against its known keys before decoding, so a typo is a load error that
// names the line and the key to write instead — a misspelt "acton" must
// never silently produce a rule that does nothing.

type rawFile struct {
	Version     int               `yaml:"version"`
	Profile     string            `yaml:"profile"`
	Mode        string            `yaml:"mode"`
	Default     string            `yaml:"default"`
	AskFallback string            `yaml:"ask_fallback"`
	Escalate    map[string]string `yaml:"escalate"`
	Rules       []rawRule         `yaml:"rules"`
	Grants      []rawGrant        `yaml:"grants"`
	Overrides   []rawOverride     `yaml:"overrides"`
	Forbids     []rawRule         `yaml:"forbids"`
	Indicators  []rawIndicator    `yaml:"indicators"`
	Egress      rawEgress         `yaml:"egress"`
}

// rawEgress is what the egress proxy of airlock run applies beyond the
// per-host decision: a cap on the bytes sent to a host.
type rawEgress struct {
	MaxBytesOut map[string]int64 `yaml:"max_bytes_out"`
}

type rawRule struct {
	ID      string      `yaml:"id"`
	Tool    string      `yaml:"tool"`
	Path    *rawPath    `yaml:"path"`
	Host    strList     `yaml:"host"`
	Command rawCommands `yaml:"command"`
	Text    strList     `yaml:"text"`
	Signal  strList     `yaml:"signal"`
	Env     strList     `yaml:"env"`
	Action  string      `yaml:"action"`
	Reason  string      `yaml:"reason"`
	line    int         // where the rule starts, for messages
}

type rawPath struct {
	Glob   strList `yaml:"glob"`
	Access strList `yaml:"access"`
	Except strList `yaml:"except"`
}

type rawCommand struct {
	Program    strList `yaml:"program"`
	Subcommand strList `yaml:"subcommand"`
	Flags      strList `yaml:"flags"`
	Args       strList `yaml:"args"`
	Unless     strList `yaml:"unless_flags"`
}

type rawCommands []rawCommand

type rawGrant struct {
	Tool    string `yaml:"tool"`
	Match   string `yaml:"match"`
	Reason  string `yaml:"reason"`
	Added   string `yaml:"added"`
	Expires string `yaml:"expires"`
	line    int

	Commands strList `yaml:"commands"` // shell tools: the simple commands the grant covers (grant_commands.go)
	// the commands key is written (an empty list is no matcher at all,
	// which would grant every call of the tool)
	hasCommands bool
}

type rawOverride struct {
	Forbid string `yaml:"forbid"`
	Reason string `yaml:"reason"`
	line   int
}

type rawIndicator struct {
	ID       string  `yaml:"id"`
	Severity string  `yaml:"severity"`
	Text     strList `yaml:"text"`
	Reason   string  `yaml:"reason"`
	line     int
}

// strList accepts a scalar or a sequence of scalars.
type strList []string

func (s *strList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*s = strList{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(strList, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a string in this list", c.Line)
			}
			out = append(out, c.Value)
		}
		*s = out
		return nil
	}
	return fmt.Errorf("line %d: expected a string or a list of strings", n.Line)
}

// rawPath accepts a glob, a list of globs, or {glob, access, except}.
func (p *rawPath) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		type plain rawPath
		return n.Decode((*plain)(p))
	}
	return n.Decode(&p.Glob)
}

// rawCommands accepts one command mapping or a list of them.
func (c *rawCommands) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var one rawCommand
		if err := n.Decode(&one); err != nil {
			return err
		}
		*c = rawCommands{one}
		return nil
	}
	var many []rawCommand
	if err := n.Decode(&many); err != nil {
		return err
	}
	*c = many
	return nil
}

// known keys of each mapping, for the typo check.
var (
	topKeys       = []string{"version", "profile", "mode", "default", "ask_fallback", "escalate", "rules", "grants", "overrides", "forbids", "indicators", "egress"}
	egressKeys    = []string{"max_bytes_out"}
	ruleKeys      = []string{"id", "tool", "path", "host", "command", "text", "signal", "env", "action", "reason"}
	pathSpecKeys  = []string{"glob", "access", "except"}
	commandKeys   = []string{"program", "subcommand", "flags", "args", "unless_flags"}
	grantKeys     = []string{"tool", "match", "commands", "reason", "added", "expires"}
	overrideKeys  = []string{"forbid", "reason"}
	escalateKeys  = []string{"low", "med", "high"}
	indicatorKeys = []string{"id", "severity", "text", "reason"}
)

// checkKeys walks a decoded document and reports every unknown key with
// its line and the nearest known key.
func checkKeys(doc *yaml.Node, errs *errList) {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		errs.add(doc.Line, "the policy must be a mapping of keys (mode:, default:, rules: …), not a %s", kindName(doc))
		return
	}
	checkMap(doc, topKeys, "the policy", errs)
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i].Value, doc.Content[i+1]
		switch k {
		case "rules", "forbids":
			eachMap(v, k, errs, func(m *yaml.Node) {
				checkMap(m, ruleKeys, "a rule", errs)
				for j := 0; j+1 < len(m.Content); j += 2 {
					switch m.Content[j].Value {
					case "path":
						if m.Content[j+1].Kind == yaml.MappingNode {
							checkMap(m.Content[j+1], pathSpecKeys, "path", errs)
						}
					case "command":
						cv := m.Content[j+1]
						if cv.Kind == yaml.MappingNode {
							checkMap(cv, commandKeys, "command", errs)
						} else {
							eachMap(cv, "command", errs, func(c *yaml.Node) { checkMap(c, commandKeys, "command", errs) })
						}
					}
				}
			})
		case "grants":
			eachMap(v, k, errs, func(m *yaml.Node) { checkMap(m, grantKeys, "a grant", errs) })
		case "overrides":
			eachMap(v, k, errs, func(m *yaml.Node) { checkMap(m, overrideKeys, "an override", errs) })
		case "indicators":
			eachMap(v, k, errs, func(m *yaml.Node) { checkMap(m, indicatorKeys, "an indicator", errs) })
		case "egress":
			if v.Kind == yaml.MappingNode {
				checkMap(v, egressKeys, "egress", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.add(v.Line, "egress must be a mapping like {max_bytes_out: {api.example.com: 10000000}}")
			}
		case "escalate":
			if v.Kind == yaml.MappingNode {
				checkMap(v, escalateKeys, "escalate", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.add(v.Line, "escalate must be a mapping like {high: ask, med: allow}")
			}
		}
	}
}

func eachMap(seq *yaml.Node, what string, errs *errList, f func(*yaml.Node)) {
	if seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" {
		return
	}
	if seq.Kind != yaml.SequenceNode {
		errs.add(seq.Line, "%s must be a list (each item starting with \"- \")", what)
		return
	}
	for _, m := range seq.Content {
		if m.Kind != yaml.MappingNode {
			errs.add(m.Line, "each item of %s must be a mapping of keys, not a %s", what, kindName(m))
			continue
		}
		f(m)
	}
}

func checkMap(m *yaml.Node, known []string, what string, errs *errList) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(known, k.Value) {
			// a key is the start of a line of the file: show little of it
			key := textsafe.Cut(k.Value, 32)
			hint := nearest(k.Value, known)
			if hint != "" {
				errs.add(k.Line, "unknown key %q in %s: did you mean %q?", key, what, hint)
			} else {
				errs.add(k.Line, "unknown key %q in %s: known keys are "+strings.Join(known, ", "), key, what)
			}
		}
	}
}

func kindName(n *yaml.Node) string {
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

// nearest returns the known key within edit distance 2 of s, if any.
func nearest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// errList collects every problem in a file so the user fixes them in one go.
type errList struct {
	file string
	errs []lineErr
}

type lineErr struct {
	line int
	msg  string
}

func (e *errList) add(line int, format string, args ...any) {
	for i, a := range args {
		// what is quoted comes from the file, which may not be the
		// user's (an overlay from a repository nobody has read): a
		// message shows a bounded piece of it, never a whole line
		switch v := a.(type) {
		case string:
			args[i] = textsafe.EscapeLoose(textsafe.Cut(v, maxShown))
		case error:
			args[i] = textsafe.EscapeLoose(textsafe.Cut(v.Error(), maxShown))
		}
	}
	e.errs = append(e.errs, lineErr{line, fmt.Sprintf(format, args...)})
}

// addMsg adds a message written whole by Airlock (yamlcheck's, which
// quotes what it shows of the file), with no control character in it.
func (e *errList) addMsg(line int, msg string) {
	e.errs = append(e.errs, lineErr{line, textsafe.EscapeLoose(msg)})
}

// maxShown bounds each piece of a file quoted in a load error, and
// maxProblems the problems listed: a file of ten thousand bad keys is
// reported by its first few, not echoed.
const (
	maxShown    = 120
	maxProblems = 10
)

func (e *errList) err() error {
	if len(e.errs) == 0 {
		return nil
	}
	sort.SliceStable(e.errs, func(i, j int) bool { return e.errs[i].line < e.errs[j].line })
	if n := len(e.errs); n > maxProblems {
		more := lineErr{line: e.errs[maxProblems].line, msg: fmt.Sprintf("and %d more problems from here on: fix these first", n-maxProblems)}
		e.errs = append(e.errs[:maxProblems:maxProblems], more)
	}
	return &LoadError{File: e.file, Problems: e.errs}
}

// LoadError is a policy file that will not load. It names the file and,
// for each problem, the line and what to write instead.
type LoadError struct {
	File     string
	Problems []lineErr
}

func (e *LoadError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		if p.line > 0 {
			fmt.Fprintf(&b, "%s:%d: %s", shownPath(e.File), p.line, p.msg)
		} else {
			fmt.Fprintf(&b, "%s: %s", shownPath(e.File), p.msg)
		}
	}
	return b.String()
}
