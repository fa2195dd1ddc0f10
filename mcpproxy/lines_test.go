package mcpproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
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

// readAll reads every line, writing an oversized one as "!N" (its size)
// followed by the ids its top level showed.
func readAll(t testing.TB, lr *lineReader) []string {
	var got []string
	for {
		l, err := lr.next()
		var big *oversized
		switch {
		case errors.As(err, &big):
			s := fmt.Sprintf("!%d", big.size)
			for _, m := range big.top.msgs {
				s += " " + m.id
			}
			got = append(got, s)
			continue
		case err == io.EOF:
			return got
		case err != nil:
			t.Fatal(err)
		}
		got = append(got, l)
	}
}

func TestLineReaderCapsALineAndReadsPastIt(t *testing.T) {
	long := `{"id":7,"x":"` + strings.Repeat("y", 300) + `"}`
	in := "0123456789\n" + "0123456789A\n" + long + "\nok\n" + "abc\r\n" + long + "\n\n" + "tail"
	want := []string{"0123456789\n", "!11", fmt.Sprintf("!%d 7", len(long)), "ok\n", "abc\r\n", fmt.Sprintf("!%d 7", len(long)), "\n", "tail"}
	for _, size := range []int{16, 17, 64, 4096} {
		got := readAll(t, newLineReaderSize(strings.NewReader(in), 10, size))
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("buffer %d: got %q\nwant %q", size, got, want)
		}
	}
	// an unterminated last line past the cap
	got := readAll(t, newLineReaderSize(strings.NewReader("ok\n"+long), 10, 16))
	if len(got) != 2 || got[1] != fmt.Sprintf("!%d 7", len(long)) {
		t.Errorf("unterminated oversized line: %q", got)
	}
}

// A line past the cap is discarded as it is read: reading one of 64 MiB
// through a 1 MiB cap allocates about the reader's buffer, not the line.
func TestLineReaderDiscardsWithoutBuffering(t *testing.T) {
	line := strings.Repeat("z", 64<<20) + "\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := readAll(t, newLineReader(strings.NewReader(line), 1<<20))
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0] != fmt.Sprintf("!%d", 64<<20) {
		t.Fatalf("got %q", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Fatalf("discarding a 64 MiB line past a 1 MiB cap allocated %d MiB", n>>20)
	}
}
