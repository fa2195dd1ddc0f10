package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/pins"
)

const schemaList = `[
 {"name":"closed","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"integer","minimum":0}},"required":["path"],"additionalProperties":false}},
 {"name":"open","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
 {"name":"bare","inputSchema":{"type":"object"}},
 {"name":"noschema"},
 {"name":"patterned","inputSchema":{"type":"object","properties":{"a":{}},"patternProperties":{"^x-":{"type":"string"}}}},
 {"name":"nested","inputSchema":{"type":"object","properties":{"opts":{"type":"object","properties":{"depth":{"type":"integer"},"follow":{"type":"boolean"}},"required":["depth"],"additionalProperties":false}},"required":["opts"]}},
 {"name":"internal_ref","inputSchema":{"type":"object","properties":{"o":{"$ref":"#/$defs/o"}},"$defs":{"o":{"type":"string","enum":["a","b"]}}}},
 {"name":"remote_ref","inputSchema":{"type":"object","properties":{"o":{"$ref":"https://example.com/schema.json"}}}},
 {"name":"file_ref","inputSchema":{"type":"object","properties":{"o":{"$ref":"other.json"}}}},
 {"name":"unknown_draft","inputSchema":{"$schema":"https://example.com/my-draft","type":"object"}},
 {"name":"draft7","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0}}}},
 {"name":"bad_type","inputSchema":{"type":"objekt"}},
 {"name":"either","inputSchema":{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}},
 {"name":"unevaluated","inputSchema":{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}}
]`

func TestValidate(t *testing.T) {
	ts := mustToolset(t, schemaList)
	cases := []struct {
		name   string
		tool   string
		args   string
		strict bool
		want   string // "" means valid; otherwise a substring of the error
		arg    string // ArgError.Arg
	}{
		{"valid", "closed", `{"path":"/tmp/x","mode":1}`, false, "", ""},
		{"absent arguments", "bare", ``, false, "", ""},
		{"null arguments", "bare", `null`, false, "", ""},
		{"ghost with additionalProperties false", "closed", `{"path":"/tmp/x","sidenote":"ssh key"}`, false, `argument "sidenote" is not declared by the tool's input schema`, "sidenote"},
		{"ghost reported before a missing argument", "closed", `{"sidenote":"x"}`, false, `argument "sidenote" is not declared`, "sidenote"},
		{"ghost allowed when open and not strict", "open", `{"path":"/x","sidenote":"x"}`, false, "", ""},
		{"ghost refused when strict", "open", `{"path":"/x","sidenote":"x"}`, true, `argument "sidenote" is not declared by the tool's input schema`, "sidenote"},
		{"strict reports the first ghost in order", "open", `{"path":"/x","zz":1,"aa":2}`, true, `argument "aa" is not declared`, "aa"},
		{"strict needs declared properties", "bare", `{"anything":1}`, true, "", ""},
		{"strict honours patternProperties", "patterned", `{"a":1,"x-trace":"t"}`, true, "", ""},
		{"strict with a pattern miss", "patterned", `{"a":1,"y":"t"}`, true, `argument "y" is not declared`, "y"},
		{"no inputSchema takes any object", "noschema", `{"a":1}`, true, "", ""},
		{"wrong type", "closed", `{"path":42}`, false, `argument "path": expected string, got number`, "path"},
		{"missing required", "closed", `{}`, false, `missing required argument "path"`, "path"},
		{"other violation names the location", "closed", `{"path":"x","mode":-1}`, false, `argument at '/mode': minimum`, "mode"},
		{"nested valid", "nested", `{"opts":{"depth":2}}`, false, "", ""},
		{"nested ghost", "nested", `{"opts":{"depth":2,"exfil":"x"}}`, false, `argument "opts/exfil" is not declared`, "opts/exfil"},
		{"nested wrong type", "nested", `{"opts":{"depth":"deep"}}`, false, `argument "opts/depth": expected integer, got string`, "opts/depth"},
		{"nested missing", "nested", `{"opts":{}}`, false, `missing required argument "opts/depth"`, "opts/depth"},
		{"internal ref works", "internal_ref", `{"o":"a"}`, false, "", ""},
		{"internal ref enforced", "internal_ref", `{"o":"c"}`, false, `argument at '/o'`, "o"},
		{"draft-07 from $schema", "draft7", `{"n":0}`, false, `argument at '/n'`, "n"},
		{"alternatives reported whole", "either", `{"v":1}`, false, `argument at '/v': 'anyOf' failed`, "v"},
		{"unevaluatedProperties false is a ghost", "unevaluated", `{"a":1,"b":2}`, false, `argument "b" is not declared`, "b"},
		{"arguments not an object", "bare", `[1]`, false, "the arguments must be a JSON object, got array", ""},
		{"arguments not JSON", "bare", `{"a":`, false, "not valid JSON", ""},
		{"unknown tool", "run_command", `{}`, false, `tool "run_command" is not in the pinned toolset of this server`, ""},
		{"remote $ref refused", "remote_ref", `{"o":1}`, false, `tool "remote_ref" has an input schema that cannot be compiled`, ""},
		{"file $ref refused", "file_ref", `{"o":1}`, false, `tool "file_ref" has an input schema that cannot be compiled`, ""},
		{"unknown $schema refused", "unknown_draft", `{}`, false, `cannot be compiled`, ""},
		{"invalid schema refused", "bad_type", `{}`, false, `cannot be compiled`, ""},
		{"hostile argument name escaped", "closed", "{\"path\":\"x\",\"note\\u202e\":1}", false, `argument "note\\u202e" is not declared`, "note\u202e"},
	}
	s := NewSchemas()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Validate(ts, c.tool, []byte(c.args), c.strict)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate(%s, %s) = %v, want valid", c.tool, c.args, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate(%s, %s) = %v, want an error containing %q", c.tool, c.args, err, c.want)
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error is %T, want *ArgError", err)
			}
			if ae.Arg != c.arg {
				t.Errorf("ArgError.Arg = %q, want %q", ae.Arg, c.arg)
			}
			if strings.ContainsAny(err.Error(), "\n\u202e") {
				t.Errorf("message is not one safe line: %q", err.Error())
			}
		})
	}
}

