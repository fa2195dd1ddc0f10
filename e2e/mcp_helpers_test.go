//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Helpers for driving MCP servers end to end: the fake servers in
// testdata/fakemcp, the pinned npm servers and the MCP Inspector CLI that
// .ci/npm-deps installs, and an mcp-go client. A missing dependency fails
// the test: a proxy test that skips looks exactly like one that passed.

// callTimeout bounds every MCP request a test makes, so a proxy that
// swallows a message fails the test instead of hanging it.
const callTimeout = 20 * time.Second

// npmPins are the packages .ci/npm-deps installs, at the versions it pins.
var npmPins = map[string]string{
	"@modelcontextprotocol/server-filesystem": "2026.8.31",
	"@modelcontextprotocol/server-everything": "2026.8.31",
	"@modelcontextprotocol/inspector":         "2.12.0",
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

var fakeMCP struct {
	once sync.Once
	path string
	err  error
}

// buildFakeMCP builds testdata/fakemcp once per test binary and returns
// its path. ./... skips testdata, so nothing else builds it. It lands in a
// directory of its own under TestMain's bin dir, which TestMain removes.
func buildFakeMCP(t testing.TB) string {
	t.Helper()
	fakeMCP.once.Do(func() {
		dir, err := os.MkdirTemp(bin, "fakemcp-")
		if err != nil {
			fakeMCP.err = err
			return
		}
		out := filepath.Join(dir, "fakemcp")
		build := exec.Command("go", "build", "-trimpath", "-o", out, "./testdata/fakemcp")
		build.Dir = repoRoot()
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			fakeMCP.err = errors.New("go build ./testdata/fakemcp: " + err.Error() + "\n" + string(b))
			return
		}
		fakeMCP.path = out
	})
	if fakeMCP.err != nil {
		t.Fatal(fakeMCP.err)
	}
	return fakeMCP.path
}

// fakeMCPCmd is the argv of a fake server: fakeMCPCmd(t, "-mode", "clean").
func fakeMCPCmd(t testing.TB, flags ...string) []string {
	return append([]string{buildFakeMCP(t)}, flags...)
}

// npmDir is the repository's .cache/npm with every pinned package in place.
func npmDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(), ".cache", "npm")
	for name, want := range npmPins {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		if err != nil {
			t.Fatalf("%s is not installed (%v): run .ci/npm-deps", name, err)
		}
		var pkg struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != want {
			t.Fatalf("%s is at %q, want %s: run .ci/npm-deps", name, pkg.Version, want)
		}
	}
	return dir
}

// nodeBin is node's absolute path, so the commands below work under a test
// environment whose PATH lacks it.
func nodeBin(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): install Node.js 20+ and run .ci/npm-deps", err)
	}
	return node
}

func npmScript(t testing.TB, pkg, script string) string {
	return filepath.Join(npmDir(t), "node_modules", pkg, script)
}

// serverFilesystemCmd starts the reference filesystem server on stdio,
// confined to allowedDir.
func serverFilesystemCmd(t testing.TB, allowedDir string) []string {
	return []string{nodeBin(t), npmScript(t, "@modelcontextprotocol/server-filesystem", "dist/index.js"), allowedDir}
}

// serverEverythingCmd starts the reference "everything" server on stdio.
func serverEverythingCmd(t testing.TB) []string {
	return []string{nodeBin(t), npmScript(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}
}

// inspectorInherits is what the Inspector's stdio transport (TS SDK
// getDefaultEnvironment) passes to the server it starts; anything else
// must be handed over with -e.
var inspectorInherits = map[string]bool{"HOME": true, "LOGNAME": true, "PATH": true, "SHELL": true, "TERM": true, "USER": true}

// inspectorCLI runs the real MCP Inspector CLI once:
//
//	inspector --cli --method METHOD EXTRA... -- TARGET...
//
// All Inspector options must come before the "--" or it swallows the
// target's own flags. env (nil: this process's) is the Inspector's
// environment; the target gets HOME, LOGNAME, PATH, SHELL, TERM and USER
// from it, and every other entry of a non-nil env through -e, so the
// target sees the env the test meant. exit is the Inspector's status: 0
// ok, 1 JSON-RPC error or closed connection, 4 connect timeout, 5 tool
// not found or isError result.
func inspectorCLI(t testing.TB, method string, extra, target, env []string) (stdout, stderr string, exit int) {
	t.Helper()
	launcher := npmScript(t, "@modelcontextprotocol/inspector", "clients/launcher/build/index.js")
	args := []string{launcher, "--cli", "--method", method}
	args = append(args, extra...)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && !inspectorInherits[k] {
			args = append(args, "-e", kv)
		}
	}
	args = append(args, "--")
	args = append(args, target...)
	if env == nil {
		env = os.Environ()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin(t), args...)
	cmd.Env = append(env[:len(env):len(env)], "MCP_INSPECTOR_SECRET_STORE=memory")
	// the target is the Inspector's child: on timeout kill them together
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("inspector %s -- %v: timed out\nstdout: %s\nstderr: %s", method, target, out.String(), errb.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	default:
		t.Fatalf("inspector %s: %v", method, err)
	}
	return out.String(), errb.String(), exit
}

