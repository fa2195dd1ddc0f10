//go:build unix

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

	"github.com/mark3labs/mcp-go/client"
)

// askd is a running `airlock askd` whose person types into in.
type askd struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *syncBuffer
}

func startAskd(t *testing.T, env []string) *askd {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "airlock"), "askd")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &askd{cmd: cmd, in: in, out: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = a.out, a.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("askd showed:\n%s", a.out.String())
		}
	})
	a.waitFor(t, "answering asks on", 1)
	return a
}

// waitFor waits until askd has shown s at least n times.
func (a *askd) waitFor(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(a.out.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("askd did not show %q %d times:\n%s", s, n, a.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// askedRecords returns the decision records of tool with their asked field.
func askedRecords(t *testing.T, home, tool string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Event, Tool, Asked, Effective string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == "decision" && r.Tool == tool {
			out = append(out, r.Asked+":"+r.Effective)
		}
	}
	return out
}

// TestAskChannelThroughTheProxy: the built airlock-mcp under paranoid
// (every call not explicitly allowed asks) puts calls to a person at the
// built airlock askd: yes runs the tool, a retry is not asked again, no
// refuses, and an answer that comes after the timeout approves nothing.
func TestAskChannelThroughTheProxy(t *testing.T) {
	px := newProxyFixture(t, "AIRLOCK_PROFILE=paranoid", "AIRLOCK_ASK_BACKEND=socket,fallback", "AIRLOCK_ASK_TIMEOUT=20")
	logPath := filepath.Join(px.Root, "server.log")
	d := startAskd(t, px.env)
	c := mcpClient(t, px.env, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean", "-log", logPath)...)...)

	call := func(c *client.Client, text string) chan string {
		ch := make(chan string, 1)
		go func() {
			res, err := tryCallTool(t, c, "echo", map[string]any{"text": text})
			switch {
			case err != nil:
				ch <- "error: " + err.Error()
			case res.IsError:
				ch <- "refused: " + textOf(res)
			default:
				ch <- textOf(res)
			}
		}()
		return ch
	}
	first := call(c, "hello\u202e")
	d.waitFor(t, `"mcp__fake__echo"`, 1)
	d.waitFor(t, "Allow this call?", 1)
	io.WriteString(d.in, "y\n")
	// approved, the call is served; its echo carries the bidi control
	// character back, and the paranoid profile withholds such a result
	// (the ingress plane): the answer says so, which only a served call gets
	const served = "Airlock withheld the server's answer to tools/call (mcp__fake__echo)"
	if got := <-first; !strings.Contains(got, served) {
		t.Fatalf("approved call: %q", got)
	}
	// the same call again: remembered, nobody is asked
	if got := <-call(c, "hello\u202e"); !strings.Contains(got, served) {
		t.Fatalf("retry: %q", got)
	}
	if n := strings.Count(d.out.String(), "Allow this call?"); n != 1 {
		t.Fatalf("the retry was asked again (%d questions)", n)
	}
	second := call(c, "other")
	d.waitFor(t, "Allow this call?", 2)
	io.WriteString(d.in, "n\n")
	if got := <-second; !strings.HasPrefix(got, "refused: Airlock blocked this call: a person refused it when asked") {
		t.Fatalf("refused call: %q", got)
	}
	c.Close()

	// a person who answers too late approves nothing
	late := append(px.env[:len(px.env):len(px.env)], "AIRLOCK_ASK_TIMEOUT=1")
	c2 := mcpClient(t, late, px.proxied("fake", fakeMCPCmd(t, "-mode", "clean", "-log", logPath)...)...)
	third := call(c2, "too late")
	if got := <-third; !strings.HasPrefix(got, "refused: Airlock blocked this call: nobody answered in time, so it is refused") {
		t.Fatalf("unanswered call under paranoid: %q", got)
	}
	d.waitFor(t, "no answer in time", 1)
	io.WriteString(d.in, "y\n")
	time.Sleep(100 * time.Millisecond)
	if n := strings.Count(d.out.String(), "→ allowed"); n != 1 {
		t.Fatalf("a late answer was taken (%d approvals)", n)
	}
	c2.Close()

	srv, _ := os.ReadFile(logPath)
	if strings.Contains(string(srv), "other") || strings.Contains(string(srv), "too late") {
		t.Fatalf("a refused call reached the server:\n%s", srv)
	}
	got := strings.Join(askedRecords(t, px.AirlockHome, "mcp__fake__echo"), " ")
	if got != "human:allow remembered:allow human:block timeout:block" {
		t.Fatalf("records: %s", got)
	}
	if !strings.Contains(d.out.String(), `args    "{\"text\":\"hello\u202e\"}"`) {
		t.Fatalf("the agent's string was not shown escaped:\n%s", d.out.String())
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Fatalf("verify: %s %s", v.stdout, v.stderr)
	}
}
