//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMCPRemoteRealServer puts airlock-mcp --url in front of the real npm
// server-everything run as a remote server, in its streamable HTTP mode
// and in its legacy SSE mode: every tool works through the bridge
// (listing, calls, the server's sampling, elicitation and roots requests
// relayed to the client and answered), a secret-path call is refused, and
// a server killed mid-call answers that call with an error; once it is
// back, the bridge re-initialises, admits the toolset again and calls
// pass.
func TestMCPRemoteRealServer(t *testing.T) {
	npmDir(t)
	for _, mode := range []struct {
		name, arg, path, transport string
	}{
		{"streamable-http", "streamableHttp", "/mcp", "streamable-http"},
		{"sse", "sse", "/sse", "sse"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			px := newProxyFixture(t)
			srv := startEverythingHTTP(t, mode.arg)
			url := fmt.Sprintf("http://127.0.0.1:%d%s", srv.port, mode.path)
			argv := []string{"env", "-C", px.WS, filepath.Join(bin, "airlock-mcp"), "--name", "everything", "--url", url, "--transport", mode.transport}

			t.Run("every tool", func(t *testing.T) {
				testEverythingEveryTool(t, px.env, argv)
			})

			t.Run("secret path refused", func(t *testing.T) {
				c := mcpClient(t, px.env, argv...)
				listAllTools(t, c)
				secret := "file://" + filepath.Join(px.Home, ".ssh", "id_rsa")
				res := callTool(t, c, "gzip-file-as-resource", map[string]any{"name": "k.gz", "data": secret, "outputType": "resource"})
				if !blockedText(res) || strings.Contains(textOf(res), "PRIVATE KEY") {
					t.Fatalf("a secret path through the bridge: %q", textOf(res))
				}
			})

			t.Run("stream cut mid-call", func(t *testing.T) {
				c := mcpClient(t, px.env, argv...)
				listAllTools(t, c)
				done := make(chan struct{})
				var text string
				var isErr bool
				go func() {
					defer close(done)
					res, err := tryCallTool(t, c, "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30})
					if err != nil {
						text, isErr = err.Error(), true
						return
					}
					text, isErr = textOf(res), res.IsError
				}()
				time.Sleep(1500 * time.Millisecond)
				srv.kill(t)
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("the call in flight was not answered after the server died")
				}
				if !isErr || !strings.Contains(text, "was not sent again") {
					t.Fatalf("the cut call: isError=%v %q", isErr, text)
				}
				srv.restart(t)
				res := callTool(t, c, "get-sum", map[string]any{"a": 2, "b": 40})
				if res.IsError || !strings.Contains(textOf(res), "42") {
					t.Fatalf("after the reconnect: %q", textOf(res))
				}
				recs := px.auditRecords(t)
				if !hasRecord(recs, "mcp_reconnect", "re-initialised") || !hasRecord(recs, "mcp_remote", "broke") {
					t.Errorf("the reconnect is not recorded: %v", recs)
				}
				admits := 0
				for _, r := range recs {
					if r.Event == "mcp_admit" && r.Decision == "allow" {
						admits++
					}
				}
				if admits < 2 {
					t.Errorf("the toolset was not admitted again after the reconnect (%d admissions)", admits)
				}
			})

			t.Run("destination recorded", func(t *testing.T) {
				recs := px.auditRecords(t)
				if !hasRecord(recs, "mcp_start", "remote "+url) {
					t.Errorf("mcp_start does not name the remote: %v", recs)
				}
			})
		})
	}
}

type auditRec struct {
	Event, Decision, Detail, Tool, Rule, Reason string
}

// auditRecords reads the fixture's audit log.
func (px proxyFixture) auditRecords(t testing.TB) []auditRec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(px.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []auditRec
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r auditRec
		if json.Unmarshal([]byte(l), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func hasRecord(recs []auditRec, event, detail string) bool {
	for _, r := range recs {
		if r.Event == event && strings.Contains(r.Detail, detail) {
			return true
		}
	}
	return false
}

// httpServer is server-everything listening on a local port.
type httpServer struct {
	mode string
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *syncBuffer
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP starts server-everything in mode (streamableHttp or
// sse) on a free port and waits until it listens.
func startEverythingHTTP(t testing.TB, mode string) *httpServer {
	t.Helper()
	s := &httpServer{mode: mode, port: freePort(t), logs: &syncBuffer{}}
	s.restart(t)
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cmd != nil && s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server-everything %s:\n%s", mode, s.logs.String())
		}
	})
	return s
}

func (s *httpServer) restart(t testing.TB) {
	t.Helper()
	cmd := exec.Command(nodeBin(t), npmScript(t, "@modelcontextprotocol/server-everything", "dist/index.js"), s.mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", s.port))
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %d: %v\n%s", s.mode, s.port, err, s.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *httpServer) kill(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	s.cmd = nil
}
