package policy

import (
	"fmt"

	"github.com/agentairlock/airlock/internal/yamldoc"
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
	// the managed policy only (managed.go)
	LockForbids strList  `yaml:"lock_forbids"`
	NoGrants    strList  `yaml:"no_grants"`
	Export      strList  `yaml:"export"`
	Audit       rawAudit `yaml:"audit"`
	Taint       rawTaint `yaml:"taint"`
	Loop        rawLoop  `yaml:"loop"`
}

// rawLoop is the loop detector (limits.go): more than repeat identical
// calls within window get action; except names tools never counted.
type rawLoop struct {
	Repeat int     `yaml:"repeat"`
	Window string  `yaml:"window"`
	Action string  `yaml:"action"`
	Except strList `yaml:"except"`
}

// rawLimit is one cap of limits: (limits.go).
type rawLimit struct {
	Tool      string `yaml:"tool"`
	PerMinute int    `yaml:"per_minute"`
	Per       string `yaml:"per"`
	Action    string `yaml:"action"`
	line      int
}

// rawAudit is what the managed policy requires of every user's audit log
// (managed.go): records signed (sign: hmac or ed25519) and anchors kept in
// a directory (anchor_dir).
type rawAudit struct {
	Sign      string `yaml:"sign"`
	AnchorDir string `yaml:"anchor_dir"`
}

// rawTaint is what a tainted session's privileged actions get (ask or
// block) and how long a taint lasts (a Go duration: 2h, 30m).
type rawTaint struct {
	Action string `yaml:"action"`
	TTL    string `yaml:"ttl"`
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
	Flow    *rawFlow    `yaml:"flow"`
	Action  string      `yaml:"action"`
	Reason  string      `yaml:"reason"`
	line    int         // where the rule starts, for messages
}

type rawPath struct {
	Glob   strList `yaml:"glob"`
	Access strList `yaml:"access"`
	Except strList `yaml:"except"`
	// OrAbsent (allow rules only): the rule also holds for a call with no
	// path of its access (a Grep or Glob without a path searches the
	// workspace).
	OrAbsent bool `yaml:"or_absent"`
}

type rawCommand struct {
	Program    strList `yaml:"program"`
	Subcommand strList `yaml:"subcommand"`
	Flags      strList `yaml:"flags"`
	Args       strList `yaml:"args"`
	Unless     strList `yaml:"unless_flags"`
	// MinArgs: at least this many positional arguments after the
	// subcommand (`git config --global alias.st` reads a setting; with a
	// value after the name it writes one).
	MinArgs int `yaml:"min_args"`
	// Options: option name alternatives ("v|volume|mount") → value
	// patterns, one of which the option's value must fit (cmd_options.go).
	Options optionMap `yaml:"options"`
	// UnlessArgs: the word right after the subcommand (or the program)
	// fitting one of these is no match (airlock allow list is a read).
	UnlessArgs strList `yaml:"unless_args"`
	// Sources: a positional before the last (mv, cp, rsync sources; with
	// -t/--target-directory any positional) fits one of these.
	Sources strList `yaml:"sources"`
	// Cwd: the directory the command runs in fits one of these.
	Cwd strList `yaml:"cwd"`
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

// optionMap is a command pattern's `options:` mapping, kept as a list of
// pairs (a Go map literal in the compiled forbids would be built at every
// hook's start; a list is static data).
type optionMap []optionEntry

type optionEntry struct {
	Names  string
	Values strList
}

func (m *optionMap) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: options: want a mapping of option names to value patterns", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var e optionEntry
		if err := n.Content[i].Decode(&e.Names); err != nil {
			return err
		}
		if err := n.Content[i+1].Decode(&e.Values); err != nil {
			return err
		}
		*m = append(*m, e)
	}
	return nil
}

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

// rawPath accepts a glob, a list of globs, or {glob, access, except, or_absent}.
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
	topKeys       = []string{"version", "profile", "mode", "default", "ask_fallback", "escalate", "rules", "grants", "overrides", "forbids", "indicators", "egress", "tests", "lock_forbids", "no_grants", "taint", "export", "audit", "limits", "loop"}
	auditKeys     = []string{"sign", "anchor_dir"}
	taintKeys     = []string{"action", "ttl"}
	loopKeys      = []string{"repeat", "window", "action", "except"}
	limitKeys     = []string{"tool", "per_minute", "per", "action"}
	egressKeys    = []string{"max_bytes_out"}
	ruleKeys      = []string{"id", "tool", "path", "host", "command", "text", "signal", "env", "flow", "action", "reason"}
	forbidKeys    = append(ruleKeys[:len(ruleKeys):len(ruleKeys)], "tests") // a forbid carries its own examples (Tests)
	pathSpecKeys  = []string{"glob", "access", "except", "or_absent"}
	commandKeys   = []string{"program", "subcommand", "flags", "args", "unless_flags", "min_args", "options", "unless_args", "sources", "cwd"}
	grantKeys     = []string{"tool", "match", "commands", "reason", "added", "expires"}
	overrideKeys  = []string{"forbid", "reason"}
	escalateKeys  = []string{"low", "med", "high"}
	indicatorKeys = []string{"id", "severity", "text", "reason"}
)

