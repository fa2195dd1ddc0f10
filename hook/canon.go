package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// input builds a canonical tool_input: the named members (a value of ""
// or nil is left out), then every member of the agent's own arguments that
// no canonical member came from, under its own name, so that an argument
// an adapter does not know is still read by the policy (conservatively,
// as a path or a destination) instead of dropped.
type input struct {
	m    map[string]any
	used map[string]bool
}

func newInput() *input { return &input{m: map[string]any{}, used: map[string]bool{}} }

// set puts a canonical member.
func (in *input) set(k string, v any) *input {
	switch v := v.(type) {
	case nil:
		return in
	case string:
		if v == "" {
			return in
		}
	}
	in.m[k] = v
	return in
}

// from sets k from the first of the agent's names src holds (a string, or
// any JSON value when raw), and marks it consumed, with every other name
// that is absent or holds the same value. Another name holding another
// value is carried under its own name (read conservatively): the agent
// may read that one, and an event naming two paths must not have the one
// the adapter does not take dropped.
func (in *input) from(src gjson.Result, k string, names ...string) *input {
	taken := ""
	for _, n := range names {
		v := src.Get(gjsonKey(n))
		if !v.Exists() || v.Type == gjson.Null {
			in.used[n] = true
			continue
		}
		if taken == "" {
			taken = v.Raw
			in.used[n] = true
			if v.Type == gjson.String {
				in.set(k, v.Str)
			} else {
				in.m[k] = json.RawMessage(v.Raw)
			}
			continue
		}
		if v.Raw == taken {
			in.used[n] = true
		}
	}
	return in
}

// consume marks names of the agent's arguments as read (a cwd, a flag the
// adapter interpreted).
func (in *input) consume(names ...string) *input {
	for _, n := range names {
		in.used[n] = true
	}
	return in
}

// json is the canonical object, with the agent's other members carried.
func (in *input) json(src gjson.Result) []byte {
	if src.IsObject() {
		src.ForEach(func(k, v gjson.Result) bool {
			if in.used[k.Str] {
				return true
			}
			if _, taken := in.m[k.Str]; taken {
				// a canonical member of the same name: keep the agent's
				// under a name of its own, never drop it
				in.m["agent_"+k.Str] = json.RawMessage(v.Raw)
				return true
			}
			in.m[k.Str] = json.RawMessage(v.Raw)
			return true
		})
	}
	b, err := json.Marshal(in.m)
	if err != nil {
		// only a carried member can fail, and it came from valid JSON
		return []byte(`{}`)
	}
	return b
}

// gjsonKey escapes a member name for gjson's path syntax.
func gjsonKey(k string) string {
	if !strings.ContainsAny(k, ".*?|#@\\!=<>%") {
		return k
	}
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(".*?|#@\\!=<>%", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// argvCommand writes an argument vector as the shell text that runs it:
// each word quoted unless it is plainly a word, so that the policy's shell
// reader sees exactly the words the agent runs (a "~" stays literal, as an
// exec'd argument is).
func argvCommand(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commandOf reads a shell command that is a string or an argv array.
func commandOf(v gjson.Result) (string, bool) {
	switch {
	case v.Type == gjson.String:
		return v.Str, v.Str != ""
	case v.IsArray():
		var argv []string
		ok := true
		v.ForEach(func(_, w gjson.Result) bool {
			if w.Type != gjson.String {
				ok = false
				return false
			}
			argv = append(argv, w.Str)
			return true
		})
		if !ok || len(argv) == 0 {
			return "", false
		}
		return argvCommand(argv), true
	}
	return "", false
}

// uniqueMembers says no member name of the object r occurs twice. An
// adapter reads an argument by its name, and gjson answers with the first
// of two, while the agent's own JSON reader (JavaScript's, Go's, Python's)
// takes the last: arguments with a repeated name would be judged on one
// value and run with another, so they are refused. Never sent by an agent
// that serialises an object; possible where the arguments are the model's
// own text (Copilot's toolArgs, an MCP arguments string).
func uniqueMembers(r gjson.Result) bool {
	if !r.IsObject() {
		return true
	}
	n := 0
	r.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	if n < 2 {
		return true
	}
	seen := make(map[string]bool, n)
	ok := true
	r.ForEach(func(k, _ gjson.Result) bool {
		if seen[k.Str] {
			ok = false
			return false
		}
		seen[k.Str] = true
		return true
	})
	return ok
}

// oneOf is the first of names src holds (not null), and an error when
// another of them holds a different value: an argument an agent reads
// under one of two names (an older build's, a newer's), given under both
// and meaning different things, cannot be judged as the agent reads it.
func oneOf(src gjson.Result, names ...string) (gjson.Result, error) {
	var got gjson.Result
	gotName := ""
	for _, n := range names {
		v := src.Get(gjsonKey(n))
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if gotName == "" {
			got, gotName = v, n
			continue
		}
		if v.Raw != got.Raw {
			return gjson.Result{}, fmt.Errorf("the tool's arguments give %s and %s different values: which one the agent reads cannot be known", gotName, n)
		}
	}
	return got, nil
}

// errDuplicateMember is arguments that name a member twice (uniqueMembers).
var errDuplicateMember = errors.New("the tool's arguments name a member twice: which one the agent uses cannot be known")

// objectArgs reads arguments that are a JSON object or a JSON string
// holding one (Copilot's toolArgs, Cline's MCP arguments); "" or null is
// an empty object.
func objectArgs(v gjson.Result) (gjson.Result, bool) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return gjson.Parse(`{}`), true
	case v.IsObject():
		return v, uniqueMembers(v)
	case v.Type == gjson.String:
		if strings.TrimSpace(v.Str) == "" {
			return gjson.Parse(`{}`), true
		}
		if !gjson.Valid(v.Str) {
			return gjson.Result{}, false
		}
		r := gjson.Parse(v.Str)
		return r, r.IsObject() && uniqueMembers(r)
	}
	return gjson.Result{}, false
}

// mcpName is the canonical name of an MCP tool, as Claude Code writes it
// and the policy matches it.
func mcpName(server, tool string) string {
	return "mcp__" + server + "__" + tool
}

// str reads a string member ("" when it is not one).
func str(r gjson.Result, path string) string {
	v := r.Get(path)
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// nothing is no agent arguments to carry.
var nothing = gjson.Result{}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }
