package yamldoc

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

// FuzzParse: Parse never panics; a syntax error names a line of the file,
// once, and no message carries a control character; and what yaml.v3
// itself calls a repeated key when it decodes is always refused (Parse
// refuses more: a key repeated through an alias, in a later document,
// beside a merge key).
func FuzzParse(f *testing.F) {
	for _, c := range syntaxCases {
		f.Add([]byte(c.doc))
	}
	for _, s := range []string{
		"mode: guard\ndefault: ask\nrules: []\nmode: observe\n",
		"rules:\n  - id: a\n    action: block\n    action: allow\n",
		"a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  b: 2\n",
		"? [a]\n: 1\n? [b]\n: 2\n",
		"&k a: 1\n*k : 2\n",
		"a: 1\n---\na: 2\n",
		"{\"a\": 1, \"a\": 2}",
		"- {a: 1, b: 2}\n- {a: 1, a: 2}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		doc, probs := Parse(data)
		lines := len(lineEnds(data))
		for _, p := range probs {
			if strings.ContainsFunc(p.Text(), unicode.IsControl) {
				t.Fatalf("a control character in %q", p.Text())
			}
			if p.Line < 0 || p.Line > lines+1 {
				t.Fatalf("line %d of a %d-line file: %s", p.Line, lines, p.Text())
			}
		}
		if doc == nil {
			if len(probs) != 1 || probs[0].Line < 1 || probs[0].Line > lines {
				t.Fatalf("a syntax error with problems %v in a %d-line file", probs, lines)
			}
			if lineWord.MatchString(probs[0].Text()) {
				t.Fatalf("the line said twice: %q", probs[0].Text())
			}
			return
		}
		var v any
		err := yaml.Unmarshal(data, &v)
		if err != nil && strings.Contains(err.Error(), "already defined") && len(probs) == 0 {
			t.Fatalf("yaml.v3 finds a repeated key (%v) that Parse accepts", err)
		}
		if bytes.Contains(data, []byte("---")) || len(probs) > 0 {
			return
		}
		if err != nil && !strings.Contains(err.Error(), "cannot unmarshal") && !strings.Contains(err.Error(), "excessive aliasing") {
			t.Fatalf("Parse accepts what yaml.v3 refuses: %v", err)
		}
	})
}
