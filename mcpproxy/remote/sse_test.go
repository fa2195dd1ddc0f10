package remote

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t testing.TB, s string, max int) ([]sseEvent, error) {
	r := newSSEReader(strings.NewReader(s), max)
	var evs []sseEvent
	for {
		ev, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []sseEvent
	}{
		{"data: {\"a\":1}\n\n", []sseEvent{{Type: "message", Data: `{"a":1}`}}},
		{"\uFEFFevent: endpoint\r\ndata: /messages?s=1\r\n\r\n", []sseEvent{{Type: "endpoint", Data: "/messages?s=1"}}},
		{"data:one\rdata:two\r\r", []sseEvent{{Type: "message", Data: "one\ntwo"}}},
		{": keep-alive\n\nid: 7\ndata: x\n\n", []sseEvent{{Type: "message", Data: "x", ID: "7"}}},
		{"event: ping\n\ndata: y\n\n", []sseEvent{{Type: "message", Data: "y"}}}, // an event with no data dispatches nothing, and its type is reset
		{"data\n\n", []sseEvent{{Type: "message", Data: ""}}},
		{"data: unfinished", nil}, // no blank line: never dispatched
		{"retry: 10\nfoo: bar\ndata:  two spaces\n\n", []sseEvent{{Type: "message", Data: " two spaces"}}},
	} {
		got, err := readAll(t, c.in, 1<<20)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: event %d = %+v, want %+v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

// A server request with an id is an event like any other: the reader
// never decides what it is (mcp-go's SSE transport would take it for an
// answer).
func TestSSEServerRequestIsAnEvent(t *testing.T) {
	got, err := readAll(t, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}\n\n", 1<<20)
	if err != nil || len(got) != 1 || !strings.Contains(got[0].Data, "sampling/createMessage") {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestSSEReaderBounded(t *testing.T) {
	big := "data: " + strings.Repeat("x", 5000) + "\n\n"
	if _, err := readAll(t, big, 1000); !errors.Is(err, errEventTooBig) {
		t.Fatalf("an event past the cap: %v", err)
	}
	many := strings.Repeat("data: "+strings.Repeat("y", 400)+"\n", 10) + "\n"
	if _, err := readAll(t, many, 1000); !errors.Is(err, errEventTooBig) {
		t.Fatalf("data lines past the cap together: %v", err)
	}
	noNewline := strings.Repeat("z", 100000)
	if _, err := readAll(t, noNewline, 1000); !errors.Is(err, errEventTooBig) {
		t.Fatalf("a line past the cap: %v", err)
	}
}

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "event: endpoint\r\ndata: /m\r\n\r\n", "data:a\rdata:b\r\r", ":c\n\n", "\uFEFFdata\n\n", "id: \x00\ndata: x\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		evs, err := readAll(t, in, 4096)
		if err != nil && !errors.Is(err, errEventTooBig) {
			t.Fatalf("%q: %v", in, err)
		}
		total := 0
		for _, ev := range evs {
			if ev.Type == "" {
				t.Fatalf("%q: an event with no type", in)
			}
			if len(ev.Data) > 4096 {
				t.Fatalf("%q: an event of %d bytes past the cap", in, len(ev.Data))
			}
			if strings.ContainsRune(ev.ID, 0) {
				t.Fatalf("%q: an id with NUL", in)
			}
			total += len(ev.Data)
		}
		// every data byte came from the input (no event is made up)
		if total > len(in) {
			t.Fatalf("%q: %d bytes of data out of %d in", in, total, len(in))
		}
		// the same stream split at every byte reads the same
		r := newSSEReader(&oneByte{s: in}, 4096)
		var again []sseEvent
		for {
			ev, err := r.next()
			if err != nil {
				break
			}
			again = append(again, ev)
		}
		if len(again) != len(evs) {
			t.Fatalf("%q: %d events whole, %d byte by byte", in, len(evs), len(again))
		}
		for i := range evs {
			if evs[i] != again[i] {
				t.Fatalf("%q: event %d differs byte by byte: %+v vs %+v", in, i, evs[i], again[i])
			}
		}
	})
}

type oneByte struct {
	s string
	i int
}

func (o *oneByte) Read(p []byte) (int, error) {
	if o.i >= len(o.s) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.s[o.i]
	o.i++
	return 1, nil
}
