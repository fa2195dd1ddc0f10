package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex runs a hook from a user's hooks.json only once the user has
// trusted it, and skips an untrusted one without a word: the tool runs,
// ungated. Codex keeps that trust, undocumented (openai/codex#46210), in
// $CODEX_HOME/config.toml:
//
//	[hooks.state."/home/me/.codex/hooks.json:pre_tool_use:0:0"]
//	trusted_hash = "sha256:…"
//
// The key is the hooks file, the event, the group's index in the event's
// list and the handler's index in the group. The hash is Codex's own
// fingerprint of the hook (codex-rs hooks/src/engine/discovery.rs,
// command_hook_hash, and config/src/fingerprint.rs, version_for_toml): the
// SHA-256 of the compact JSON, keys sorted, of
//
//	{"event_name": "pre_tool_use", "matcher": "*", "hooks": [{"type": "command",
//	 "command": "…", "timeout": 30, "async": false}]}
//
// where the handler is normalised (a missing timeout is Codex's default,
// 600 s; unset fields are left out). airlock init is a person's act (an
// agent cannot run it and trust its own hook), so init records the trust
// of the hooks it wired, as /hooks in Codex would, and says so; doctor
// asks Codex itself whether the hook will run.

// trustRecord is one hooks.state entry init added to config.toml.
type trustRecord struct {
	Key  string `json:"key"`
	Hash string `json:"hash"`
	// Was is the trusted_hash the entry held before init replaced it (a
	// hook trusted once and changed since); "" when init added the entry.
	Was string `json:"was,omitempty"`
}

// codexEventLabels are Codex's names for the events in hooks.state keys.
var codexEventLabels = map[string]string{"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}

// codexDefaultTimeout is the timeout, in seconds, Codex gives a hook that
// names none.
const codexDefaultTimeout = 600

// codexTrust is the hooks.state entries that make Codex run the
// airlock-hook hooks in hooks.json (at hooksPath, with bytes data): one
// for each handler of PreToolUse and PostToolUse that runs the airlock-hook
// at hookPath as init wires it.
func codexTrust(hooksPath string, data []byte, hookPath string) []trustRecord {
	doc := &jdoc{src: blankJSONC(data)}
	root, ok := doc.root()
	if !ok || root.kind() != kObj {
		return nil
	}
	hm, ok := jlast(root, "hooks")
	if !ok || hm.val.kind() != kObj {
		return nil
	}
	var out []trustRecord
	for _, s := range handlerSites(codexDialect, hm.val) {
		label := codexEventLabels[s.event]
		c, ok := jlast(s.h, "command")
		if label == "" || !ok || c.val.kind() != kStr {
			continue
		}
		h := Hook{Event: s.event, Command: c.val.text()}
		var matcher *string
		if m, ok := jlast(s.group, "matcher"); ok && m.val.kind() == kStr {
			t := m.val.text()
			matcher, h.Matcher = &t, t
		}
		timeout := codexDefaultTimeout
		if t, ok := jlast(s.h, "timeout"); ok {
			n, err := strconv.Atoi(t.val.text())
			if t.val.kind() != kNum || err != nil {
				continue
			}
			timeout, h.Timeout = max(n, 1), n
		}
		async := false
		if a, ok := jlast(s.h, "async"); ok {
			async, _ = scalarBool(a.val)
		}
		h.Async = async
		var status *string
		if m, ok := jlast(s.h, "statusMessage"); ok && m.val.kind() == kStr {
			t := m.val.text()
			status = &t
		}
		if t, ok := jlast(s.h, "type"); !ok || t.val.kind() != kStr || t.val.text() != "command" || hookRunProblem(h, codexDialect, hookPath) != "" {
			continue
		}
		out = append(out, trustRecord{
			Key:  fmt.Sprintf("%s:%s:%d:%d", hooksPath, label, s.gi, s.hi),
			Hash: codexHookHash(label, matcher, h.Command, timeout, async, status),
		})
	}
	return out
}

// codexHookHash is Codex's trusted_hash of one command hook.
func codexHookHash(label string, matcher *string, command string, timeout int, async bool, status *string) string {
	handler := map[string]any{"type": "command", "command": command, "timeout": timeout, "async": async}
	if status != nil {
		handler["statusMessage"] = *status
	}
	id := map[string]any{"event_name": label, "hooks": []any{handler}}
	if matcher != nil {
		id["matcher"] = *matcher
	}
	var b bytes.Buffer
	canonicalJSON(&b, id)
	h := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(h[:])
}

// canonicalJSON writes v as serde_json writes it compactly, object keys
// sorted: the bytes Codex hashes.
func canonicalJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			serdeString(b, k)
			b.WriteByte(':')
			canonicalJSON(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalJSON(b, e)
		}
		b.WriteByte(']')
	case string:
		serdeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	}
}

