package secret

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benignResults are ordinary tool results (source, logs with hex digests,
// UUIDs and git SHAs, a base64 PNG in an MCP image block, a lockfile's
// sha512 integrity strings, structured records): none may be masked.
func benignResults(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/benign/*")
	if err != nil || len(files) < 5 {
		t.Fatalf("testdata/benign: want at least 5 results, got %d (%v)", len(files), err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// TestMaskBytesBenignResultsPassByteForByte: false masking on the benign
// corpus is zero, and the result is the caller's own slice.
func TestMaskBytesBenignResultsPassByteForByte(t *testing.T) {
	for name, b := range benignResults(t) {
		out, hits := MaskBytes(b)
		if len(hits) != 0 || !bytes.Equal(out, b) {
			t.Errorf("%s: a benign result was masked: %v", name, hits)
		}
		if len(b) > 0 && &out[0] != &b[0] {
			t.Errorf("%s: a clean result was copied", name)
		}
	}
}

// TestMaskBytesAttackCorpus: every secret of shapes.txt is masked inside
// a JSON result (as a text block and as structured content) and as plain
// text; the JSON stays valid, and no hit carries the secret.
func TestMaskBytesAttackCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		if c.kind == "keep" {
			continue
		}
		// as a server writes it (JSON.stringify, json.dumps): no HTML
		// escapes of & < >
		text := marshalPlain(map[string]any{"content": []any{map[string]any{"type": "text", "text": c.text}}})
		structured := marshalPlain(map[string]any{"structuredContent": map[string]any{"out": c.text, "n": 3}})
		for _, in := range [][]byte{text, structured, []byte(c.text)} {
			out, hits := MaskBytes(in)
			if len(hits) == 0 {
				t.Errorf("shapes.txt:%d: %s: no hit in %s", c.line, c.kind, in)
				continue
			}
			if json.Valid(in) {
				if !json.Valid(out) {
					t.Errorf("shapes.txt:%d: masking broke the JSON:\n in: %s\nout: %s", c.line, in, out)
					continue
				}
				var v any
				_ = json.Unmarshal(out, &v)
				flat, _ := json.Marshal(v)
				if strings.Contains(string(flat), c.secret) || bytes.Contains(out, []byte(c.secret)) {
					t.Errorf("shapes.txt:%d: %s left in the JSON result: %s", c.line, c.kind, out)
				}
			} else if bytes.Contains(out, []byte(c.secret)) {
				t.Errorf("shapes.txt:%d: %s left in the text: %s", c.line, c.kind, out)
			}
			if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Rule == c.kind }) {
				t.Errorf("shapes.txt:%d: want a %s hit, got %v", c.line, c.kind, hits)
			}
			for _, h := range hits {
				if strings.Contains(h.Rule+h.Digest, c.secret) || h.Digest != "" && !strings.HasPrefix(h.Digest, "sha256:") {
					t.Errorf("shapes.txt:%d: hit %+v", c.line, h)
				}
			}
		}
	}
}

func marshalPlain(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestMaskBytesKeepsJSONEscapesWhole: a value that runs into an escaped
// quote, a PEM block written with \n escapes, a secret split by \u
// escapes: the output is valid JSON and the secret is gone.
func TestMaskBytesKeepsJSONEscapesWhole(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEowIBAAKCAQEAv3F9nB2cXkq1\n-----END RSA PRIVATE KEY-----"
	for _, in := range []string{
		`{"log":"login password=hunter2\"x and more","n":1}`,
		`{"a":"` + strings.ReplaceAll(pem, "\n", `\n`) + `","b":"after"}`,
		`{"a":"-----BEGIN PRIVATE KEY-----\nProc-Type: x", "b": "password=zz\\"}`,
		`["token=ab12cd34ef56gh78ij90\u0041", "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO\\"]`,
	} {
		out, hits := MaskBytes([]byte(in))
		if len(hits) == 0 {
			t.Errorf("no hit in %s", in)
		}
		if !json.Valid(out) {
			t.Errorf("masking broke the JSON:\n in: %s\nout: %s", in, out)
		}
		for _, sec := range []string{"hunter2", "MIIEowIBAAKCAQEAv3F9nB2cXkq1", "ab12cd34ef56gh78ij90", "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO"} {
			if strings.Contains(in, sec) && strings.Contains(string(out), sec) {
				t.Errorf("%s left in %s", sec, out)
			}
		}
	}
}

// BenchmarkMaskBytesResult10KB: a result of about 10 KB of each kind, in
// a warm process (patterns compiled); p50-ns is the median of the runs.
func BenchmarkMaskBytesResult10KB(b *testing.B) {
	res := benignResults(b)
	names := make([]string, 0, len(res))
	for n := range res {
		names = append(names, n)
	}
	slices.Sort(names)
	secretLog := append(bytes.Clone(res["app.log"][:9000]), []byte("\nexport GITHUB_TOKEN=ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO\n")...)
	for _, n := range append(names, "app.log+token") {
		in := res[n]
		if n == "app.log+token" {
			in = secretLog
		}
		in = in[:min(len(in), 10240)]
		b.Run(n, func(b *testing.B) {
			MaskBytes(in) // compile what this text needs
			b.SetBytes(int64(len(in)))
			var ds []time.Duration
			for b.Loop() {
				t0 := time.Now()
				MaskBytes(in)
				ds = append(ds, time.Since(t0))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
		})
	}
}
