package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// encodeRecordFast writes a record's canonical line straight from its
// fields, without encodeRecord's four JSON passes (marshal, decode into a
// map, encode, read back), which were a fifth of what an MCP call cost
// once its record is written before the call is forwarded.
//
// A Record holds only strings, so its canonical form is known: members
// sorted by key, the omitempty ones left out when empty, each string
// escaped as appendCanonicalString does. That equals the map round trip
// for every field that is valid UTF-8 (encoding/json keeps such strings
// exactly); a field that is not makes it report ok false, and encodeRecord
// takes the round trip, which turns each bad byte into U+FFFD.
// TestEncodeRecordFastMatches and FuzzEncodeRecordFast hold the two
// together.
func encodeRecordFast(r Record, prev string) (line []byte, out Record, ok bool) {
	r.Prev = prev
	r.H, r.Alg, r.Sig = "", "", ""
	fields := r.canonicalFields()
	size := 80
	for _, f := range fields {
		if !utf8.ValidString(f.v) {
			return nil, Record{}, false
		}
		size += len(f.k) + len(f.v) + 6
	}
	body := appendFields(make([]byte, 0, size), fields, "")
	sum := sha256.Sum256(body)
	r.H = hex.EncodeToString(sum[:])
	line = appendFields(make([]byte, 0, len(body)+len(r.H)+8), fields, r.H)
	return line, r, true
}

type canonField struct {
	k, v string
	keep bool // written even when empty (no omitempty)
}

// canonicalFields lists the record's members in key order, h left out
// (appendFields puts it in its place).
func (r *Record) canonicalFields() [17]canonField {
	return [17]canonField{
		{"agent", r.Agent, false},
		{"agent_tool", r.AgentTool, false},
		{"args_digest", r.ArgsDigest, false},
		{"asked", r.Asked, false},
		{"decision", r.Decision, false},
		{"detail", r.Detail, false},
		{"effective", r.Effective, false},
		{"event", r.Event, true},
		// h sorts here
		{"mode", r.Mode, false},
		{"prev", r.Prev, true},
		{"reason", r.Reason, false},
		{"rule", r.Rule, false},
		{"session", r.Session, false},
		{"source", r.Source, true},
		{"target", r.Target, false},
		{"tool", r.Tool, false},
		{"ts", r.Time, true},
	}
}

// appendFields writes the object; h, when not empty, goes between event
// and mode, where "h" sorts.
func appendFields(dst []byte, fields [17]canonField, h string) []byte {
	dst = append(dst, '{')
	first := true
	member := func(k, v string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, k...)
		dst = append(dst, '"', ':')
		dst = appendCanonicalString(dst, v)
	}
	for _, f := range fields {
		if f.v == "" && !f.keep {
			continue
		}
		member(f.k, f.v)
		if f.k == "event" && h != "" {
			member("h", h)
		}
	}
	return append(dst, '}')
}
