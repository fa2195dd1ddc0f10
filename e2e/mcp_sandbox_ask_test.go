//go:build unix

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPSandboxEgressAsksAskd: a server under airlock-mcp --sandbox
// opens a tunnel through its egress proxy to a host the policy asks
// about, and the question reaches the running airlock askd, naming the
// server, as it does for airlock run: yes lets the tunnel through to the host, no refuses it
// (403, nothing reaches the host) and sends the desktop notice of a
// block. Before sandbox.Session, the --sandbox egress proxy had no ask
// channel (the ask became ask_fallback at once, askd saw nothing) and sent
// no notice.
func TestMCPSandboxEgressAsksAskd(t *testing.T) {
	mcpSbxNeedKernel(t)
	px, _, _ := mcpSbxFixture(t)
	fake := t.TempDir()
	sent := filepath.Join(fake, "sent.log")
	script := "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$1\" \"$2\" \"$3\" >> " + sent + "\n"
	if err := os.WriteFile(filepath.Join(fake, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range px.env {
		if strings.HasPrefix(kv, "PATH=") {
			px.env[i] = "PATH=" + fake + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	px.env = append(px.env, "AIRLOCK_ASK_BACKEND=socket,fallback", "AIRLOCK_ASK_TIMEOUT=30")
	if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	// every call and destination is allowed but the loopback address the
	// test listens on, which asks; nobody answering refuses
	pol := "mode: enforce\ndefault: allow\nask_fallback: block\nrules:\n" +
		"  - id: ask-test-host\n    tool: WebFetch\n    host: [\"127.0.0.1\"]\n    action: ask\n    reason: the test asks about this host\n"
	if err := os.WriteFile(filepath.Join(px.AirlockHome, "policy.yaml"), []byte(pol), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startAskd(t, px.env)

	// start runs a sandboxed server that tunnels to a fresh listener and
	// answers askd's question; it returns what the server's CONNECT got
	// and whether the listener was reached.
	start := func(answer string, asks int) (target, status string, reached bool) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan struct{}, 1)
		go func() {
			if conn, err := ln.Accept(); err == nil {
				accepted <- struct{}{}
				conn.Close()
			}
		}()
		target = ln.Addr().String()
		c := mcpClient(t, px.env, px.sandboxed("net", fakeMCPCmd(t, "-mode", "clean", "-connect", target)...)...)
		defer c.Close()
		d.waitFor(t, target, 1)
		d.waitFor(t, "Allow this call?", asks)
		io.WriteString(d.in, answer+"\n")
		prefix := "fakemcp: connect " + target + ": "
		deadline := time.Now().Add(30 * time.Second)
		for {
			for _, l := range strings.Split(stderrOf(t, c), "\n") {
				if s, ok := strings.CutPrefix(l, prefix); ok {
					status = s
				}
			}
			if status != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server never said what its CONNECT got:\n%s", stderrOf(t, c))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if strings.HasPrefix(status, "HTTP/1.1 200") {
			// the proxy answers once it has dialled: the accept is there
			// or on its way
			select {
			case <-accepted:
				reached = true
			case <-time.After(10 * time.Second):
			}
		} else {
			select {
			case <-accepted:
				reached = true
			default:
			}
		}
		return target, status, reached
	}

	yes, status, reached := start("y", 1)
	if !strings.Contains(d.out.String(), `server  "net"`) {
		t.Errorf("the question does not name the server:\n%s", d.out.String())
	}
	if !strings.HasPrefix(status, "HTTP/1.1 200") || !reached {
		t.Fatalf("approved destination %s: the proxy answered %q, the host reached: %v\naskd:\n%s", yes, status, reached, d.out.String())
	}
	no, status, reached := start("n", 2)
	if !strings.HasPrefix(status, "HTTP/1.1 403") || reached {
		t.Fatalf("refused destination %s: the proxy answered %q, the host reached: %v", no, status, reached)
	}

	// the records say a person answered each, and the refusal was noticed
	want := map[string]string{yes: "human:allow", no: "human:block"}
	got := map[string]string{}
	f, err := os.Open(filepath.Join(px.AirlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Event, Target, Asked, Effective, Session string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == "egress" {
			got[r.Target] = r.Asked + ":" + r.Effective
			if !strings.HasPrefix(r.Session, "mcp-net-") {
				t.Errorf("egress record of %s in session %q, want the proxy's", r.Target, r.Session)
			}
		}
	}
	for target, w := range want {
		if got[target] != w {
			t.Errorf("egress record of %s: %q, want %q (all: %v)", target, got[target], w, got)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(sent)
		if strings.Contains(string(b), no) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no desktop notice of the refused destination %s: %q", no, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(sent); strings.Contains(string(b), yes) {
		t.Errorf("the approved destination was noticed as a block: %q", b)
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("verify: %s", v.stdout)
	}
}
