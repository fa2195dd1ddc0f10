package pins

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzNewToolset feeds untrusted tools/list results to NewToolset and, when
// one is accepted, checks what the rest of Airlock relies on: the hash does
// not depend on tool order, canonical JSON is a fixed point, a toolset
// survives pins.json unchanged, and validation never panics.
func FuzzNewToolset(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"tools":[` + baseList + `]}`))
	f.Add([]byte(`{"tools":[{"name":"a","description":"\ud800\u2028<&>","inputSchema":{"a":[1e400,-0,0.1e-5]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var res struct{ Tools []json.RawMessage }
		if json.Unmarshal(data, &res) != nil {
			return
		}
		ts, err := NewToolset(res.Tools)
		if err != nil {
			return
		}
		rev := slices.Clone(res.Tools)
		slices.Reverse(rev)
		ts2, err := NewToolset(rev)
		if err != nil || ts2.Hash != ts.Hash {
			t.Fatalf("tool order changed the toolset: %v", err)
		}
		for _, tool := range ts.Tools {
			again, err := canonical(tool.Canon)
			if err != nil || !bytes.Equal(again, tool.Canon) {
				t.Fatalf("canonical form of %q is not a fixed point: %s\n%s", tool.Name, tool.Canon, again)
			}
		}
		stored, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		var back Toolset
		if err := json.Unmarshal(stored, &back); err != nil {
			t.Fatal(err)
		}
		if d := Compare(ts, &back); !d.Empty() || hashTools(back.Tools) != ts.Hash {
			t.Fatalf("toolset changed through JSON: %s", d)
		}
		_ = Compare(nil, ts).String()
	})
}

// FuzzCanonical checks the hand-written parser against encoding/json: it
// accepts exactly the valid JSON (less repeated keys and extreme nesting),
// and its output means the same value.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,false,null,"x\u00e9\ud83d\ude00"]}`, `"\ud800"`, `-0.5e+3`, ` [ ] `, `{"a":1,"a":2}`, "\"\xff\"", `01`, `{"a":}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := canonical(data)
		valid := json.Valid(data)
		if err != nil {
			msg := err.Error()
			if valid && !strings.Contains(msg, "repeats the key") && !strings.Contains(msg, "nested deeper") {
				t.Fatalf("valid JSON refused: %q: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("invalid JSON accepted: %q → %s", data, out)
		}
		want, got := decodeNumbers(t, data), decodeNumbers(t, out)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("canonical form means something else:\n%q\n%s", data, out)
		}
		if again, err := canonical(out); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %s → %s, %v", out, again, err)
		}
	})
}

func decodeNumbers(t *testing.T, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	return v
}
