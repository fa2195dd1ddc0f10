package audit

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAppendShortcut: a held Log that skips reading back its own last line
// (tailMemo, held.go) still chains every record to the line before it when
// another writer touched the log in between: the shortcut must be taken
// only when nothing was added since this Log's own write.
func TestAppendShortcut(t *testing.T) {
	cases := []struct {
		name   string
		other  func(t *testing.T, home string)
		status Status
	}{
		{name: "nobody else", other: func(*testing.T, string) {}, status: Intact},
		{
			// A writer killed between its line and its checkpoint: the
			// checkpoint is unchanged, only the log's size tells.
			name: "killed appender left a whole line without its checkpoint",
			other: func(t *testing.T, home string) {
				lines := readLines(t, home)
				line, _, err := encodeRecord(testRecord(100), hashOfLine(t, lines[len(lines)-1]))
				if err != nil {
					t.Fatal(err)
				}
				appendRaw(t, home, append(line, '\n'))
			},
			status: Intact,
		},
		{
			name:   "killed appender tore its line",
			other:  func(t *testing.T, home string) { appendRaw(t, home, []byte(`{"decision":"allow","ev`)) },
			status: Broken, // the torn line is reported, as always
		},
		{
			name:   "another process appended",
			other:  func(t *testing.T, home string) { appendRecords(t, home, 200, 2) },
			status: Intact,
		},
		{
			name: "another process rewrote the checkpoint",
			other: func(t *testing.T, home string) {
				lines := readLines(t, home)
				writeHeadJSON(t, home, Head{Count: len(lines) - 1, Last: hashOfLine(t, lines[len(lines)-2]), At: "x"})
			},
			status: Intact, // a stale checkpoint, noted and repaired
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "airlock")
			l, err := Open(home)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for i := range 3 {
				if _, err := l.Append(testRecord(i)); err != nil {
					t.Fatal(err)
				}
			}
			tc.other(t, home)
			r, err := l.Append(testRecord(50))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append(testRecord(51)); err != nil {
				t.Fatal(err)
			}
			lines := readLines(t, home)
			at := -1
			for i, line := range lines {
				if bytes.Contains(line, []byte(`"h":"`+r.H+`"`)) {
					at = i
				}
			}
			if at < 1 {
				t.Fatalf("record %s not found in the log", r.H)
			}
			var before Record
			if err := json.Unmarshal(lines[at-1], &before); err != nil {
				t.Fatalf("line before the record: %v", err)
			}
			if r.Prev != before.H {
				t.Fatalf("the chain forked: the record's prev is %s, the line before it has h %s", r.Prev, before.H)
			}
			rep := mustVerify(t, home)
			if rep.Status != tc.status {
				t.Fatalf("verify: want %v, got %s", tc.status, describe(rep))
			}
		})
	}
}

// TestAppendShortcutInPlaceEdit: an edit of the log's last line that keeps
// its length and leaves audit.head alone is the one change the shortcut
// does not read back. verify still reports it, whether the edit kept the
// line's h or replaced it.
func TestAppendShortcutInPlaceEdit(t *testing.T) {
	for _, field := range []string{`"reason":"reason number 2"`, `"h":"`} {
		t.Run(field, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "airlock")
			l, err := Open(home)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for i := range 3 {
				if _, err := l.Append(testRecord(i)); err != nil {
					t.Fatal(err)
				}
			}
			lines := readLines(t, home)
			last := lines[len(lines)-1]
			i := bytes.Index(last, []byte(field))
			if i < 0 {
				t.Fatalf("%s not in %s", field, last)
			}
			j := i + len(field) - 1 // the last byte of the field shown (a digit or the h's quote)
			if field[len(field)-1] == '"' {
				j++ // the h's first hex digit
			}
			last[j] ^= 1 // '2'<->'3', or a hex digit to another
			writeLines(t, home, lines)
			if _, err := l.Append(testRecord(50)); err != nil {
				t.Fatal(err)
			}
			if rep := mustVerify(t, home); rep.Status != Broken {
				t.Fatalf("verify after an edit in place: want broken, got %s", describe(rep))
			}
		})
	}
}

