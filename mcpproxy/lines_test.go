package mcpproxy

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

func TestLineReaderAnyLength(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := "a\n" + big + "\n\nlast-no-newline"
	lr := newLineReader(strings.NewReader(in), 0)
	var got []string
	for {
		l, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(l))
	}
	want := []string{"a\n", big + "\n", "\n", "last-no-newline"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

func TestLineWriterNeverInterleaves(t *testing.T) {
	var buf bytes.Buffer
	lw := newLineWriter(&buf)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			line := []byte(strings.Repeat(string(rune('a'+g)), 100000))
			for i := 0; i < 20; i++ {
				if err := lw.write(line); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 160 {
		t.Fatalf("got %d lines, want 160", len(lines))
	}
	for i, l := range lines {
		if len(l) != 100000 || strings.Trim(l, l[:1]) != "" {
			t.Fatalf("line %d is interleaved", i)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct{ msg, dup string }{
		{`{"method":"tools/call","params":{"name":"a","arguments":{"p":1}}}`, ""},
		{`{"method":"ping","method":"tools/call"}`, "method"},
		{`{"method":"tools/call","params":{"name":"echo","name":"read_file"}}`, "name"},
		{`{"me\u0074hod":"tools/call","method":"ping"}`, "method"},
		{`{"params":{"arguments":{"a":[{"x":1,"x":2}]}}}`, "x"},
		{`[{"a":1},{"a":1}]`, ""},
	} {
		if got := duplicateKey(gjson.Parse(c.msg), 0); got != c.dup {
			t.Errorf("%s: got %q, want %q", c.msg, got, c.dup)
		}
	}
}

// gjson must read escaped keys the way a JSON parser does, or a client
// could spell "method" so that the proxy does not see a tools/call.
func TestEscapedKeysAreRead(t *testing.T) {
	m := gjson.Parse(`{"me\u0074hod":"tools\/call","par\u0061ms":{"n\u0061me":"x"}}`)
	if m.Get("method").String() != "tools/call" || m.Get("params.name").String() != "x" {
		t.Fatalf("escaped keys not matched: method=%q name=%q", m.Get("method").String(), m.Get("params.name").String())
	}
}
