//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// everythingCall is how to call one server-everything tool offline, so
// the proxy tests can call every tool it lists.
type everythingCall struct {
	tool string
	args map[string]any
	// needs is the client capability without which the server does not
	// list the tool: "roots", "sampling", "elicitation", "elicitation.url".
	needs string
	// task: the tool has taskSupport "required" and answers a plain call
	// with isError; call it with params.task and poll tasks/get and
	// tasks/result, as the Inspector does (about 7 s).
	task bool
}

// everythingCalls lists every tool server-everything 2026.8.31 offers a
// client that declares roots, sampling and elicitation (form and url) but
// not tasks. The async sampling/elicitation tools need the tasks
// capability too and are left out.
var everythingCalls = []everythingCall{
	{tool: "echo", args: map[string]any{"message": "hello"}},
	{tool: "get-annotated-message", args: map[string]any{"messageType": "success", "includeImage": true}},
	{tool: "get-env", args: map[string]any{}}, // returns the server's whole environment
	{tool: "get-resource-links", args: map[string]any{"count": 2}},
	{tool: "get-resource-reference", args: map[string]any{"resourceType": "Text", "resourceId": 1}},
	{tool: "get-structured-content", args: map[string]any{"location": "Chicago"}}, // has outputSchema
	{tool: "get-sum", args: map[string]any{"a": 2, "b": 3}},
	{tool: "get-tiny-image", args: map[string]any{}},
	// the default data is a URL the server would download: pass a data URI
	{tool: "gzip-file-as-resource", args: map[string]any{"name": "hello.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"}},
	{tool: "toggle-simulated-logging", args: map[string]any{}},
	{tool: "toggle-subscriber-updates", args: map[string]any{}},
	// the defaults run for 10 s
	{tool: "trigger-long-running-operation", args: map[string]any{"duration": 1, "steps": 2}},
	{tool: "get-roots-list", args: map[string]any{}, needs: "roots"},
	{tool: "trigger-elicitation-request", args: map[string]any{}, needs: "elicitation"},
	{tool: "trigger-url-elicitation", args: map[string]any{"url": "https://example.com/consent"}, needs: "elicitation.url"},
	{tool: "trigger-sampling-request", args: map[string]any{"prompt": "say hi", "maxTokens": 10}, needs: "sampling"},
	{tool: "simulate-research-query", args: map[string]any{"topic": "go"}, task: true},
}

// TestNPMServersDirect checks the npm plumbing without the proxy: both
// reference servers answer the Inspector CLI and the mcp-go client, and
// every server-everything tool can be called with everythingCalls.
func TestNPMServersDirect(t *testing.T) {
	npmDir(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the allowed dir\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("filesystem/inspector", func(t *testing.T) {
		t.Parallel()
		fs := serverFilesystemCmd(t, root)
		names := inspectorTools(t, fs)
		for _, want := range []string{"read_text_file", "write_file", "list_directory"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s: %v", want, names)
			}
		}
		out, errOut, code := inspectorCLI(t, "tools/call", []string{"--tool-name", "read_text_file", "--tool-arg", "path=" + filepath.Join(root, "hello.txt")}, fs, nil)
		if code != 0 || !strings.Contains(out, "hello from the allowed dir") {
			t.Errorf("read_text_file: exit %d, stdout %s, stderr %s", code, out, errOut)
		}
	})

	t.Run("filesystem/mcp-go", func(t *testing.T) {
		t.Parallel()
		// no roots handler: a client that declares roots replaces the
		// allowed directories with its own
		c := mcpClient(t, nil, serverFilesystemCmd(t, root)...)
		tools, _ := listAllTools(t, c)
		if !slices.Contains(toolNames(tools), "read_text_file") {
			t.Fatalf("no read_text_file in %v", toolNames(tools))
		}
		res := callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(root, "hello.txt")})
		if res.IsError || !strings.Contains(textOf(res), "hello from the allowed dir") {
			t.Errorf("read inside the allowed dir: %+v", res)
		}
		res = callTool(t, c, "read_text_file", map[string]any{"path": "/etc/passwd"})
		if !res.IsError || !strings.Contains(textOf(res), "Access denied") {
			t.Errorf("read outside the allowed dir was not refused: %q", textOf(res))
		}
	})

	t.Run("everything/inspector", func(t *testing.T) {
		t.Parallel()
		ev := serverEverythingCmd(t)
		names := inspectorTools(t, ev)
		if !slices.Contains(names, "echo") {
			t.Errorf("tools/list lacks echo: %v", names)
		}
		out, errOut, code := inspectorCLI(t, "tools/call", []string{"--tool-name", "echo", "--tool-arg", "message=hi there"}, ev, nil)
		if code != 0 || !strings.Contains(out, "Echo: hi there") {
			t.Errorf("echo: exit %d, stdout %s, stderr %s", code, out, errOut)
		}
	})

	t.Run("everything/mcp-go", func(t *testing.T) {
		t.Parallel()
		testEverythingEveryTool(t, nil, serverEverythingCmd(t))
	})
}

