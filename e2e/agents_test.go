//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real agents, from the npm registry, as offline MCP clients of the
// servers airlock init wrapped: Claude Code and Gemini CLI list them
// (connecting to each), Codex's app-server also calls a tool. None needs
// an API key or a login. Both listing commands exit 0 when a server
// fails, so the test reads their output, not their status.

// agentPins are the agent CLIs .ci/npm-deps installs, at the versions it
// pins, and the command each puts in node_modules/.bin.
var agentPins = map[string]struct{ version, cmd string }{
	"@anthropic-ai/claude-code": {"2.1.121", "claude"},
	"@google/gemini-cli":        {"0.61.0", "gemini"},
	"@openai/codex":             {"0.171.0", "codex"},
	"@github/copilot":           {"1.0.102", "copilot"},
}

// agentTimeout bounds one agent command; each takes a few seconds.
const agentTimeout = 60 * time.Second

// agentCLI is the path of an agent's command under .cache/npm, failing
// the test (never skipping it) when the pinned version is not there.
func agentCLI(t testing.TB, pkg string) string {
	t.Helper()
	pin, ok := agentPins[pkg]
	if !ok {
		t.Fatalf("%s is not in agentPins", pkg)
	}
	dir := npmDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		t.Fatalf("%s is not installed (%v): run .ci/npm-deps", pkg, err)
	}
	var pj struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pj); err != nil || pj.Version != pin.version {
		t.Fatalf("%s is at %q, want %s: run .ci/npm-deps", pkg, pj.Version, pin.version)
	}
	p := filepath.Join(dir, "node_modules", ".bin", pin.cmd)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v: run .ci/npm-deps", pkg, err)
	}
	return p
}

// agentHome is a throwaway user: HOME, a project directory to run the
// agents in, and $AIRLOCK_HOME at its default place, ~/.airlock.
type agentHome struct {
	home, proj, airlockHome string
	// env is the whole environment of every command: no API key, no
	// AIRLOCK_* but AIRLOCK_HOME, and a PATH with node (the agents are
	// node scripts) and the built binaries.
	env []string
}