// serdeString quotes s as serde_json does: only the quote, the backslash
// and control characters are escaped; everything else is written as
// UTF-8.
func serdeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// trustBlock is the table init appends to config.toml for one entry.
func trustBlock(r trustRecord, nl string) string {
	return "[hooks.state." + tomlQuote(r.Key) + "]" + nl + "trusted_hash = " + tomlQuote(r.Hash) + nl
}

// codexStates reads config.toml's hooks.state entries: key → trusted_hash
// ("" when the entry has none), and the keys whose hook is disabled.
func codexStates(data []byte) (map[string]string, map[string]bool, error) {
	if d := tomlDepth(data); d > maxTOMLDepth {
		return nil, nil, fmt.Errorf("invalid TOML: nested deeper than %d", maxTOMLDepth)
	}
	var doc struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash *string `toml:"trusted_hash"`
				Enabled     *bool   `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := guard(func() error { _, e := toml.Decode(string(data), &doc); return e }); err != nil {
		return nil, nil, err
	}
	hashes, disabled := map[string]string{}, map[string]bool{}
	for k, s := range doc.Hooks.State {
		hashes[k] = ""
		if s.TrustedHash != nil {
			hashes[k] = *s.TrustedHash
		}
		if s.Enabled != nil && !*s.Enabled {
			disabled[k] = true
		}
	}
	return hashes, disabled, nil
}

// trustCodex records in config.toml (data; nil when there is none) the
// trust of each entry in want that Codex does not hold yet, by appending
// its [hooks.state."KEY"] table, or by replacing the trusted_hash of an
// entry trusted before the hook changed. A hook the user disabled in Codex
// is left disabled. The edit is checked by reading the file back as Codex
// will.
func trustCodex(data []byte, want []trustRecord) ([]byte, []trustRecord, []string, error) {
	have, disabled, err := codexStates(data)
	if err != nil {
		return nil, nil, nil, refuse("config.toml does not read as TOML (%v)", err)
	}
	nl := newline(data)
	out := append([]byte(nil), data...)
	var recs []trustRecord
	var notes []string
	for _, r := range want {
		h, ok := have[r.Key]
		switch {
		case disabled[r.Key]:
			notes = append(notes, fmt.Sprintf("Codex has the hook %s disabled (enabled = false in hooks.state): it does not run", r.Key))
			continue
		case ok && h == r.Hash:
			continue
		case ok && h != "":
			// trusted once, changed since: the one line to replace
			old := "trusted_hash = " + tomlQuote(h)
			hdr := "[hooks.state." + tomlQuote(r.Key) + "]"
			i := bytes.Index(out, []byte(hdr))
			j := -1
			if i >= 0 {
				j = bytes.Index(out[i:], []byte(old))
			}
			if i < 0 || j < 0 {
				return nil, nil, nil, refuse("hooks.state.%s is not written as one [table] with trusted_hash on its own line", tomlQuote(r.Key))
			}
			j += i
			out = append(out[:j:j], append([]byte("trusted_hash = "+tomlQuote(r.Hash)), out[j+len(old):]...)...)
			r.Was = h
		case ok:
			return nil, nil, nil, refuse("hooks.state.%s exists without a trusted_hash", tomlQuote(r.Key))
		default:
			if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, nl...)
			}
			if len(out) > 0 {
				out = append(out, nl...)
			}
			out = append(out, trustBlock(r, nl)...)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return data, nil, notes, nil
	}
	got, _, err := codexStates(out)
	if err != nil {
		return nil, nil, nil, refuse("recording Codex's trust would break config.toml (%v)", err)
	}
	for _, r := range recs {
		if got[r.Key] != r.Hash {
			return nil, nil, nil, refuse("internal error: the trust of %s does not read back", r.Key)
		}
	}
	return out, recs, notes, nil
}

// untrustCodex takes out of config.toml the trust init recorded, where it
// is still as init wrote it: an appended table goes (with the blank line
// before it), a replaced hash gets its old value back.
func untrustCodex(data []byte, recs []trustRecord) []byte {
	for _, r := range recs {
		nl := newline(data)
		if r.Was != "" {
			hdr := "[hooks.state." + tomlQuote(r.Key) + "]"
			cur := "trusted_hash = " + tomlQuote(r.Hash)
			if i := bytes.Index(data, []byte(hdr)); i >= 0 {
				if j := bytes.Index(data[i:], []byte(cur)); j >= 0 {
					j += i
					data = append(data[:j:j], append([]byte("trusted_hash = "+tomlQuote(r.Was)), data[j+len(cur):]...)...)
				}
			}
			continue
		}
		blk := trustBlock(r, nl)
		i := bytes.Index(data, []byte(blk))
		if i < 0 || i > 0 && data[i-1] != '\n' {
			continue
		}
		start := i
		if strings.HasSuffix(string(data[:i]), nl+nl) {
			start -= len(nl)
		} else if i == len(nl) && string(data[:i]) == nl {
			start = 0
		}
		data = append(data[:start:start], data[i+len(blk):]...)
	}
	return data
}
