package secret

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fuzzTokens are secrets the fuzzer places inside arbitrary text.
var fuzzTokens = []string{
	"ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO",
	"glpat-GV21q4ClswscCTf07I8P",
	"AKIAEXDGE3HDKEATCIYJ",
	"xoxb-63128663415-1948484730971-y4hyyvh8vfsPVot30n1guFTD",
	"npm_ZzUky5XoqQkC1BwI9qZP6MhZE05gV0HuIdK2",
	"sk-ant-api03-YToKfvoU7HndTAbsRRkW19LS_TL4B7Vy5geP5548ayLTj2Lg0YJ8AGjf2bN4U1yh",
	"sk_live_zW0SOQQtDmkXqhgaMhkQQkbp",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.qth-okrGaYC_4Ert5-T6fp0ZU1yyAwCZBUon5pi27EG",
	"AIza26CijxV6zXnU8BSQ-Ngw6rJ8NgthdN_ULVw",
}

// FuzzMask: Mask never panics, is idempotent, never leaves a placed token
// in its output, and the prefilter never hides a match (every rule whose
// pattern matches the text was a candidate).
func FuzzMask(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.text, "", uint8(0))
	}
	f.Add("Authorization: Bearer ", " https://x", uint8(0))
	f.Add("https://u:", "@host", uint8(3))
	f.Add("-----BEGIN PRIVATE KEY-----\n", "\n-----END PRIVATE KEY-----", uint8(1))
	f.Add("rubygems_165e4d74cbf5836c438bc25ee933184a6092feef606284a1", "", uint8(2))
	res := make([]*regexp.Regexp, len(rules))
	for i, r := range rules {
		res[i] = regexp.MustCompile(r.pattern)
	}
	f.Fuzz(func(t *testing.T, pre, post string, k uint8) {
		tok := fuzzTokens[int(k)%len(fuzzTokens)]
		for _, s := range []string{pre + post, pre + " " + tok + " " + post} {
			last := 0
			for _, m := range Find(s) {
				if m.Start < last || m.End <= m.Start || m.End > len(s) || m.Kind == "" {
					t.Fatalf("Find(%q): bad or overlapping match %+v after %d", s, m, last)
				}
				last = m.End
			}
			got := Mask(s)
			if again := Mask(got); again != got {
				t.Fatalf("not idempotent:\n in: %q\n 1x: %q\n 2x: %q", s, got, again)
			}
			cand := compiled().candidates(s)
			for i, re := range res {
				if cand&(1<<i) == 0 && re.MatchString(s) {
					t.Fatalf("%s matches %q but the prefilter did not make it a candidate", rules[i].kind, s)
				}
			}
		}
		// A token set apart by spaces is masked whatever surrounds it.
		if got := Mask(pre + " " + tok + " " + post); strings.Contains(got, tok) {
			t.Fatalf("token left in place:\n in: %q\nout: %q", pre+" "+tok+" "+post, got)
		}
	})
}

// FuzzMaskBytes: a result of arbitrary text around a token, as a JSON
// string and as plain bytes: never a panic, a JSON result stays valid
// JSON, the token is gone from it, and no hit carries it; MaskResult
// answers the same.
func FuzzMaskBytes(f *testing.F) {
	f.Add("password=ab\\", "\"x", uint8(0))
	f.Add("-----BEGIN PRIVATE KEY-----\nProc-Type: ", "\"}", uint8(1))
	f.Add("Bearer\t", "\\u0041", uint8(2))
	f.Fuzz(func(t *testing.T, pre, post string, k uint8) {
		tok := fuzzTokens[int(k)%len(fuzzTokens)]
		text := pre + " " + tok + " " + post
		js := marshalPlain(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "n": 1})
		out, hits := MaskBytes(js)
		if sout, shits := MaskResult(string(js)); sout != string(out) || !slices.Equal(shits, hits) {
			t.Fatalf("MaskResult and MaskBytes differ:\n%s %v\n%s %v", sout, shits, out, hits)
		}
		if !json.Valid(out) {
			t.Fatalf("masking broke the JSON:\n in: %s\nout: %s", js, out)
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		if flat, _ := json.Marshal(v); strings.Contains(string(flat), tok) {
			t.Fatalf("token left in the JSON result:\n in: %s\nout: %s", js, out)
		}
		if len(hits) == 0 {
			t.Fatalf("no hit for %s in %s", tok, js)
		}
		for _, h := range hits {
			if strings.Contains(h.Rule+h.Digest, tok) {
				t.Fatalf("a hit carries the token: %+v", h)
			}
		}
		if out, _ := MaskBytes([]byte(text)); strings.Contains(string(out), tok) {
			t.Fatalf("token left in the text:\n in: %q\nout: %q", text, out)
		}
	})
}
