package mcpproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/mcpproxy/remote"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkRemoteToolCall measures one tools/call to a remote server on
// loopback (mcp-go's streamable HTTP server), as a direct HTTP round trip
// and through airlock-mcp --url's relay and bridge (in this process): the
// difference is what the bridge adds (the gate, the audit queue, two pipe
// hops, the bridge's own request). Reported as p50/p99 per call.
func BenchmarkRemoteToolCall(b *testing.B) {
	s := server.NewMCPServer("bench", "1")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Description("what to say back"))), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer srv.Close()
	const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	call := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the benchmark"}}}`, i+1000)
	}

	b.Run("direct", func(b *testing.B) {
		client := &http.Client{}
		post := func(body, session string) (*http.Response, error) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			}
			return client.Do(req)
		}
		resp, err := post(initMsg, "")
		if err != nil {
			b.Fatal(err)
		}
		session := resp.Header.Get("Mcp-Session-Id")
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			resp, err := post(call(i), session)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})

	b.Run("bridged", func(b *testing.B) {
		root := b.TempDir()
		home, ws := filepath.Join(root, "airlock"), filepath.Join(root, "ws")
		if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
			b.Fatal(err)
		}
		env := airlockhome.Env{Home: filepath.Join(root, "home"), User: "dev", Tmp: filepath.Join(root, "tmp"), AirlockHome: home, Getenv: func(string) string { return "" }}
		pol, err := policy.LoadProfile("default", policy.Vars{Workspace: ws, Home: env.Home, Tmp: env.Tmp, User: "dev", AirlockHome: home})
		if err != nil {
			b.Fatal(err)
		}
		log, err := audit.Open(home)
		if err != nil {
			b.Fatal(err)
		}
		conn, err := remote.New(remote.Options{Name: "bench", URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		clientR, clientW := osPipe(b)
		outR, outW := osPipe(b)
		o := Options{Name: "bench", Dir: ws, Stdout: outW, Stderr: io.Discard, Gate: &gate.Gate{Policy: pol, Env: env}, Log: log,
			Pins: pins.Open(home), ListWait: 2 * time.Second, Upstream: conn, URL: srv.URL}
		o.defaults()
		p := newProxy(o)
		p.toServer = newLineWriter(conn.ToServer())
		conn.Start()
		go p.clientLoop(clientR)
		go p.serverLoop(conn.FromServer())
		defer func() {
			clientW.Close()
			conn.Close()
			p.adm.close()
			p.log.close()
			log.Close()
		}()
		rd := bufio.NewReaderSize(outR, 1<<16)
		for _, m := range []string{initMsg, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`} {
			fmt.Fprintln(clientW, m)
			if !strings.Contains(m, `"id"`) {
				continue
			}
			if _, err := rd.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			fmt.Fprintln(clientW, call(i))
			line, err := rd.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 && !strings.Contains(line, "hello from the benchmark") {
				b.Fatalf("the call: %s", line)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}
