package policy

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/yamldoc"
	"github.com/agentairlock/airlock/profiles"
	"gopkg.in/yaml.v3"
)

// Test is one example a policy file carries: a call and the decision the
// policy must make on it. A policy's `tests:` list holds them, and so does
// each built-in forbid (its own examples, in profiles/forbids.yaml).
// `airlock policy test` runs them; the hook never reads them.
type Test struct {
	File   string // the file it was written in
	Line   int
	Name   string // what it shows, as written ("" when not)
	Forbid string // the forbid whose example it is ("" for a policy's own test)

	Tool  string
	Input []byte // the tool's arguments, a JSON object
	Cwd   string // "" for the directory the tests run in

	Expect Action // what the policy decides (before the mode)
	Rule   string // the rule or forbid that must decide it ("" for any)

	// Skip says why the test cannot run here (it names ${workspace} and
	// the directory the tests run in is in none); "" when it can.
	Skip string
}

var testKeys = []string{"name", "tool", "input", "bash", "read", "write", "fetch", "cwd", "expect", "rule"}

// shorthands: a key that is the tool and its one argument.
var testShorthands = []struct{ key, tool, arg string }{
	{"bash", "Bash", "command"},
	{"read", "Read", "file_path"},
	{"write", "Write", "file_path"},
	{"fetch", "WebFetch", "url"},
}

// Tests returns the `tests:` of one policy file (its YAML as data), with
// ${home}, ${workspace}, ${tmp} and the other variables expanded in every
// string of a call and in cwd. A file that has none returns none. Every
// malformed test is reported with its line, as any other problem of the
// file; the file's rules are not compiled here (Load does that).
func Tests(data []byte, file string, vars Vars) ([]Test, error) {
	errs := yamldoc.Problems{File: file}
	doc, probs := yamldoc.Parse(data)
	if len(probs) > 0 {
		for _, p := range probs {
			errs.AddProblem(p)
		}
		return nil, errs.Err()
	}
	top := docMapping(doc)
	if top == nil {
		return nil, nil
	}
	var tests []Test
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch k, v := top.Content[i].Value, top.Content[i+1]; k {
		case "tests":
			tests = append(tests, decodeTests(v, file, "", Block, vars, &errs)...)
		case "forbids":
			tests = append(tests, forbidTests(v, file, vars, &errs)...)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return tests, nil
}

// ForbidTests returns the built-in forbids' own examples.
func ForbidTests(vars Vars) ([]Test, error) {
	return Tests(profiles.Forbids(), "profiles/forbids.yaml", vars)
}

func docMapping(doc *yaml.Node) *yaml.Node {
	if doc == nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	return doc
}

// forbidTests reads each forbid's tests:, whose expect defaults to the
// forbid's own action and whose rule is the forbid.
func forbidTests(seq *yaml.Node, file string, vars Vars, errs *yamldoc.Problems) []Test {
	if seq.Kind != yaml.SequenceNode {
		return nil
	}
	var out []Test
	for _, m := range seq.Content {
		if m.Kind != yaml.MappingNode {
			continue
		}
		id, action, tests := "", Block, (*yaml.Node)(nil)
		for j := 0; j+1 < len(m.Content); j += 2 {
			switch v := m.Content[j+1]; m.Content[j].Value {
			case "id":
				id = v.Value
			case "action":
				if a, err := parseAction(v.Value); err == nil {
					action = a
				}
			case "tests":
				tests = v
			}
		}
		if tests != nil {
			out = append(out, decodeTests(tests, file, id, action, vars, errs)...)
		}
	}
	return out
}

func decodeTests(seq *yaml.Node, file, forbid string, dflt Action, vars Vars, errs *yamldoc.Problems) []Test {
	var out []Test
	eachMap(seq, "tests", errs, func(m *yaml.Node) {
		yamldoc.UnknownKeys(m, testKeys, "a test", errs)
		t := Test{File: file, Line: m.Line, Forbid: forbid, Expect: dflt, Rule: forbid}
		var input *yaml.Node
		calls := 0
		expectSet := false
		for j := 0; j+1 < len(m.Content); j += 2 {
			k, v := m.Content[j], m.Content[j+1]
			switch k.Value {
			case "name":
				t.Name = v.Value
			case "tool":
				t.Tool = v.Value
			case "input":
				input = v
			case "cwd":
				t.Cwd = testString(&t, v.Value, v.Line, "cwd", vars, errs)
			case "expect":
				a, err := parseAction(v.Value)
				if err != nil {
					errs.Add(v.Line, "expect: %v", err)
				}
				t.Expect, expectSet = a, true
			case "rule":
				t.Rule = v.Value
			default:
				for _, s := range testShorthands {
					if k.Value != s.key {
						continue
					}
					calls++
					if v.Kind != yaml.ScalarNode || v.Value == "" {
						errs.Add(v.Line, "%s: write the %s as one string, e.g. %s: %q", s.key, s.arg, s.key, shorthandExample(s.key))
						continue
					}
					t.Tool = s.tool
					b, _ := json.Marshal(map[string]string{s.arg: testString(&t, v.Value, v.Line, s.key, vars, errs)})
					t.Input = b
				}
			}
		}
		switch {
		case calls > 1 || (calls == 1 && (input != nil || hasKey(m, "tool"))):
			errs.Add(m.Line, "a test is one call: write bash:, read:, write:, fetch: or tool: with input:, not several")
			return
		case calls == 0 && t.Tool == "":
			errs.Add(m.Line, "a test names its call: bash: \"cat ~/.ssh/id_rsa\", read: \"${home}/.aws/credentials\", or tool: NAME with input: {…}")
			return
		case calls == 0:
			b, err := testInput(&t, input, vars)
			if err != nil {
				errs.Add(m.Line, "input: %v", err)
				return
			}
			t.Input = b
		}
		if !expectSet && forbid == "" {
			errs.Add(m.Line, "a test says what the policy must decide: write expect: allow, ask or block")
			return
		}
		out = append(out, t)
	})
	return out
}

func hasKey(m *yaml.Node, key string) bool {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == key {
			return true
		}
	}
	return false
}

