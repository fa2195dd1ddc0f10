//go:build unix

package e2e

import (
	"bufio"
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
// Codex does — stdin closed, SIGTERM to the process group, SIGKILL a moment
// later — in front of a server that takes its time to exit (it ignores
// SIGTERM). The proxy writes its last record and its checkpoint at the
// signal, before it waits for the server, so `airlock verify` says intact
// with no warning. Before the fix the proxy waited for the server before
// recording its end: with this server the SIGKILL always came first, and
// with a server that exits at once it came, under disk load, between the
// record and the checkpoint (verify exit 2, checkpoint-stale).
//
// At Codex's own 12 ms a loaded machine may not schedule the proxy before
// the SIGKILL; the log must then still verify clean. Given 250 ms, the
// proxy's mcp_exit must be there.
func TestMCPProxyStoppedAsCodexStopsItVerifiesClean(t *testing.T) {
	px := newProxyFixture(t)
	for _, c := range []struct {
		killAfter time.Duration
		rounds    int
		wantExit  bool
	}{
		{codexKillAfter, 5, false},
		{250 * time.Millisecond, 2, true},
	} {
		for round := 0; round < c.rounds; round++ {
			before := len(readAuditFileIfAny(t, px.AirlockHome))
			p := startProxyProc(t, px.env, px.proxied("codexstop", fakeMCPCmd(t, "-mode", "ignoreterm", "-linger", "30s")...)...)
			if got := p.roundTrip(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`); !strings.Contains(got, `"hi"`) {
				t.Fatalf("echo: %s", got)
			}
			pid := p.cmd.Process.Pid
			p.in.Close()
			if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			time.Sleep(c.killAfter) // the client's timing, replayed
			_ = syscall.Kill(pid, syscall.SIGKILL)
			// then the server, deaf to SIGTERM (it holds the stderr Wait reads)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = p.cmd.Wait()

			recs := readAudit(t, px.AirlockHome)
			exited := false
			for _, r := range recs[before:] {
				exited = exited || r.Event == "mcp_exit" && strings.HasPrefix(r.Session, "mcp-codexstop-") && strings.Contains(r.Detail, "SIGTERM")
			}
			if last := recs[len(recs)-1]; exited && last.Event != "mcp_exit" {
				t.Errorf("SIGKILL after %v, round %d: a record follows the proxy's last: %+v", c.killAfter, round, last)
			}
			if c.wantExit && !exited {
				t.Errorf("SIGKILL %v after SIGTERM, round %d: the proxy did not record its end at the signal: last record %+v", c.killAfter, round, recs[len(recs)-1])
			}
			v := px.airlock(t, "verify")
			if v.code != 0 || strings.Contains(strings.ToLower(v.stdout+v.stderr), "warning") {
				t.Fatalf("SIGKILL %v after SIGTERM, round %d: airlock verify: exit %d\n%s%s", c.killAfter, round, v.code, v.stdout, v.stderr)
			}
		}
	}
}

// readAuditFileIfAny is readAudit, nil before the log exists.
func readAuditFileIfAny(t testing.TB, airlockHome string) []auditRecord {
	t.Helper()
	if _, err := os.Stat(filepath.Join(airlockHome, "audit.jsonl")); os.IsNotExist(err) {
		return nil
	}
	return readAudit(t, airlockHome)
}
