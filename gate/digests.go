package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Digests of content, so breach forensics can tell a secret that left
// from one that was only read without the log ever holding the secret:
// what a secret-class read returned is recorded as secret_digest=…, what
// an outbound call carried as payload_digests=…, and a digest seen on
// both sides is a confirmed leak.

const (
	minDigestLen = 16 // shorter strings are too common to mean anything
	maxDigests   = 16
)

// digestOf is the digest recorded for one piece of content: the first
// 128 bits of SHA-256 over the trimmed text.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(s)))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// ContentDigests digests the substantial strings in v: every string leaf
// whole, each of its lines, and each token between white space, '=', '&'
// and quotes, so a key copied out of a credentials file matches wherever
// it is sent. At most maxDigests, first found first.
func ContentDigests(v gjson.Result) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) < minDigestLen || len(out) >= maxDigests {
			return
		}
		d := digestOf(s)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	var walk func(v gjson.Result, depth int)
	walk = func(v gjson.Result, depth int) {
		if depth > 16 || len(out) >= maxDigests {
			return
		}
		switch {
		case v.IsObject() || v.IsArray():
			v.ForEach(func(_, el gjson.Result) bool {
				walk(el, depth+1)
				return len(out) < maxDigests
			})
		case v.Type == gjson.String:
			s := v.String()
			add(s)
			for _, line := range strings.Split(s, "\n") {
				add(line)
				for _, tok := range strings.FieldsFunc(line, func(r rune) bool {
					return r == ' ' || r == '\t' || r == '=' || r == '&' || r == '"' || r == '\'' || r == ':'
				}) {
					add(tok)
				}
			}
		}
	}
	walk(v, 0)
	return out
}

// SecretRule returns the built-in forbid that names a call's target a
// secret ("secrets.…"), or "".
func SecretRule(p *policy.Policy, f *policy.Facts) string {
	d, hit := p.CheckForbids(f)
	if hit && strings.HasPrefix(d.Rule, "secrets.") {
		return d.Rule
	}
	return ""
}

// payloadNote is the detail an outbound call's record carries.
func payloadNote(f *policy.Facts, input []byte) string {
	if f == nil || len(f.Hosts) == 0 {
		return ""
	}
	ds := ContentDigests(gjson.ParseBytes(input))
	if len(ds) == 0 {
		return ""
	}
	return "payload_digests=" + strings.Join(ds, ",")
}
