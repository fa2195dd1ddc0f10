package mcpproxy

// Fuzz targets for what the proxy reads from its peers: the line reader
// and its cap, the top-level scanner that recovers ids, id keys, and
// batches through the relay. Seeds are in testdata/fuzz/; `go test` runs
// them, `go test -fuzz=FuzzX` explores.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// The reader returns exactly the lines of its input, in order, each whole
// or, past the cap, as its size and the ids the scanner finds in it.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint16(2), uint8(0))
	f.Add([]byte(`{"id":1,"x":"`+strings.Repeat("y", 100)+`"}`+"\n"+`{"id":2}`), uint16(20), uint8(3))
	f.Add([]byte("\r\n\r\n\n"), uint16(0), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, max uint16, size uint8) {
		lr := newLineReaderSize(bytes.NewReader(data), int64(max)+1, 16+int(size))
		var want []string
		for rest := string(data); rest != ""; {
			i := strings.IndexByte(rest, '\n')
			if i < 0 {
				want = append(want, rest)
				break
			}
			want = append(want, rest[:i+1])
			rest = rest[i+1:]
		}
		for n, w := range want {
			got, err := lr.next()
			body := strings.TrimSuffix(w, "\n")
			if len(body) > int(max)+1 {
				big, ok := err.(*oversized)
				if !ok || big.size != int64(len(body)) {
					t.Fatalf("line %d (%d bytes, cap %d): got %q, %v", n, len(body), max+1, got, err)
				}
				if fmt.Sprint(big.top) != fmt.Sprint(scanTop(body)) {
					t.Fatalf("line %d: scanned in pieces %v, whole %v", n, big.top, scanTop(body))
				}
				continue
			}
			if err != nil || got != w {
				t.Fatalf("line %d: got %q, %v; want %q", n, got, err, w)
			}
		}
		if got, err := lr.next(); err != io.EOF {
			t.Fatalf("after the last line: %q, %v", got, err)
		}
	})
}