// checkKeys walks a decoded document and reports every unknown key with
// its line and the nearest known key (yamldoc.UnknownKeys).
func checkKeys(doc *yaml.Node, errs *yamldoc.Problems) {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		errs.Add(doc.Line, "the policy must be a mapping of keys (mode:, default:, rules: …), not a %s", yamldoc.Kind(doc))
		return
	}
	yamldoc.UnknownKeys(doc, topKeys, "the policy", errs)
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i].Value, doc.Content[i+1]
		switch k {
		case "rules", "forbids":
			keys, what := ruleKeys, "a rule"
			if k == "forbids" {
				keys, what = forbidKeys, "a forbid"
			}
			eachMap(v, k, errs, func(m *yaml.Node) {
				yamldoc.UnknownKeys(m, keys, what, errs)
				for j := 0; j+1 < len(m.Content); j += 2 {
					switch m.Content[j].Value {
					case "path":
						if m.Content[j+1].Kind == yaml.MappingNode {
							yamldoc.UnknownKeys(m.Content[j+1], pathSpecKeys, "path", errs)
						}
					case "flow":
						if m.Content[j+1].Kind == yaml.MappingNode {
							yamldoc.UnknownKeys(m.Content[j+1], flowKeys, "flow", errs)
						}
					case "command":
						cv := m.Content[j+1]
						if cv.Kind == yaml.MappingNode {
							yamldoc.UnknownKeys(cv, commandKeys, "command", errs)
						} else {
							eachMap(cv, "command", errs, func(c *yaml.Node) { yamldoc.UnknownKeys(c, commandKeys, "command", errs) })
						}
					}
				}
			})
		case "grants":
			eachMap(v, k, errs, func(m *yaml.Node) { yamldoc.UnknownKeys(m, grantKeys, "a grant", errs) })
		case "overrides":
			eachMap(v, k, errs, func(m *yaml.Node) { yamldoc.UnknownKeys(m, overrideKeys, "an override", errs) })
		case "indicators":
			eachMap(v, k, errs, func(m *yaml.Node) { yamldoc.UnknownKeys(m, indicatorKeys, "an indicator", errs) })
		case "egress":
			if v.Kind == yaml.MappingNode {
				yamldoc.UnknownKeys(v, egressKeys, "egress", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.Add(v.Line, "egress must be a mapping like {max_bytes_out: {api.example.com: 10000000}}")
			}
		case "audit":
			if v.Kind == yaml.MappingNode {
				yamldoc.UnknownKeys(v, auditKeys, "audit", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.Add(v.Line, "audit must be a mapping like {sign: hmac, anchor_dir: /var/lib/airlock/anchors}")
			}
		case "taint":
			if v.Kind == yaml.MappingNode {
				yamldoc.UnknownKeys(v, taintKeys, "taint", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.Add(v.Line, "taint must be a mapping like {action: ask, ttl: 2h}")
			}
		case "limits":
			eachMap(v, k, errs, func(m *yaml.Node) { yamldoc.UnknownKeys(m, limitKeys, "a limit", errs) })
		case "loop":
			if v.Kind == yaml.MappingNode {
				yamldoc.UnknownKeys(v, loopKeys, "loop", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.Add(v.Line, "loop must be a mapping like {repeat: 20, window: 2m, action: ask}")
			}
		case "escalate":
			if v.Kind == yaml.MappingNode {
				yamldoc.UnknownKeys(v, escalateKeys, "escalate", errs)
			} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				errs.Add(v.Line, "escalate must be a mapping like {high: ask, med: allow}")
			}
		}
	}
}

func eachMap(seq *yaml.Node, what string, errs *yamldoc.Problems, f func(*yaml.Node)) {
	if seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" {
		return
	}
	if seq.Kind != yaml.SequenceNode {
		errs.Add(seq.Line, "%s must be a list (each item starting with \"- \")", what)
		return
	}
	for _, m := range seq.Content {
		if m.Kind != yaml.MappingNode {
			errs.Add(m.Line, "each item of %s must be a mapping of keys, not a %s", what, yamldoc.Kind(m))
			continue
		}
		f(m)
	}
}
