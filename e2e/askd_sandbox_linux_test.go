//go:build linux

package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/sandbox"
)

// askProbeSrc connects to each address it is given and prints the errno
// of the connect, or "connected" (the e2e bin's Go builds it, static).
const askProbeSrc = `package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

func main() {
	for _, addr := range os.Args[1:] {
		c, err := net.Dial("unix", addr)
		if err == nil {
			c.Close()
			fmt.Printf("%s connected\n", addr)
			continue
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			fmt.Printf("%s errno %d %v\n", addr, int(errno), errno)
			continue
		}
		fmt.Printf("%s error %v\n", addr, err)
	}
}
`

var (
	askProbeOnce sync.Once
	askProbeBin  string
	askProbeErr  error
)

// TestAskdUnreachableFromAirlockRun: with askd running, a process inside
// airlock run can reach neither its abstract socket (Landlock's scope:
// EPERM) nor a socket file in the home (there is none on Linux), so it
// cannot put a question on the person's screen.
func TestAskdUnreachableFromAirlockRun(t *testing.T) {
	runSbxNeedKernel(t)
	if !sandbox.Probe().Scoped {
		if os.Getenv("AIRLOCK_KERNEL_TESTS") == "optional" {
			t.Skip("this kernel has no Landlock scopes (ABI 6); AIRLOCK_KERNEL_TESTS=optional")
		}
		t.Fatal("this kernel has no Landlock scopes (ABI 6), which keep a sandboxed process off askd's abstract socket (set AIRLOCK_KERNEL_TESTS=optional to skip)")
	}
	e := newRunSbxEnv(t)
	askProbeOnce.Do(func() {
		src := filepath.Join(bin, "askprobe.go")
		if askProbeErr = os.WriteFile(src, []byte(askProbeSrc), 0o600); askProbeErr != nil {
			return
		}
		askProbeBin = filepath.Join(bin, "askprobe")
		build := exec.Command("go", "build", "-trimpath", "-o", askProbeBin, src)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			askProbeErr = fmt.Errorf("build the probe: %v\n%s", err, b)
		}
	})
	if askProbeErr != nil {
		t.Fatal(askProbeErr)
	}
	// the sandbox grants execute in the workspace, not in the test's bin
	b, err := os.ReadFile(askProbeBin)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(e.ws, "askprobe")
	if err := os.WriteFile(probe, b, 0o700); err != nil {
		t.Fatal(err)
	}

	a := startAskd(t, e.env)
	abstract, path := ask.SocketAddress(e.airlockHome), ask.SocketPath(e.airlockHome)
	if !strings.HasPrefix(abstract, "@airlock-askd-") || !strings.Contains(a.out.String(), abstract) {
		t.Fatalf("askd does not say it answers on %s:\n%s", abstract, a.out.String())
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("askd made %s (%v): on Linux it must listen on its abstract name only", path, err)
	}
	// outside the sandbox the name is reachable: the refusal below is the
	// sandbox's, not a name nobody listens on
	outside := exec.Command(probe, abstract)
	outside.Env = e.env
	if out, err := outside.CombinedOutput(); err != nil || !strings.Contains(string(out), abstract+" connected") {
		t.Fatalf("outside airlock run the probe could not reach askd: %q %v", out, err)
	}
	// a question the old way, without proof: refused, and recorded
	forger, err := net.Dial("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = forger.Write([]byte(`{"v":1,"source":"mcp","tool":"t","target":"/forged","rule":"r","timeout_ms":5000}` + "\n"))
	reply, _ := io.ReadAll(forger)
	forger.Close()
	if !strings.Contains(string(reply), `"refused"`) {
		t.Fatalf("askd answered a question without proof: %q", reply)
	}
	a.waitFor(t, "refused a question from pid ", 1)
	refused := 0
	for _, r := range e.records(t) {
		if r["event"] == "askd_refused" {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("%d askd_refused records, want 1 for the probe's connection", refused)
	}

	r := e.run(t, "run", "--no-egress-proxy", "--", probe, abstract, path)
	if r.code != 0 {
		t.Fatalf("airlock run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		abstract + " errno 1 operation not permitted", // EPERM: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		path + " errno 2 no such file or directory",   // ENOENT: no socket file on Linux
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inside airlock run, want %q; the probe printed:\n%s", want, r.stdout)
		}
	}
	if s := a.out.String(); strings.Contains(s, "Allow this call?") {
		t.Fatalf("a sandboxed process put a question on askd's screen:\n%s", s)
	}
}