// The scanner finds what gjson finds at the top level of valid JSON, and
// the same in any pieces.
func FuzzTopScanner(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"method":"x","params":{"id":2},"id":"a\"b"}`,
		`[{"id":1,"method":"a"},{"id":2},3,[{"id":4}]]`,
		`{"i\u0064":5,"id":6}`,
		`{"id":{"a":1}}`,
		` {"id" : 1e0 , "method":null}`,
		`{"id":"` + strings.Repeat("x", 1100) + `"}`,
		`{"a":[[[[{"id":9}]]]],"id":-0.5e-3}`,
		`{"id":7,"x":NaN`,
	} {
		f.Add(s, uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint16) {
		whole := scanTop(s)
		var sc topScanner
		k := int(cut) % (len(s) + 1)
		sc.feed([]byte(s[:k]))
		sc.feed([]byte(s[k:]))
		if fmt.Sprint(sc.result()) != fmt.Sprint(whole) {
			t.Fatalf("%q: in two pieces at %d %v, whole %v", s, k, sc.result(), whole)
		}
		if !gjson.Valid(s) || nestingDepth(s) > maxNesting {
			return
		}
		root := gjson.Parse(s)
		var msgs []gjson.Result
		switch {
		case root.IsObject():
			msgs = []gjson.Result{root}
		case root.IsArray():
			root.ForEach(func(_, el gjson.Result) bool {
				if el.IsObject() {
					msgs = append(msgs, el)
				}
				return true
			})
		}
		if len(msgs) > maxScanned {
			return
		}
		if len(msgs) != len(whole.msgs) {
			t.Fatalf("%q: gjson sees %d messages, the scanner %d", s, len(msgs), len(whole.msgs))
		}
		for i, m := range msgs {
			got := whole.msgs[i]
			ids := 0
			m.ForEach(func(k, _ gjson.Result) bool {
				if k.String() == "id" {
					ids++
				}
				return true
			})
			id := m.Get("id")
			want := ""
			if ids == 1 && (id.Type == gjson.String || id.Type == gjson.Number) && len(id.Raw) <= maxIDLen {
				want = id.Raw
			}
			if got.id != want || got.idBad != (ids > 0 && want == "") || got.method != m.Get("method").Exists() {
				t.Fatalf("%q message %d: scanner %+v, gjson id %q (%d id keys), method %v", s, i, got, want, ids, m.Get("method").Exists())
			}
		}
	})
}

// Two ids share a key when a JSON reader holds them as the same value,
// and never when one is a string and the other a number.
func FuzzIDKey(f *testing.F) {
	for _, p := range [][2]string{
		{`1`, `1.0`}, {`1e0`, `10e-1`}, {`-0`, `0`}, {`"1"`, `1`}, {`"a/b"`, `"a\/b"`},
		{`12345678901234567890`, `12345678901234567000`}, {`"\ud800"`, `"\ufffd"`}, {`1e400`, `2e400`},
		{`9007199254740993`, `9007199254740992`}, {`"é"`, `"\u00e9"`}, {`null`, `null`},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, wa := idKey(gjson.Parse(a))
		kb, wb := idKey(gjson.Parse(b))
		if !gjson.Valid(a) || !gjson.Valid(b) || wa != "" || wb != "" {
			return
		}
		if (ka == "") || (kb == "") {
			t.Fatalf("%s or %s: an empty key for a valid id", a, b)
		}
		var va, vb any
		if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
			return // past float64's range: encoding/json refuses it
		}
		sa, aStr := va.(string)
		sb, bStr := vb.(string)
		switch {
		case aStr != bStr:
			if ka == kb {
				t.Fatalf("the string and the number %s and %s share the key %q", a, b, ka)
			}
		case aStr:
			if sa == sb && ka != kb {
				t.Fatalf("%s and %s read as one string, keys %q and %q", a, b, ka, kb)
			}
		default:
			if (va.(float64) == vb.(float64)) != (ka == kb) {
				t.Fatalf("%s and %s: values %v and %v, keys %q and %q", a, b, va, vb, ka, kb)
			}
		}
		// an id rewritten into a message keeps the message JSON
		msg := `{"jsonrpc":"2.0","id":` + b + `,"result":{}}`
		id := gjson.Get(msg, "id")
		out, ok := withID(msg, id.Index, id.Raw, replyID(gjson.Parse(a).Raw))
		if !ok || !gjson.Valid(out) || rawKey(gjson.Get(out, "id").Raw) != ka {
			t.Fatalf("%s respelled as %s: %q, %v", b, a, out, ok)
		}
	})
}

// fuzzProxy is a proxy whose peers are buffers, admitted with a fixed
// toolset, so one input is decided synchronously.
type fuzzProxy struct {
	p                *Proxy
	toClient, toServ *bytes.Buffer
}

var fuzzSetup struct {
	once sync.Once
	o    Options
	ts   *pins.Toolset
	err  error
}

func newFuzzProxy(t *testing.T) *fuzzProxy { return newFuzzProxyB(t) }

func newFuzzProxyB(t testing.TB) *fuzzProxy {
	fs := &fuzzSetup
	fs.once.Do(func() {
		root, err := os.MkdirTemp("", "airlock-fuzz-")
		if err != nil {
			fs.err = err
			return
		}
		home := filepath.Join(root, "airlock")
		pol, err := policy.LoadProfile("default", policy.Vars{Workspace: root, Home: root, Tmp: root, User: "dev", AirlockHome: home})
		if err != nil {
			fs.err = err
			return
		}
		fs.o = Options{Name: "fuzz", Dir: root, Stderr: io.Discard, ListWait: 1,
			Gate: &gate.Gate{Policy: pol, Env: airlockhome.Env{Home: root, User: "dev", Tmp: root, AirlockHome: home, Getenv: func(string) string { return "" }}},
			Pins: pins.Open(home), MaxMessage: 1 << 20}
		fs.o.defaults()
		fs.ts, fs.err = pins.NewToolset([]json.RawMessage{json.RawMessage(echoTool), json.RawMessage(readTool)})
	})
	if fs.err != nil {
		t.Fatal(fs.err)
	}
	fp := &fuzzProxy{toClient: &bytes.Buffer{}, toServ: &bytes.Buffer{}}
	o := fs.o
	o.Stdout = fp.toClient
	fp.p = newProxy(o)
	fp.p.toServer = newLineWriter(fp.toServ)
	fp.p.adm.stale, fp.p.adm.live = false, fs.ts
	t.Cleanup(fp.p.log.close)
	return fp
}

func lines(b *bytes.Buffer) []string {
	s := strings.TrimSuffix(b.String(), "\n")
	b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Through the relay, a client batch (or message) comes out as JSON only:
// each request in it is forwarded or answered, never both, never
// neither; and a server line reaches the client only as JSON-RPC
// messages, each response once, to a request in flight, in the client's
// spelling of its id.
func FuzzBatch(f *testing.F) {
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":1.0,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`)
	f.Add(`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"read_file","arguments":{"path":"/root/.ssh/id_rsa"}}},{"jsonrpc":"2.0","id":"a","method":"ping"},[1],3]`,
		`{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}`)
	f.Add(`{"jsonrpc":"2.0","id":1e0,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`)
	f.Add(`[{"jsonrpc":"2.0","id":5,"method":"x"},{"jsonrpc":"2.0","id":5.0,"method":"y"}]`, `[{"jsonrpc":"2.0","id":5,"result":1},[],{"id":5}]`)
	f.Add(`[]`, `[]`)
	f.Fuzz(func(t *testing.T, client, server string) {
		if strings.ContainsAny(client, "\n") || strings.ContainsAny(server, "\n") {
			return
		}
		fp := newFuzzProxy(t)
		if err := fp.p.fromClient(client + "\n"); err != nil {
			t.Fatal(err)
		}
		answered := map[string]int{}
		for _, l := range lines(fp.toClient) {
			if !gjson.Valid(l) {
				t.Fatalf("the proxy answered the client %q", l)
			}
			forEachMessage(gjson.Parse(l), func(m gjson.Result) {
				if id := m.Get("id"); id.Type != gjson.Null {
					answered[rawKey(id.Raw)]++
				}
			})
		}
		forwarded := map[string]string{} // key → the client's spelling
		requests := map[string]int{}
		if gjson.Valid(client) && framingProblem(trimSpace(client)) == "" {
			forEachMessage(gjson.Parse(client), func(m gjson.Result) {
				if id := m.Get("id"); m.IsObject() && m.Get("method").Exists() && id.Exists() {
					if k, why := idKey(id); why == "" {
						requests[k]++
					}
				}
			})
		}
		for _, l := range lines(fp.toServ) {
			if l != client && (!gjson.Valid(l) || !strings.HasPrefix(l, "[")) {
				t.Fatalf("the client sent %q; the server got %q", client, l)
			}
			forEachMessage(gjson.Parse(l), func(m gjson.Result) {
				if !strings.Contains(client, m.Raw) {
					t.Fatalf("the server got %s, which is not in what the client sent", m.Raw)
				}
				if id := m.Get("id"); id.Exists() && m.Get("method").Exists() {
					k := rawKey(id.Raw)
					if _, dup := forwarded[k]; dup {
						t.Fatalf("request id %s forwarded twice: %q", id.Raw, client)
					}
					forwarded[k] = id.Raw
				}
			})
		}
		for k, n := range requests {
			got := answered[k]
			if _, ok := forwarded[k]; ok {
				got++
			}
			if got != n {
				t.Fatalf("%d requests with id key %q; %d forwarded or answered: %q", n, k, got, client)
			}
		}
		if err := fp.p.fromServer(server + "\n"); err != nil {
			t.Fatal(err)
		}
		delivered := map[string]bool{}
		for _, l := range lines(fp.toClient) {
			if !gjson.Valid(l) {
				t.Fatalf("the server sent %q; the client got %q", server, l)
			}
			root := gjson.Parse(l)
			if !root.IsObject() && !root.IsArray() {
				t.Fatalf("the client got %q", l)
			}
			forEachMessage(root, func(m gjson.Result) {
				if !m.IsObject() {
					t.Fatalf("the client got a batch element %s", m.Raw)
				}
				id := m.Get("id")
				if m.Get("method").Exists() || id.Type == gjson.Null {
					return
				}
				k := rawKey(id.Raw)
				spelled, ok := forwarded[k]
				if !ok || delivered[k] || spelled != id.Raw {
					t.Fatalf("the client got an answer for id %s (forwarded: %v as %q, delivered before: %v); server sent %q", id.Raw, ok, spelled, delivered[k], server)
				}
				delivered[k] = true
			})
		}
	})
}

func forEachMessage(root gjson.Result, fn func(gjson.Result)) {
	if root.IsArray() {
		root.ForEach(func(_, el gjson.Result) bool {
			fn(el)
			return true
		})
		return
	}
	fn(root)
}