// TestAppendHeadJSON: the checkpoint's JSON written directly is byte for
// byte json.Marshal's, and a Head with a string json.Marshal would escape
// is not written directly.
func TestAppendHeadJSON(t *testing.T) {
	const hx = "f520690424e1e421f1ad0cf793fa7f21b4066d552f119b9cec3ea0801db70b25"
	cases := []struct {
		h     Head
		plain bool
	}{
		{Head{}, true},
		{Head{Count: 12, Last: hx, At: "2026-12-01T22:40:08.123456789Z"}, true},
		{Head{Count: -1, Last: hx, At: "x", Segments: 3, Ledger: hx}, true},
		{Head{Count: 1 << 40, Last: hx, At: "x", Segments: -2, Ledger: hx, Alg: "ed25519", Sig: "a+b/c=="}, true},
		{Head{Count: 1, Last: hx, At: "x", Alg: "hmac-sha256", Sig: hx}, true},
		{Head{At: `a"b`}, false},
		{Head{At: `a\b`}, false},
		{Head{At: "a<b"}, false},
		{Head{At: "a>b"}, false},
		{Head{Sig: "a&b"}, false},
		{Head{Ledger: "tab\there"}, false},
		{Head{Last: "é"}, false},
		{Head{Alg: "\x7f"}, false},
		{Head{At: "\xff"}, false},
	}
	for _, tc := range cases {
		want, err := json.Marshal(tc.h)
		if err != nil {
			t.Fatal(err)
		}
		if got := headPlain(tc.h); got != tc.plain {
			t.Errorf("headPlain(%+v) = %v, want %v", tc.h, got, tc.plain)
			continue
		}
		if tc.plain {
			if got := appendHeadJSON(nil, tc.h); !bytes.Equal(got, want) {
				t.Errorf("appendHeadJSON(%+v)\n got %s\nwant %s", tc.h, got, want)
			}
		}
		slot, err := encodeSlot(nil, 7, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(slot, append([]byte("7 "), want...)) {
			t.Errorf("encodeSlot(%+v) = %s, want it to hold %s", tc.h, slot, want)
		}
	}
}

// TestPadSlot: a slot is its text, spaces, and a newline, size bytes in all.
func TestPadSlot(t *testing.T) {
	for _, tc := range []struct{ text, size int }{{0, 1}, {3, 4}, {3, 1024}, {1023, 1024}, {10, 4096}} {
		text := bytes.Repeat([]byte{'x'}, tc.text)
		got := padSlot([]byte("left over from before"), text, tc.size)
		want := append(append(bytes.Clone(text), bytes.Repeat([]byte{' '}, tc.size-1-tc.text)...), '\n')
		if !bytes.Equal(got, want) {
			t.Errorf("padSlot(%d bytes, %d) = %q", tc.text, tc.size, got)
		}
	}
}

// TestParseHeadFast: the checkpoint read without encoding/json returns
// what json.Unmarshal returns, and declines (for json.Unmarshal to read)
// every text that is not byte for byte what appendHeadJSON writes.
func TestParseHeadFast(t *testing.T) {
	const hx = "f520690424e1e421f1ad0cf793fa7f21b4066d552f119b9cec3ea0801db70b25"
	heads := []Head{
		{},
		{Count: 12, Last: hx, At: "2026-12-01T22:40:08.123456789Z"},
		{Count: 1 << 40, Last: hx, At: "x", Segments: 3, Ledger: hx, Alg: "ed25519", Sig: "a+b/c=="},
		{Count: 1, Last: hx, At: "x", Alg: "hmac-sha256", Sig: hx},
		{Count: 1, Last: hx, At: "x", Sig: hx},
	}
	for _, h := range heads {
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := parseHeadFast(b); !ok || got != h {
			t.Errorf("parseHeadFast(%s) = %+v, %v; want %+v", b, got, ok, h)
		}
	}
	declined := []string{
		``, `{}`, `null`, `{"count":1}`,
		` {"count":1,"last":"` + hx + `","at":"x"}`,
		`{"count":1,"last":"` + hx + `","at":"x"} `,
		`{"count": 1,"last":"` + hx + `","at":"x"}`,
		`{"at":"x","count":1,"last":"` + hx + `"}`,
		`{"Count":1,"last":"` + hx + `","at":"x"}`,
		`{"count":01,"last":"` + hx + `","at":"x"}`,
		`{"count":-1,"last":"` + hx + `","at":"x"}`,
		`{"count":1.0,"last":"` + hx + `","at":"x"}`,
		`{"count":1e3,"last":"` + hx + `","at":"x"}`,
		`{"count":99999999999999999999,"last":"` + hx + `","at":"x"}`,
		`{"count":1,"last":"` + hx + `","at":"x\u0041"}`,
		`{"count":1,"last":"` + hx + `","at":"x\"y"}`,
		`{"count":1,"last":"` + hx + `","at":"x","segments":0}`,
		`{"count":1,"last":"` + hx + `","at":"x","alg":""}`,
		`{"count":1,"last":"` + hx + `","at":"x","sig":"a","alg":"b"}`,
		`{"count":1,"last":"` + hx + `","at":"x","count":2}`,
		`{"count":1,"last":"` + hx + `","at":"x","extra":1}`,
		`{"count":1,"last":"` + hx + `","at":"x"}}`,
		`{"count":1,"last":"` + hx + `","at":"x`,
		`{"count":1,"last":"` + hx + `","at":"é"}`,
	}
	for _, s := range declined {
		if got, ok := parseHeadFast([]byte(s)); ok {
			t.Errorf("parseHeadFast(%s) = %+v: accepted, want it left to json.Unmarshal", s, got)
		}
	}
}
