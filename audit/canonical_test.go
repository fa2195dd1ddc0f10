package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
)

var canonicalInputs = []string{
	`{}`,
	`{"a":1}`,
	`{"b":1,"a":2}`,
	`{"a":1,"a":2}`,
	`{ "a" : 1 }`,
	`{"a":"\/"}`,
	`{"a":"\u0041"}`,
	`{"a":"<>&"}`,
	`{"a":"\u003c\u003e\u0026"}`,
	`{"a":"\b\f\n\r\t\"\\"}`,
	`{"a":"\u0008\u000c"}`,
	`{"a":"\u0001\u001f\u007f"}`,
	`{"a":"\u2028\u2029"}`,
	"{\"a\":\"\u2028\"}",
	`{"a":"\ud800"}`,
	`{"a":"\ud83d\ude00"}`,
	"{\"a\":\"\xff\"}",
	"{\"a\":\"\xef\xbf\xbd\"}",
	`{"a":"\ufffd"}`,
	`{"a":"é","é":"a","z":"\u00e9"}`,
	`{"\u00e9":1,"f":2}`,
	`{"\n":1,"A":2}`,
	`{"A":1,"\n":2}`,
	`{"a":1.0,"b":-0,"c":1e5,"d":1E+05,"e":-12.5e-3,"f":0}`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":[1,"x",true,false,null,{"b":[],"a":{}}]}`,
	`{"a":[ ]}`,
	`{"a":{"c":1,"b":2}}`,
	`{"a":{"b":2,"c":1}}`,
	`{"a":{"b":1,"b":1}}`,
	`{"a":tru}`,
	`{"a":1}x`,
	`{"a":1} `,
	`[1]`,
	`null`,
	`"x"`,
	`{"h":"x","alg":"y","sig":"z","a":1}`,
	`{"alg":"y","h":"x","sig":"z"}`,
	`{"alg":"y","b":1,"h":"x","i":2,"sig":"z","t":3}`,
	`{"h":"x"}`,
}

// TestCanonicalMatchesEncodingJSON pins the package's canonical encoding
// and its fast validator to encoding/json's behaviour.
func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	for _, in := range canonicalInputs {
		checkCanonical(t, []byte(in))
	}
}

// FuzzCanonical differentially tests the canonical encoder and the fast
// validator against encoding/json on arbitrary input.
func FuzzCanonical(f *testing.F) {
	for _, in := range canonicalInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCanonical(t, data)
	})
}

func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	var p canonParser
	var lf lineFields
	perr := p.parseCanonical(data, &lf)
	m, err := decodeObject(data)
	if err != nil {
		if perr == nil {
			t.Fatalf("%q: fast parser accepts input encoding/json rejects (%v)", data, err)
		}
		return
	}
	ref, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("%q: json.Marshal: %v", data, err)
	}
	mine, err := appendCanonical(nil, m, 0)
	if err != nil {
		t.Fatalf("%q: appendCanonical: %v", data, err)
	}
	if !bytes.Equal(mine, ref) {
		t.Fatalf("%q: canonical encoding differs from encoding/json:\n mine %q\n json %q", data, mine, ref)
	}
	canonical := bytes.Equal(data, ref)
	if canonical != (perr == nil) {
		t.Fatalf("%q: canonical=%v but fast parser says %v", data, canonical, perr)
	}
	if !canonical {
		// The canonical form itself must be accepted.
		if err := p.parseCanonical(ref, &lf); err != nil {
			t.Fatalf("%q: fast parser rejects canonical form %q", data, ref)
		}
	}
	// Hash: json.Marshal of the map without h/sig/alg.
	for _, k := range excludedFromHash {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256(b); lf.hashed != want {
		t.Fatalf("%q: fast hash over %q differs from spec hash over %q", data, ref, b)
	}
	if h, err := hashObject(m); err != nil || h != hexOf(lf.hashed) {
		t.Fatalf("%q: hashObject = %q, %v", data, h, err)
	}
	// Extracted string members match the decoded values.
	m2, _ := decodeObject(ref)
	for key, raw := range map[string][]byte{"h": lf.h, "prev": lf.prev, "event": lf.event, "detail": lf.detail, "reason": lf.reason} {
		s, isStr := m2[key].(string)
		if isStr != (raw != nil) || (isStr && stringValue(raw) != s) {
			t.Fatalf("%q: member %s extracted as %q, decoded %q", ref, key, raw, s)
		}
	}
}

func hexOf(d [32]byte) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for _, c := range d {
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}

func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "1": true, "10": true, "1.5": true, "1e5": true, "1E-5": true, "-1.5e+10": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false, "1.5.5": false, "--1": false,
	} {
		if got := validNumber([]byte(s)); got != want {
			t.Errorf("validNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
