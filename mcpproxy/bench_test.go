package mcpproxy

import (
	"strconv"
	"strings"

	"bufio"
	"fmt"
	"github.com/tidwall/gjson"
	"io"
	"sort"
	"testing"
	"time"
)

// BenchmarkToolCall measures one tools/call round trip from a client to
// the in-process fake server over OS pipes, directly and through the relay
// (still in this process), in the same run: the difference is what the
// proxy adds (gate, audit queue, two more pipe hops). Reported as p50/p99
// per call.
func BenchmarkToolCall(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		srv := &fakeServer{tools: []string{echoTool, readTool}}
		inR, inW := osPipe(b)
		outR, outW := osPipe(b)
		srv.out = newLineWriter(outW)
		go srv.serve(inR)
		defer inW.Close()
		roundTrips(b, inW, bufio.NewReaderSize(outR, 1<<16))
	})
	b.Run("gated", func(b *testing.B) {
		r := newRelay(b, relayOpts{})
		r.listAll()
		roundTrips(b, r.toProx, r.from)
	})
}

func roundTrips(b *testing.B, w io.Writer, rd *bufio.Reader) {
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the benchmark"}}}`+"\n", i+1000)
		if _, err := rd.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkServerLine is the proxy's own work on one server answer (a
// 10 KB tools/call result): framing checks, validity, the id's key and
// its match, and the write, to a discarding client.
func BenchmarkServerLine(b *testing.B) {
	fp := newFuzzProxyB(b)
	text := strconvQuote(strings.Repeat("source line with some text ", 380))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := strconv.Itoa(i)
		fp.p.track(rawKey(id), id, "tools/call", gjson.Result{})
		line := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + text + `}],"isError":false}}` + "\n"
		if err := fp.p.fromServer(line); err != nil {
			b.Fatal(err)
		}
		fp.toClient.Reset()
	}
}

func BenchmarkIDKey(b *testing.B) {
	for _, id := range []string{`12345`, `"3f2a-77c1"`, `1e0`} {
		v := gjson.Parse(id)
		b.Run(id, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				idKey(v)
			}
		})
	}
}