func newAgentHome(t *testing.T) agentHome {
	t.Helper()
	// resolved, so the paths the test expects are the ones the tools
	// print (macOS's temp dir is behind a symlink)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := agentHome{home: filepath.Join(root, "home"), proj: filepath.Join(root, "home", "proj")}
	h.airlockHome = filepath.Join(h.home, ".airlock")
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{filepath.Dir(nodeBin(t)), bin, "/usr/local/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator))
	h.env = []string{"PATH=" + path, "HOME=" + h.home, "AIRLOCK_HOME=" + h.airlockHome, "TERM=dumb", "LANG=C.UTF-8"}
	return h
}

func (h agentHome) write(t *testing.T, rel string, body []byte) string {
	t.Helper()
	p := filepath.Join(h.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runIn runs argv in dir with env and stdin at /dev/null, and returns its
// output once it and everything it started have exited: a client that
// leaves a proxy behind fails the test, and the audit log is complete
// when the caller reads it.
func runIn(t *testing.T, dir string, env []string, argv ...string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("%v: no exit within %v\nstdout:\n%s\nstderr:\n%s", argv, agentTimeout, out.String(), errb.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%v: %v", argv, err)
	}
	waitGroupGone(t, cmd.Process.Pid, argv[0])
	return out.String(), errb.String(), code, took
}

// waitGroupGone waits until every process in group pgid has exited.
func waitGroupGone(t *testing.T, pgid int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Errorf("%s left processes running 10 s after it exited (killed)", what)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// groupAlive: a process in group pgid is still running. A zombie is not:
// an agent that exits without reaping its servers leaves them to init,
// and a container's init may never reap them. Without /proc a zombie
// counts as running.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp …", where comm may hold ") "
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// auditRecord is what the test reads of one audit.jsonl line.
type auditRecord struct {
	Event, Detail, Session, Source, Tool, Decision string
	Effective, Asked, Agent, Reason                string
	AgentTool                                      string `json:"agent_tool"`
}

func readAudit(t testing.TB, airlockHome string) []auditRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(airlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []auditRecord
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r auditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// checkStarted checks that airlock-mcp recorded starting each server, as
// NAME, with the command init moved behind its "--": the proof that the
// agent's connection came through the proxy.
func checkStarted(t *testing.T, recs []auditRecord, servers []wrappedServer) {
	t.Helper()
	for _, s := range servers {
		want := fmt.Sprintf("server %q: %q", s.name, s.inner[0])
		n := 0
		for _, r := range recs {
			if r.Event == "mcp_start" && r.Source == "mcp" && strings.HasPrefix(r.Detail, want) && strings.HasPrefix(r.Session, "mcp-"+s.name+"-") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no mcp_start record from airlock-mcp for %s (want detail %s…)", s.name, want)
		}
	}
}

// wrappedServer is one stdio server in an agent's config: its name and
// the command line init puts behind airlock-mcp.
type wrappedServer struct {
	name  string
	inner []string
}

// listed is the command line an agent prints for a wrapped server.
func (s wrappedServer) listed() string {
	return strings.Join(append([]string{filepath.Join(bin, "airlock-mcp"), "--name", s.name, "--"}, s.inner...), " ")
}

func mcpServersJSON(t *testing.T, servers []wrappedServer, claude bool) []byte {
	t.Helper()
	m := map[string]any{}
	for _, s := range servers {
		e := map[string]any{"command": s.inner[0], "args": s.inner[1:]}
		if claude {
			e["type"] = "stdio"
		}
		m[s.name] = e
	}
	b, err := json.MarshalIndent(map[string]any{"mcpServers": m}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// checkListing checks that an agent's listing has, for each server, one
// of the lines line gives, and no line saying a server is not connected.
func checkListing(t *testing.T, agent, out string, servers []wrappedServer, line func(wrappedServer) []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, s := range servers {
		want := line(s)
		if !slices.ContainsFunc(lines, func(l string) bool { return slices.Contains(want, strings.TrimRight(l, " \r")) }) {
			t.Errorf("%s mcp list: no line %q for %s; got:\n%s", agent, want[0], s.name, out)
		}
	}
	for _, bad := range []string{"Failed", "Disconnected", "Pending", "Disabled", "untrusted"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s mcp list says %q:\n%s", agent, bad, out)
		}
	}
}

// TestAgentsRealClients runs the built airlock init in a throwaway home
// holding Claude Code, Gemini CLI and Codex configs, then has each real
// agent connect to every server it wrapped, and finally uninstalls.
func TestAgentsRealClients(t *testing.T) {
	claude := agentCLI(t, "@anthropic-ai/claude-code")
	gemini := agentCLI(t, "@google/gemini-cli")
	codex := agentCLI(t, "@openai/codex")
	h := newAgentHome(t)
	fake := fakeMCPCmd(t, "-mode", "clean")
	files := serverFilesystemCmd(t, h.proj)
	srv := func(name string, argv []string) wrappedServer { return wrappedServer{name, argv} }
	claudeServers := []wrappedServer{srv("claude-fake", fake), srv("claude-files", files)}
	geminiServers := []wrappedServer{srv("gemini-fake", fake), srv("gemini-files", files)}
	codexServers := []wrappedServer{srv("codex-fake", fake)}

	// pre-approves the project's .mcp.json servers; init must keep it
	claudeSettings := []byte(`{"enableAllProjectMcpServers": true}` + "\n")
	originals := map[string][]byte{}
	for rel, body := range map[string][]byte{
		".claude/settings.json": claudeSettings,
		"proj/.mcp.json":        mcpServersJSON(t, claudeServers, true),
		".gemini/settings.json": mcpServersJSON(t, geminiServers, false),
		".codex/config.toml":    []byte(codexTOML(codexServers[0])),
	} {
		originals[h.write(t, rel, body)] = body
	}
	h.write(t, ".ssh/id_rsa", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n"))

	// init, as a user runs it: from the project, finding airlock-hook and
	// airlock-mcp next to airlock
	out, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "init")
	if code != 0 {
		t.Fatalf("airlock init: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("airlock init:\n%s", out)
	initLines := strings.Split(out, "\n")
	for cfg, servers := range map[string][]wrappedServer{
		filepath.Join(h.proj, ".mcp.json"):                claudeServers,
		filepath.Join(h.home, ".gemini", "settings.json"): geminiServers,
		filepath.Join(h.home, ".codex", "config.toml"):    codexServers,
	} {
		for _, s := range servers {
			if want := cfg + ": " + s.name + ": wrapped"; !slices.Contains(initLines, want) {
				t.Errorf("airlock init output lacks %q", want)
			}
		}
	}
	settingsPath := filepath.Join(h.home, ".claude", "settings.json")
	if want := settingsPath + ": hook wired (PreToolUse, PostToolUse, PostToolUseFailure: " + filepath.Join(bin, "airlock-hook") + ")"; !slices.Contains(initLines, want) {
		t.Errorf("airlock init output lacks %q", want)
	}
	b, err := os.ReadFile(settingsPath)
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		EnableAllProjectMcpServers *bool `json:"enableAllProjectMcpServers"`
		Hooks                      map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatalf("%s after init: %v\n%s", settingsPath, err, b)
	}
	if settings.EnableAllProjectMcpServers == nil || !*settings.EnableAllProjectMcpServers {
		t.Errorf("init dropped enableAllProjectMcpServers from %s:\n%s", settingsPath, b)
	}
	if len(settings.Hooks["PreToolUse"]) == 0 || len(settings.Hooks["PreToolUse"][0].Hooks) == 0 || settings.Hooks["PreToolUse"][0].Hooks[0].Command != filepath.Join(bin, "airlock-hook") {
		t.Errorf("no airlock-hook PreToolUse hook in %s:\n%s", settingsPath, b)
	}
	if t.Failed() {
		t.FailNow()
	}

	t.Run("claude", func(t *testing.T) {
		// no telemetry, error reports or update checks: nothing here
		// needs the network
		env := append(h.env[:len(h.env):len(h.env)], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
		out, errOut, code, took := runIn(t, h.proj, env, claude, "mcp", "list")
		t.Logf("claude mcp list: exit %d in %v\n%s", code, took.Round(time.Millisecond), out)
		if code != 0 {
			t.Errorf("claude mcp list: exit %d, stderr:\n%s", code, errOut)
		} else if errOut != "" {
			t.Logf("claude mcp list stderr:\n%s", errOut)
		}
		// 2.1.112 prints ✓, later versions ✔
		checkListing(t, "claude", out, claudeServers, func(s wrappedServer) []string {
			return []string{s.name + ": " + s.listed() + " - ✓ Connected", s.name + ": " + s.listed() + " - ✔ Connected"}
		})
		checkStarted(t, readAudit(t, h.airlockHome), claudeServers)
	})

	t.Run("gemini", func(t *testing.T) {
		// an untrusted folder starts no server, not even the user's
		env := append(h.env[:len(h.env):len(h.env)], "GEMINI_CLI_TRUST_WORKSPACE=true")
		out, errOut, code, took := runIn(t, h.proj, env, gemini, "mcp", "list")
		// it prints the listing on stderr
		t.Logf("gemini mcp list: exit %d in %v\nstdout:\n%s\nstderr:\n%s", code, took.Round(time.Millisecond), out, errOut)
		if code != 0 {
			t.Errorf("gemini mcp list: exit %d", code)
		}
		out += errOut
		// not a suffix match: a failed server ends in "- Disconnected"
		checkListing(t, "gemini", out, geminiServers, func(s wrappedServer) []string {
			return []string{"✓ " + s.name + ": " + s.listed() + " (stdio) - Connected"}
		})
		checkStarted(t, readAudit(t, h.airlockHome), geminiServers)
	})

	t.Run("codex", func(t *testing.T) {
		testCodexAppServer(t, h, codex, codexServers[0])
	})

	if v, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "verify"); code != 0 {
		t.Errorf("airlock verify: exit %d\n%s%s", code, v, errOut)
	}

	out, errOut, code, _ = runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "uninstall", "-y")
	if code != 0 {
		t.Fatalf("airlock uninstall -y: exit %d\n%s%s", code, out, errOut)
	}
	for path, want := range originals {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("after uninstall: %v", err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("uninstall did not restore %s byte for byte:\n got %q\nwant %q", path, got, want)
		}
		if !strings.Contains(out, path+": restored byte for byte") {
			t.Errorf("uninstall output does not say %s was restored byte for byte:\n%s", path, out)
		}
	}
}

func codexTOML(s wrappedServer) string {
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	args := make([]string, len(s.inner)-1)
	for i, a := range s.inner[1:] {
		args[i] = q(a)
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", s.name, q(s.inner[0]), strings.Join(args, ", "))
}

// testCodexAppServer drives codex app-server over its stdio JSON-RPC: the
// server's status (Codex connects and lists its tools), then one thread
// and two tool calls through the proxy, one it allows and one it blocks.
func testCodexAppServer(t *testing.T, h agentHome, codex string, s wrappedServer) {
	start := time.Now()
	c := startAppServer(t, h, codex)
	c.call(t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "airlock-e2e", "version": "0"}})
	c.notify(t, "initialized")

	var status struct {
		Data []struct {
			Name       string
			ServerInfo struct{ Name string }
			Tools      map[string]json.RawMessage
			ToolsError *string
		}
	}
	c.callInto(t, "mcpServerStatus/list", map[string]any{}, &status)
	if len(status.Data) != 1 || status.Data[0].Name != s.name || status.Data[0].ServerInfo.Name != "fakemcp-clean" || status.Data[0].ToolsError != nil || status.Data[0].Tools["echo"] == nil {
		t.Fatalf("mcpServerStatus/list: %+v", status)
	}

	var thread struct{ Thread struct{ ID string } }
	c.callInto(t, "thread/start", map[string]any{"cwd": h.proj, "ephemeral": true}, &thread)
	if thread.Thread.ID == "" {
		t.Fatal("thread/start: no thread id")
	}
	type toolResult struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	call := func(tool string, args map[string]any) toolResult {
		var res toolResult
		c.callInto(t, "mcpServer/tool/call", map[string]any{"server": s.name, "threadId": thread.Thread.ID, "tool": tool, "arguments": args}, &res)
		return res
	}
	if res := call("echo", map[string]any{"text": "hi from codex"}); res.IsError || len(res.Content) != 1 || res.Content[0].Text != "hi from codex" {
		t.Errorf("echo through codex and the proxy: %+v", res)
	}
	key := filepath.Join(h.home, ".ssh", "id_rsa")
	if res := call("read_file", map[string]any{"path": key}); !res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "Airlock blocked this call") || strings.Contains(res.Content[0].Text, "PRIVATE KEY") {
		t.Errorf("read of %s through codex and the proxy was not blocked: %+v", key, res)
	}
	c.close(t)
	t.Logf("codex app-server: status, thread and two tool calls in %v", time.Since(start).Round(time.Millisecond))

	recs := readAudit(t, h.airlockHome)
	checkStarted(t, recs, []wrappedServer{s})
	decided := map[string]string{}
	for _, r := range recs {
		if r.Event == "decision" && r.Source == "mcp" && strings.HasPrefix(r.Session, "mcp-"+s.name+"-") {
			decided[r.Tool] = r.Decision
		}
	}
	if d := decided["mcp__"+s.name+"__echo"]; d != "allow" {
		t.Errorf("echo: audit decision %q, want allow (decisions: %v)", d, decided)
	}
	if d := decided["mcp__"+s.name+"__read_file"]; d == "" || d == "allow" {
		t.Errorf("read_file of the key: audit decision %q, want a refusal (decisions: %v)", d, decided)
	}
}

// appServer is a running codex app-server: JSON-RPC, one message a line.
type appServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *syncBuffer
	nextID int
}

func startAppServer(t *testing.T, h agentHome, codex string) *appServer {
	t.Helper()
	c := &appServer{cmd: exec.Command(codex, "app-server"), lines: make(chan []byte, 256), stderr: &syncBuffer{}}
	c.cmd.Dir, c.cmd.Env, c.cmd.Stderr = h.proj, h.env, c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.cmd.WaitDelay = 5 * time.Second
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start codex app-server: %v", err)
	}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			c.lines <- slices.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			c.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("codex app-server stderr:\n%s", c.stderr.String())
		}
	})
	return c
}