// syncBuffer is a bytes.Buffer safe for the exec copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// spawned is the process behind an mcpClient.
type spawned struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
}

var clientProcs sync.Map // *client.Client → *spawned

// mcpClient starts argv as an MCP stdio server, connects an mcp-go client
// with its default negotiation (server/discover first, initialize when the
// server refuses it) and closes it when the test ends. env nil means this
// process's environment; otherwise it is the whole environment.
func mcpClient(t testing.TB, env []string, argv ...string) *client.Client {
	t.Helper()
	return mcpClientWith(t, env, nil, argv...)
}

// mcpClientWith is mcpClient with client options, such as
// client.WithSamplingHandler or client.WithProtocolVersion("2025-11-25")
// to stay on the initialize handshake.
func mcpClientWith(t testing.TB, env []string, opts []client.ClientOption, argv ...string) *client.Client {
	t.Helper()
	if len(argv) == 0 {
		t.Fatal("mcpClient: no command")
	}
	p := &spawned{stderr: &syncBuffer{}}
	tr := transport.NewStdioWithOptions(argv[0], nil, argv[1:],
		transport.WithCommandFunc(func(_ context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			// not CommandContext: the process must outlive Start's context
			cmd := exec.Command(command, args...)
			cmd.Env = env
			if env == nil {
				cmd.Env = os.Environ()
			}
			cmd.Stderr = p.stderr
			// a child that leaves a grandchild holding stderr must not
			// hang Close
			cmd.WaitDelay = 3 * time.Second
			p.cmd = cmd
			return cmd, nil
		}))
	c := client.NewClient(tr, opts...)
	// the transport keeps Start's context for the server→client requests
	// it answers (sampling, roots, elicitation): it must outlive this call
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	clientProcs.Store(c, p)
	t.Cleanup(func() {
		c.Close()
		clientProcs.Delete(c)
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", argv, p.stderr.String())
		}
	})
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "airlock-e2e", Version: "0"}
	if _, err := c.Initialize(callCtx(t), req); err != nil {
		t.Fatalf("initialize %v: %v\nstderr: %s", argv, err, p.stderr.String())
	}
	return c
}

func procOf(t testing.TB, c *client.Client) *spawned {
	t.Helper()
	p, ok := clientProcs.Load(c)
	if !ok {
		t.Fatal("not a client from mcpClient")
	}
	return p.(*spawned)
}

// stderrOf is what the process behind c has written to stderr so far;
// after c.Close() it is all of it (exec copies stderr asynchronously).
func stderrOf(t testing.TB, c *client.Client) string {
	return procOf(t, c).stderr.String()
}

// processOf is the process behind c, for signals and exit status.
func processOf(t testing.TB, c *client.Client) *exec.Cmd {
	return procOf(t, c).cmd
}

// callCtx is a context for one MCP request, ended by callTimeout.
func callCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// listAllTools follows nextCursor to the end and returns every tool and
// the number of pages.
func listAllTools(t testing.TB, c *client.Client) ([]mcp.Tool, int) {
	t.Helper()
	var tools []mcp.Tool
	var cursor mcp.Cursor
	for pages := 1; ; pages++ {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListToolsByPage(callCtx(t), req)
		if err != nil {
			t.Fatalf("tools/list page %d: %v", pages, err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools, pages
		}
		if pages > 100 {
			t.Fatal("tools/list: more than 100 pages")
		}
		cursor = res.NextCursor
	}
}

// callTool calls a tool and fails the test on a protocol error; a tool
// error (isError) is returned for the caller to judge.
func callTool(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := tryCallTool(t, c, name, args)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

func tryCallTool(t testing.TB, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(callCtx(t), req)
}

// textOf joins the text blocks of a tool result.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func toolNames(tools []mcp.Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

// rawConn is a stdio MCP peer driven line by line, for what an SDK client
// hides: exact bytes, ids it never sent, ordering.
type rawConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *syncBuffer
}

// rawStdio starts argv with env (nil: this process's) and reads its
// stdout line by line. It is stopped when the test ends.
func rawStdio(t testing.TB, env []string, argv ...string) *rawConn {
	t.Helper()
	r := &rawConn{cmd: exec.Command(argv[0], argv[1:]...), lines: make(chan string, 64), stderr: &syncBuffer{}}
	r.cmd.Env = env
	if env == nil {
		r.cmd.Env = os.Environ()
	}
	r.cmd.Stderr = r.stderr
	r.cmd.WaitDelay = 3 * time.Second
	var err error
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	go func() {
		defer close(r.lines)
		br := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				r.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		r.stdin.Close()
		done := make(chan struct{})
		go func() { r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			r.cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", argv, r.stderr.String())
		}
	})
	return r
}

func (r *rawConn) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

// recv is the next line from the peer; it fails the test on EOF or after
// callTimeout.
func (r *rawConn) recv(t testing.TB) string {
	t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			t.Fatalf("stdout closed; stderr: %s", r.stderr.String())
		}
		return line
	case <-time.After(callTimeout):
		t.Fatalf("no line within %v; stderr: %s", callTimeout, r.stderr.String())
	}
	return ""
}

// idOf is the raw id of a JSON-RPC line, "" when it has none.
func idOf(line string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal([]byte(line), &m) != nil {
		return ""
	}
	return string(m.ID)
}
