package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"
)

// remoteHome points the proxy at a throwaway home.
func remoteHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("AIRLOCK_HOME", filepath.Join(dir, ".airlock"))
	t.Chdir(dir)
	return filepath.Join(dir, ".airlock")
}

// TestRemoteDestinationJudged: the remote host is a destination like any
// URL the agent would fetch: a metadata address or a collector is refused
// before anything is dialled, and the refusal is recorded.
func TestRemoteDestinationJudged(t *testing.T) {
	home := remoteHome(t)
	for _, u := range []string{"http://169.254.169.254/mcp", "https://webhook.site/abc"} {
		var out, errb bytes.Buffer
		code := Main([]string{"--name", "evil", "--url", u}, strings.NewReader(""), &out, &errb)
		if code != exitConfig || !strings.Contains(errb.String(), "refused by the policy") {
			t.Errorf("%s: exit %d, %s", u, code, errb.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "net.cloud-metadata") || !strings.Contains(string(b), "net.exfil-collector") {
		t.Errorf("the refusals are not recorded:\n%s", b)
	}
}

func TestRemoteArgs(t *testing.T) {
	a, err := parseArgs([]string{"--name", "lin", "--url", "https://mcp.example.com/mcp", "--transport", "sse"})
	if err != nil || a.url != "https://mcp.example.com/mcp" || a.transport != "sse" || len(a.argv) != 0 {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range [][]string{
		{"--url", "https://x/mcp"},                              // no name
		{"--name", "x", "--url", "https://x/mcp", "--", "node"}, // both
		{"--name", "x", "--transport", "sse", "--", "node"},     // transport without url
		{"--name", "x", "--url"},                                // no value
	} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	h, err := envHeaders([]string{"AIRLOCK_MCP_HEADER_2=X-B: two", "PATH=/bin", "AIRLOCK_MCP_HEADER_1=Authorization: Bearer abc"})
	if err != nil || h.Get("Authorization") != "Bearer abc" || h.Get("X-B") != "two" {
		t.Fatalf("%v %v", h, err)
	}
	if _, err := envHeaders([]string{"AIRLOCK_MCP_HEADER_1=no colon"}); err == nil {
		t.Error("a header without a colon was accepted")
	}
	h, err = envHeaders([]string{"AIRLOCK_MCP_BEARER_ENV=GH_PAT", "GH_PAT=ghp_secret", "AIRLOCK_MCP_HEADER_ENV_1=X-Key: KEY", "KEY=k1"})
	if err != nil || h.Get("Authorization") != "Bearer ghp_secret" || h.Get("X-Key") != "k1" {
		t.Fatalf("from variables: %v %v", h, err)
	}
	if _, err := envHeaders([]string{"AIRLOCK_MCP_BEARER_ENV=GH_PAT"}); err == nil || !strings.Contains(err.Error(), "GH_PAT") {
		t.Errorf("an unset token variable: %v", err)
	}
}

// headerServer is mcp-go's streamable HTTP server with a tool whose
// argument travels in a header (x-mcp-header), recording what it was
// sent.
type headerServer struct {
	mu      sync.Mutex
	headers []http.Header
}

func newHeaderServer(t *testing.T) (*httptest.Server, *headerServer) {
	t.Helper()
	s := server.NewMCPServer("hdr", "1", server.WithToolCapabilities(false))
	tool := mcp.NewToolWithRawSchema("route", "routes by region", json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"text":{"type":"string"}},"required":["region"]}`))
	s.AddTool(tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("routed to " + req.GetString("region", "") + ": " + req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("read", mcp.WithString("path", mcp.Required(), mcp.Description("the file to read"))), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("read " + req.GetString("path", "")), nil
	})
	hs := &headerServer{}
	h := server.NewStreamableHTTPServer(s)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.mu.Lock()
		hs.headers = append(hs.headers, r.Header.Clone())
		hs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, hs
}

// stdioClient drives Main over pipes.
type stdioClient struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Reader
	code chan int
	errb *bytes.Buffer
}

func startBridge(t *testing.T, args []string) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{t: t, in: inW, out: bufio.NewReader(outR), code: make(chan int, 1), errb: &bytes.Buffer{}}
	go func() {
		c.code <- Main(args, inR, outW, c.errb)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *stdioClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message whose id is id, skipping notifications.
func (c *stdioClient) next(id string) gjson.Result {
	c.t.Helper()
	done := make(chan gjson.Result, 1)
	go func() {
		for {
			line, err := c.out.ReadString('\n')
			if err != nil {
				close(done)
				return
			}
			m := gjson.Parse(line)
			msgs := []gjson.Result{m}
			if m.IsArray() {
				msgs = m.Array()
			}
			for _, el := range msgs {
				if el.Get("id").Raw == id {
					done <- el
					return
				}
			}
		}
	}()
	select {
	case m, ok := <-done:
		if !ok {
			c.t.Fatalf("the bridge ended before answering %s: %s", id, c.errb.String())
		}
		return m
	case <-time.After(15 * time.Second):
		c.t.Fatalf("no answer to %s", id)
	}
	return gjson.Result{}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// TestRemoteHeadersWrittenFromTheDecidedMessage: under 2026-07-28 the
// bridge writes Mcp-Method, Mcp-Name and the tool's Mcp-Param-* headers
// from the forwarded body (mcp-go's server rejects a mismatch), ids come
// back in the client's spelling, a batch is split, and a secret read is
// refused before it reaches the server.
func TestRemoteHeadersWrittenFromTheDecidedMessage(t *testing.T) {
	remoteHome(t)
	srv, hs := newHeaderServer(t)
	// a config's header of the protocol's own names is not sent
	t.Setenv("AIRLOCK_MCP_HEADER_1", "Mcp-Name: not-what-the-body-says")
	t.Setenv("AIRLOCK_MCP_HEADER_2", "X-Team: blue")
	c := startBridge(t, []string{"--name", "hdr", "--url", srv.URL})
	c.send(`{"jsonrpc":"2.0","id":1e0,"method":"tools/list","params":{` + modernMeta + `}}`)
	if m := c.next("1e0"); len(m.Get("result.tools").Array()) != 2 {
		t.Fatalf("tools/list: %s", m.Raw)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu-west","text":"hi"},` + modernMeta + `}}`)
	if m := c.next("2"); m.Get("result.isError").Bool() || !strings.Contains(m.Get("result.content.0.text").String(), "routed to eu-west") {
		t.Fatalf("route: %s", m.Raw)
	}
	c.send(`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"route","arguments":{"region":"us"},` + modernMeta + `}},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"read","arguments":{"path":"~/.ssh/id_rsa"},` + modernMeta + `}}]`)
	if m := c.next(`"b"`); !strings.HasPrefix(m.Get("result.content.0.text").String(), "Airlock blocked this call") {
		t.Fatalf("batch element b, a secret read: %s", m.Raw)
	}
	if m := c.next(`"a"`); !strings.Contains(m.Get("result.content.0.text").String(), "routed to us") {
		t.Fatalf("batch element a: %s", m.Raw)
	}
	hs.mu.Lock()
	var sawParam, sawName bool
	for _, h := range hs.headers {
		if h.Get("Mcp-Param-Region") == "eu-west" && h.Get("Mcp-Method") == "tools/call" {
			sawParam = true
		}
		if h.Get("Mcp-Name") == "route" {
			sawName = true
		}
		if h.Get("X-Team") != "blue" || strings.Contains(strings.Join(h.Values("Mcp-Name"), ","), "not-what") {
			t.Errorf("static headers: %v", h)
		}
		if strings.Contains(h.Get("Mcp-Name"), "read") {
			t.Errorf("the refused call reached the server: %v", h)
		}
	}
	hs.mu.Unlock()
	if !sawParam || !sawName {
		t.Errorf("the standard headers were not written: %v", hs.headers)
	}
	c.in.Close()
	if code := <-c.code; code != 0 {
		t.Errorf("exit %d: %s", code, c.errb.String())
	}
}

func TestStartRecordLeavesCredentialsOut(t *testing.T) {
	got := describeArgv(redactArgv([]string{"npx", "mcp-remote", "https://x/mcp", "--header", "Authorization: Bearer sk-live-abc", "-H=X-Api-Key: k1", "--api-key", "k2", "TOKEN=k3", "--password=k4", "--port", "3000"}))
	for _, leak := range []string{"sk-live-abc", "k1", "k2", "k3", "k4"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q is in the record: %s", leak, got)
		}
	}
	for _, keep := range []string{"mcp-remote", "Authorization", "X-Api-Key", "--api-key", "TOKEN=", "3000"} {
		if !strings.Contains(got, keep) {
			t.Errorf("%q is missing: %s", keep, got)
		}
	}
}
