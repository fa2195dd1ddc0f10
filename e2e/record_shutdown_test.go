package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// codexKillAfter is how long Codex 0.171 leaves an MCP server between the
// SIGTERM it sends the server's process group and the SIGKILL it sends the
// server (measured with strace -f on codex app-server closing its stdin:
// 11.7 ms). The test replays the client's own timing; it waits on no event.
const codexKillAfter = 12 * time.Millisecond

// proxyProc is airlock-mcp started as an agent starts it: in a process
// group of its own, talking JSON-RPC lines on stdio.
type proxyProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startProxyProc(t testing.TB, env []string, argv ...string) *proxyProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		// the server may ignore SIGTERM; nothing of the group outlives the test
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("airlock-mcp stderr:\n%s", stderr.String())
		}
	})
	p := &proxyProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	p.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"record-test","version":"0"}}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.roundTrip(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	return p
}

func (p *proxyProc) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

func (p *proxyProc) roundTrip(t testing.TB, line string) string {
	t.Helper()
	p.send(t, line)
	got, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("after %s: %v", line, err)
	}
	return got
}

// TestMCPProxyStoppedAsCodexStopsItVerifiesClean stops the proxy the way
// Codex does — stdin closed, SIGTERM to the process group, SIGKILL 12 ms
// later — in front of a server that takes its time to exit (it ignores
// SIGTERM): the proxy's last record and its checkpoint must be written
// before the SIGKILL, so `airlock verify` says intact with no warning.
// Before the fix the proxy waited for the server before recording its end,
// so the SIGKILL always came first (and under disk load it came between
// the record and the checkpoint: verify exit 2, checkpoint-stale).
func TestMCPProxyStoppedAsCodexStopsItVerifiesClean(t *testing.T) {
	px := newProxyFixture(t)
	for round := 0; round < 5; round++ {
		p := startProxyProc(t, px.env, px.proxied("codexstop", fakeMCPCmd(t, "-mode", "ignoreterm", "-linger", "30s")...)...)
		if got := p.roundTrip(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`); !strings.Contains(got, `"hi"`) {
			t.Fatalf("echo: %s", got)
		}
		pid := p.cmd.Process.Pid
		p.in.Close()
		if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		time.Sleep(codexKillAfter)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		// then the server, deaf to SIGTERM (it holds the stderr Wait reads)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = p.cmd.Wait()

		recs := readAuditFile(t, px.AirlockHome)
		last := recs[len(recs)-1]
		if last.Event != "mcp_exit" || !strings.HasPrefix(last.Session, "mcp-codexstop-") || !strings.Contains(last.Detail, "SIGTERM") {
			t.Fatalf("round %d: the log does not end with the proxy's mcp_exit naming SIGTERM: last record %+v", round, last)
		}
		v := px.airlock(t, "verify")
		if v.code != 0 || strings.Contains(strings.ToLower(v.stdout+v.stderr), "warning") {
			t.Fatalf("round %d: airlock verify after a Codex-style stop: exit %d\n%s%s", round, v.code, v.stdout, v.stderr)
		}
	}
}

// readAuditFile reads audit.jsonl; unlike readAudit it takes a testing.TB.
func readAuditFile(t testing.TB, airlockHome string) []auditRecord {
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