func TestSchemasCacheByDigest(t *testing.T) {
	ts := mustToolset(t, schemaList)
	s := NewSchemas()
	tool, _ := ts.Tool("closed")
	if err := s.Validate(ts, "closed", []byte(`{"path":"x"}`), false); err != nil {
		t.Fatal(err)
	}
	first := s.cache[tool.Digest]
	if first == nil || first.schema == nil {
		t.Fatalf("no compiled schema cached under the tool digest")
	}
	if err := s.Validate(ts, "closed", []byte(`{"path":"y"}`), true); err != nil {
		t.Fatal(err)
	}
	if s.cache[tool.Digest] != first || len(s.cache) != 1 {
		t.Errorf("second call recompiled: cache has %d entries", len(s.cache))
	}
	// a changed schema is a new digest, compiled afresh
	changed := mustToolset(t, strings.Replace(schemaList, `"mode":{"type":"integer","minimum":0}`, `"mode":{"type":"integer","minimum":5}`, 1))
	if err := s.Validate(changed, "closed", []byte(`{"path":"x","mode":1}`), false); err == nil {
		t.Errorf("the changed schema was not used")
	}
	if len(s.cache) != 2 {
		t.Errorf("cache has %d entries, want 2", len(s.cache))
	}
	// a schema that does not compile is remembered too, and keeps failing
	for range 2 {
		if err := s.Validate(ts, "remote_ref", []byte(`{}`), false); err == nil {
			t.Fatal("remote ref compiled")
		}
	}
}

func TestSchemasConcurrentUse(t *testing.T) {
	ts := mustToolset(t, schemaList)
	s := NewSchemas()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := s.Validate(ts, "nested", []byte(`{"opts":{"depth":1}}`), true); err != nil {
					t.Error(err)
					return
				}
				if err := s.Validate(ts, "closed", []byte(`{"path":1}`), false); err == nil {
					t.Error("wrong type accepted")
					return
				}
			}
		})
	}
	wg.Wait()
}

func mustToolset(t testing.TB, list string) *pins.Toolset {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(list), &raw); err != nil {
		t.Fatalf("bad test list %s: %v", list, err)
	}
	ts, err := pins.NewToolset(raw)
	if err != nil {
		t.Fatalf("NewToolset(%s): %v", list, err)
	}
	return ts
}