func shorthandExample(key string) string {
	switch key {
	case "bash":
		return "cat ~/.ssh/id_rsa"
	case "fetch":
		return "https://example.com/"
	}
	return "${home}/.aws/credentials"
}

func testString(t *Test, s string, line int, what string, vars Vars, errs *yamldoc.Problems) string {
	out, err := expandTest(t, s, vars)
	if err != nil {
		errs.Add(line, "%s: %v", what, err)
		return s
	}
	return out
}

// expandTest expands the variables of one string of a test; one with no
// value here (${workspace} outside a repository) marks the test skipped.
// Only Airlock's own lower-case names are replaced: a command's shell
// ${HOME} or ${1:-x} is the command's.
func expandTest(t *Test, s string, vars Vars) (string, error) {
	for _, v := range []struct{ name, val string }{
		{"${workspace}", vars.Workspace}, {"${home}", vars.Home}, {"${tmp}", vars.Tmp},
		{"${user}", vars.User}, {"${airlock_home}", vars.AirlockHome},
	} {
		if !strings.Contains(s, v.name) {
			continue
		}
		if v.val == "" && t.Skip == "" {
			t.Skip = v.name + " has no value here (outside a repository there is no workspace): run it inside one"
		}
		s = strings.ReplaceAll(s, v.name, filepath.ToSlash(v.val))
	}
	return s, nil
}

// testInput turns a test's input: mapping into the tool's JSON arguments,
// the variables expanded in every string.
func testInput(t *Test, n *yaml.Node, vars Vars) ([]byte, error) {
	if n == nil {
		return []byte("{}"), nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("write the tool's arguments as a mapping, e.g. input: {command: \"ls\"}, not a %s", yamldoc.Kind(n))
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	v, err := expandAll(t, v, vars)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func expandAll(t *Test, v any, vars Vars) (any, error) {
	switch x := v.(type) {
	case string:
		return expandTest(t, x, vars)
	case []any:
		for i := range x {
			e, err := expandAll(t, x[i], vars)
			if err != nil {
				return nil, err
			}
			x[i] = e
		}
	case map[string]any:
		for k, e := range x {
			e, err := expandAll(t, e, vars)
			if err != nil {
				return nil, err
			}
			x[k] = e
		}
	}
	return v, nil
}

// Describe names a test for a report line: its name, else its call.
func (t Test) Describe() string {
	if t.Name != "" {
		return t.Name
	}
	for _, s := range testShorthands {
		if t.Tool != s.tool {
			continue
		}
		var m map[string]string
		if json.Unmarshal(t.Input, &m) == nil && len(m) == 1 && m[s.arg] != "" {
			return s.key + ": " + m[s.arg]
		}
	}
	return t.Tool + " " + strings.TrimSpace(string(t.Input))
}