func (c *appServer) send(t *testing.T, msg map[string]any) {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("codex app-server: send %s: %v", b, err)
	}
}

func (c *appServer) notify(t *testing.T, method string) {
	c.send(t, map[string]any{"method": method})
}

// call sends a request and returns its result, passing over the
// notifications that come before it.
func (c *appServer) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	c.nextID++
	id := c.nextID
	c.send(t, map[string]any{"id": id, "method": method, "params": params})
	timeout := time.After(agentTimeout)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("codex app-server: stdout closed waiting for %s; stderr:\n%s", method, c.stderr.String())
			}
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("codex app-server: %v: %s", err, line)
			}
			if m.ID == nil || *m.ID != id || m.Method != "" {
				continue
			}
			if m.Error != nil {
				t.Fatalf("codex app-server: %s: %s", method, m.Error)
			}
			return m.Result
		case <-timeout:
			t.Fatalf("codex app-server: no answer to %s within %v; stderr:\n%s", method, agentTimeout, c.stderr.String())
		}
	}
}

func (c *appServer) callInto(t *testing.T, method string, params, into any) {
	t.Helper()
	res := c.call(t, method, params)
	if err := json.Unmarshal(res, into); err != nil {
		t.Fatalf("codex app-server: %s: %v: %s", method, err, res)
	}
}

// close ends the session as a client does, by closing stdin, and waits
// for codex and the proxies it started to exit.
func (c *appServer) close(t *testing.T) {
	t.Helper()
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("codex app-server exit: %v", err)
		}
	case <-time.After(agentTimeout):
		t.Fatalf("codex app-server did not exit within %v of its stdin closing", agentTimeout)
	}
	waitGroupGone(t, c.cmd.Process.Pid, "codex app-server")
}