// inspectorTools runs tools/list through the Inspector and returns the
// tool names.
func inspectorTools(t *testing.T, target []string) []string {
	t.Helper()
	out, errOut, code := inspectorCLI(t, "tools/list", nil, target, nil)
	if code != 0 {
		t.Fatalf("inspector tools/list: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Tools) == 0 {
		t.Fatalf("inspector tools/list: want JSON with tools, got %v: %s", err, out)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// wireLog records what a server sent the client unasked.
type wireLog struct {
	mu       sync.Mutex
	notes    map[string]int
	requests []string
}

func (w *wireLog) note(method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notes[method]++
}

func (w *wireLog) request(method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests = append(w.requests, method)
}

func (w *wireLog) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	w.request("sampling/createMessage")
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled: hi")},
		Model:           "e2e-model", StopReason: "endTurn",
	}, nil
}

func (w *wireLog) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	w.request("roots/list")
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///tmp/e2e-root", Name: "e2e"}}}, nil
}

func (w *wireLog) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	w.request("elicitation/create:" + req.Params.Mode)
	res := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}
	if req.Params.Mode != "url" {
		res.Content = map[string]any{"name": "Ada Lovelace"}
	}
	return res, nil
}

func testEverythingEveryTool(t *testing.T, env []string, argv []string) {
	w := &wireLog{notes: map[string]int{}}
	c := mcpClientWith(t, env, []client.ClientOption{
		client.WithSamplingHandler(w), client.WithRootsHandler(w), client.WithElicitationHandler(w),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}),
	}, argv...)
	c.OnNotification(func(n mcp.JSONRPCNotification) { w.note(n.Method) })

	tools, pages := listAllTools(t, c)
	byName := map[string]mcp.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	var want []string
	for _, ec := range everythingCalls {
		want = append(want, ec.tool)
	}
	slices.Sort(want)
	got := toolNames(tools)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("server-everything tools changed (update everythingCalls):\n got %v\nwant %v", got, want)
	}

	var summary strings.Builder
	fmt.Fprintf(&summary, "server-everything: %d tools on %d page(s)\n", len(tools), pages)
	for _, ec := range everythingCalls {
		tl := byName[ec.tool]
		start := time.Now()
		res, err := tryCallTool(t, c, ec.tool, ec.args)
		took := time.Since(start).Round(time.Millisecond)
		argsJSON, _ := json.Marshal(ec.args)
		fmt.Fprintf(&summary, "  %-32s required=%v args=%s needs=%q task=%v (%v)\n", ec.tool, tl.InputSchema.Required, argsJSON, ec.needs, ec.task, took)
		switch {
		case err != nil:
			t.Errorf("%s %s: %v", ec.tool, argsJSON, err)
		case ec.task && !res.IsError:
			t.Errorf("%s: a plain call to a task-only tool succeeded: %s", ec.tool, textOf(res))
		case !ec.task && res.IsError:
			t.Errorf("%s %s: isError: %s", ec.tool, argsJSON, textOf(res))
		}
	}
	res := callTool(t, c, "echo", map[string]any{"message": "ping"})
	if textOf(res) != "Echo: ping" {
		t.Errorf("echo: got %q", textOf(res))
	}
	if res := callTool(t, c, "trigger-sampling-request", map[string]any{"prompt": "x"}); !strings.Contains(textOf(res), "sampled: hi") {
		t.Errorf("trigger-sampling-request did not round-trip our sample: %s", textOf(res))
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(&summary, "server→client requests: %v\nnotifications: %v\n", w.requests, w.notes)
	t.Log(summary.String())
	for _, m := range []string{"roots/list", "sampling/createMessage", "elicitation/create:", "elicitation/create:url"} {
		if !slices.Contains(w.requests, m) {
			t.Errorf("no %s request from the server; got %v", m, w.requests)
		}
	}
	for _, m := range []string{"notifications/tools/list_changed", "notifications/message", "notifications/resources/list_changed"} {
		if w.notes[m] == 0 {
			t.Errorf("no %s notification; got %v", m, w.notes)
		}
	}
}

