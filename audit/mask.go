package audit

import (
	"slices"

	"github.com/agentairlock/airlock/scan/secret"
)

// Secrets never reach the log. Every text field of a record that a caller
// fills — and through it the agent, a server or a policy file — is masked
// with scan/secret before the record is encoded: a token in a Bash
// command, a URL's password or a key in an MCP argument is written as
// "[masked KIND sha256:XXXXXXXX]". Because masking happens before the
// hash, the chain is computed over the masked text: verify, export,
// report and forward all see the mask and nothing can recover the secret
// from the log. The fields Append fills itself or that hold digests (ts,
// prev, h, alg, sig, args_digest) are never touched.
//
// docs/secrets.md lists the shapes and explains the digest.

// maskRecords returns rs with every record masked. When no record held a
// secret it returns rs itself, having allocated nothing; otherwise a copy,
// so the caller's records keep what they held.
func maskRecords(rs []Record) []Record {
	var out []Record
	for i := range rs {
		r, changed := maskRecord(rs[i])
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(rs)
		}
		out[i] = r
	}
	if out == nil {
		return rs
	}
	return out
}

// maskRecord masks the text fields of r.
func maskRecord(r Record) (Record, bool) {
	changed := false
	m := func(s string) string {
		out := secret.Mask(s)
		if len(out) != len(s) || out != s {
			changed = true
		}
		return out
	}
	r.Event = m(r.Event)
	r.Source = m(r.Source)
	r.Session = m(r.Session)
	r.Tool = m(r.Tool)
	r.Agent = m(r.Agent)
	r.AgentTool = m(r.AgentTool)
	r.Decision = m(r.Decision)
	r.Effective = m(r.Effective)
	r.Rule = m(r.Rule)
	r.Reason = m(r.Reason)
	r.Target = m(r.Target)
	r.Detail = m(r.Detail)
	r.Mode = m(r.Mode)
	r.Asked = m(r.Asked)
	return r, changed
}