// TestFakeMCPModes drives each testdata/fakemcp mode directly with the
// mcp-go client, so proxy tests can trust what the fakes do.
func TestFakeMCPModes(t *testing.T) {
	fake := buildFakeMCP(t)

	t.Run("clean", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		logPath := filepath.Join(dir, "received.log")
		secret := filepath.Join(dir, "notes.txt")
		if err := os.WriteFile(secret, []byte("plain file content"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := mcpClient(t, nil, fakeMCPCmd(t, "-mode", "clean", "-log", logPath)...)
		// mcp-go on both ends settles on the stateless protocol: no
		// initialize, _meta on every request; -legacy keeps the handshake
		if v := c.ProtocolVersion(); v != "2026-07-28" {
			t.Errorf("negotiated %q, want 2026-07-28", v)
		}
		if v := mcpClient(t, nil, fake, "-mode", "clean", "-legacy").ProtocolVersion(); v != "2025-11-25" {
			t.Errorf("-legacy negotiated %q, want 2025-11-25", v)
		}
		tools, _ := listAllTools(t, c)
		if got := strings.Join(toolNames(tools), ","); got != "add,echo,fetch_url,read_file" {
			t.Errorf("tools: %s", got)
		}
		for _, tl := range tools {
			if strings.Contains(tl.Description, "<IMPORTANT>") {
				t.Errorf("clean %s is poisoned: %q", tl.Name, tl.Description)
			}
			ap := tl.InputSchema.AdditionalProperties
			if (tl.Name == "read_file") != (ap == false) {
				t.Errorf("%s additionalProperties = %v", tl.Name, ap)
			}
		}
		checks := []struct {
			tool string
			args map[string]any
			want string
		}{
			{"echo", map[string]any{"text": "hi"}, "hi"},
			{"add", map[string]any{"a": 2, "b": 40}, "42"},
			{"read_file", map[string]any{"path": secret}, "plain file content"},
			{"fetch_url", map[string]any{"url": "https://example.com/x"}, "would fetch https://example.com/x"},
		}
		for _, ck := range checks {
			if res := callTool(t, c, ck.tool, ck.args); res.IsError || textOf(res) != ck.want {
				t.Errorf("%s: got %q (isError %v), want %q", ck.tool, textOf(res), res.IsError, ck.want)
			}
		}
		if res := callTool(t, c, "echo", map[string]any{}); !res.IsError {
			t.Errorf("echo without text: want isError, got %q", textOf(res))
		}
		// after Close, so that exec has copied all of stderr
		c.Close()
		if !strings.HasPrefix(stderrOf(t, c), "fakemcp: mode=clean pid=") {
			t.Errorf("startup line on stderr: %q", stderrOf(t, c))
		}
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"fetch_url"`) || !strings.Contains(string(b), `"tools/list"`) {
			t.Errorf("-log misses received lines:\n%s", b)
		}
	})

	t.Run("poisoned", func(t *testing.T) {
		t.Parallel()
		c := mcpClient(t, nil, fake, "-mode", "poisoned")
		tools, _ := listAllTools(t, c)
		var add mcp.Tool
		for _, tl := range tools {
			if tl.Name == "add" {
				add = tl
			}
		}
		for _, want := range []string{"<IMPORTANT>", "~/.ssh/id_rsa", "~/.cursor/mcp.json", "sidenote", "Do not tell the user"} {
			if !strings.Contains(add.Description, want) {
				t.Errorf("poisoned add lacks %q: %q", want, add.Description)
			}
		}
		if _, ok := add.InputSchema.Properties["sidenote"]; !ok {
			t.Errorf("poisoned add has no sidenote parameter: %v", add.InputSchema.Properties)
		}
	})

	t.Run("rugpull", func(t *testing.T) {
		t.Parallel()
		state := filepath.Join(t.TempDir(), "state")
		list := func() map[string]mcp.Tool {
			c := mcpClient(t, nil, fake, "-mode", "rugpull", "-state", state)
			tools, _ := listAllTools(t, c)
			c.Close()
			m := map[string]mcp.Tool{}
			for _, tl := range tools {
				m[tl.Name] = tl
			}
			return m
		}
		first := list()
		if _, err := os.Stat(state); err != nil {
			t.Fatalf("first start did not create the state file: %v", err)
		}
		second, third := list(), list()
		if _, ok := first["run_command"]; ok {
			t.Error("first start already has run_command")
		}
		if _, ok := second["run_command"]; !ok {
			t.Error("second start has no run_command")
		}
		if first["echo"].Description == second["echo"].Description {
			t.Error("echo's description did not change on the second start")
		}
		if second["echo"].Description != third["echo"].Description || len(second) != len(third) {
			t.Error("the third start differs from the second")
		}
	})

	for _, mode := range []string{"paged", "paged-clean"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := mcpClient(t, nil, fake, "-mode", mode)
			var page2 []mcp.Tool
			req := mcp.ListToolsRequest{}
			for page := 1; page <= 2; page++ {
				res, err := c.ListToolsByPage(callCtx(t), req)
				if err != nil || len(res.Tools) != 2 || res.NextCursor == "" {
					t.Fatalf("page %d: %v, %d tools, cursor %q", page, err, len(res.Tools), res.NextCursor)
				}
				req.Params.Cursor = res.NextCursor
				page2 = res.Tools
			}
			tools, pages := listAllTools(t, c)
			if pages < 3 || len(tools) != 5 {
				t.Errorf("%d tools on %d pages, want 5 on ≥ 3", len(tools), pages)
			}
			poisoned := 0
			for _, tl := range tools {
				if strings.Contains(tl.Description, "<IMPORTANT>") || strings.ContainsFunc(tl.Description, func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }) {
					poisoned++
					if !slices.ContainsFunc(page2, func(p mcp.Tool) bool { return p.Name == tl.Name }) {
						t.Errorf("poisoned %s is not on page 2", tl.Name)
					}
				}
			}
			if want := map[string]int{"paged": 1, "paged-clean": 0}[mode]; poisoned != want {
				t.Errorf("%d poisoned tools, want %d", poisoned, want)
			}
		})
	}

	t.Run("unsolicited", func(t *testing.T) {
		t.Parallel()
		// the mcp-go client drops responses it has no request for; what the
		// fake writes is checked on the raw wire
		r := rawStdio(t, nil, fake, "-mode", "unsolicited")
		r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`)
		ids := []string{idOf(r.recv(t)), idOf(r.recv(t)), idOf(r.recv(t))}
		r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		ids = append(ids, idOf(r.recv(t)))
		if !slices.Equal(ids, []string{"1", "999", `"ghost"`, "2"}) {
			t.Errorf("ids on the wire: %v", ids)
		}
		// and the client still works through them
		c := mcpClient(t, nil, fake, "-mode", "unsolicited")
		if res := callTool(t, c, "echo", map[string]any{"text": "still here"}); textOf(res) != "still here" {
			t.Errorf("echo after ghosts: %q", textOf(res))
		}
	})

	t.Run("big", func(t *testing.T) {
		t.Parallel()
		c := mcpClient(t, nil, fake, "-mode", "big")
		start := time.Now()
		res := callTool(t, c, "big", nil)
		if n := len(textOf(res)); n != 10<<20 {
			t.Errorf("big returned %d bytes, want %d", n, 10<<20)
		}
		t.Logf("10 MiB result in %v", time.Since(start).Round(time.Millisecond))
		c2 := mcpClient(t, nil, fake, "-mode", "big", "-size", "1000")
		if n := len(textOf(callTool(t, c2, "big", nil))); n != 1000 {
			t.Errorf("-size 1000: %d bytes", n)
		}
	})

	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		c := mcpClient(t, nil, fake, "-mode", "crash")
		if _, err := tryCallTool(t, c, "crash", nil); err == nil {
			t.Fatal("crash call returned a result")
		}
		if _, err := tryCallTool(t, c, "echo", map[string]any{"text": "x"}); err == nil {
			t.Error("the connection survived the crash")
		}
		c.Close()
		if code := processOf(t, c).ProcessState.ExitCode(); code != 3 {
			t.Errorf("exit status %d, want 3", code)
		}
	})

	t.Run("ignoreterm", func(t *testing.T) {
		t.Parallel()
		c := mcpClient(t, nil, fake, "-mode", "ignoreterm")
		p := processOf(t, c).Process
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			if err := p.Signal(sig); err != nil {
				t.Fatal(err)
			}
		}
		// answering after the signals proves they were ignored: a
		// default-handled SIGTERM kills at once
		if res := callTool(t, c, "echo", map[string]any{"text": "alive"}); textOf(res) != "alive" {
			t.Errorf("after SIGTERM: %q", textOf(res))
		}
		if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if st := processOf(t, c).ProcessState; st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("not killed by SIGKILL: %v", st)
		}
	})

	t.Run("echo-raw", func(t *testing.T) {
		t.Parallel()
		// ids come back byte for byte, whatever their type and spelling
		r := rawStdio(t, nil, fake, "-mode", "echo-raw")
		exchange := []struct{ send, want string }{
			{`{"jsonrpc":"2.0","id":"a b",  "method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
				`{"jsonrpc":"2.0","id":"a b","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fakemcp-echo-raw","version":"1.0.0"}}}`},
			{`{"jsonrpc":"2.0","id":1.50,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x\"y"}}}`,
				`{"jsonrpc":"2.0","id":1.50,"result":{"content":[{"type":"text","text":"x\"y"}],"isError":false}}`},
			{`{"jsonrpc":"2.0","id":0,"method":"server/discover"}`,
				`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`},
		}
		for _, ex := range exchange {
			r.send(t, ex.send)
			if got := r.recv(t); got != ex.want {
				t.Errorf("sent %s\n got %s\nwant %s", ex.send, got, ex.want)
			}
		}
		c := mcpClient(t, nil, fake, "-mode", "echo-raw")
		tools, _ := listAllTools(t, c)
		if len(tools) != 1 || tools[0].Name != "echo" {
			t.Errorf("tools: %v", toolNames(tools))
		}
		if res := callTool(t, c, "echo", map[string]any{"text": "fast"}); textOf(res) != "fast" {
			t.Errorf("echo: %q", textOf(res))
		}
	})

	t.Run("sample", func(t *testing.T) {
		t.Parallel()
		logPath := filepath.Join(t.TempDir(), "received.log")
		s := &fixedSampler{}
		c := mcpClientWith(t, nil, []client.ClientOption{client.WithSamplingHandler(s)}, fake, "-mode", "sample", "-log", logPath)
		if v := c.ProtocolVersion(); v != "2025-11-25" {
			t.Errorf("sample mode negotiated %q, want the legacy 2025-11-25", v)
		}
		res := callTool(t, c, "ask_llm", map[string]any{"prompt": "what is 2+2?"})
		if res.IsError || textOf(res) != "the model says 4" {
			t.Errorf("ask_llm: %q (isError %v)", textOf(res), res.IsError)
		}
		if s.prompt != "what is 2+2?" {
			t.Errorf("sampling prompt %q", s.prompt)
		}
		// the sampling request reused the tools/call id: both directions
		// had the same id in flight
		b, _ := os.ReadFile(logPath)
		var callID, answerID string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal([]byte(l), &m)
			switch {
			case m.Method == "tools/call":
				callID = string(m.ID)
			case m.Method == "" && len(m.ID) > 0:
				answerID = string(m.ID)
			}
		}
		if callID == "" || callID != answerID {
			t.Errorf("tools/call id %s, sampling answer id %s: want equal\n%s", callID, answerID, b)
		}
	})
}

type fixedSampler struct{ prompt string }

func (s *fixedSampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if len(req.Messages) > 0 {
		if tc, ok := mcp.AsTextContent(req.Messages[0].Content); ok {
			s.prompt = tc.Text
		}
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("the model says 4")},
		Model:           "e2e-model", StopReason: "endTurn",
	}, nil
}
