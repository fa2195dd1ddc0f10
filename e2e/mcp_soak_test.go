//go:build unix

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A bare relay for the benchmark's baseline: when the test binary is
// started with AIRLOCK_E2E_RELAY=1 it copies stdin to its child and the
// child's stdout back, and nothing else. Gated minus relay is what the
// gate costs; relay minus direct is what two more pipe hops cost.
func init() {
	if os.Getenv("AIRLOCK_E2E_RELAY") != "1" {
		return
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil || cmd.Start() != nil {
		os.Exit(70)
	}
	go func() { io.Copy(in, os.Stdin); in.Close() }()
	io.Copy(os.Stdout, out)
	cmd.Wait()
	os.Exit(0)
}

// lineClient drives a stdio MCP server one request at a time, with no SDK
// in the way, for soak tests and benchmarks.
type lineClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startLineClient(t testing.TB, env []string, argv ...string) *lineClient {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
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
	lc := &lineClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	lc.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	lc.roundTrip(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	return lc
}

func (lc *lineClient) roundTrip(t testing.TB, line string) string {
	if _, err := io.WriteString(lc.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := lc.out.ReadString('\n')
	if err != nil {
		t.Fatalf("after %s: %v", line, err)
	}
	return got
}

func (lc *lineClient) call(t testing.TB, id int) {
	got := lc.roundTrip(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the soak test"}}}`)
	if !strings.Contains(got, "hello from the soak test") || strings.Contains(got, "isError\":true") {
		t.Fatalf("call %d: %s", id, got)
	}
}

// procStatus reads a field of /proc/PID/status in kB.
func procStatus(t testing.TB, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

func openFDs(t testing.TB, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestMCPProxySoak makes 100,000 gated calls through one proxy and checks
// that its descriptors and memory stay flat and its peak RSS stays under
// the 20 MB budget.
func TestMCPProxySoak(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Fatal("the soak test reads /proc: run it on Linux")
	}
	px := newProxyFixture(t)
	lc := startLineClient(t, px.env, px.proxied("soak", fakeMCPCmd(t, "-mode", "echo-raw")...)...)
	pid := lc.cmd.Process.Pid
	const warm, total = 10000, 100000
	for i := 0; i < warm; i++ {
		lc.call(t, 100+i)
	}
	fds, rss := openFDs(t, pid), procStatus(t, pid, "VmRSS")
	for i := warm; i < total; i++ {
		lc.call(t, 100+i)
	}
	fds2, rss2, peak := openFDs(t, pid), procStatus(t, pid, "VmRSS"), procStatus(t, pid, "VmHWM")
	t.Logf("proxy after %d calls: fds %d → %d, RSS %d kB → %d kB, peak RSS %d kB", total, fds, fds2, rss, rss2, peak)
	if fds2 > fds+2 { // the audit append opens its files for a moment
		t.Errorf("descriptors grew from %d to %d over %d calls", fds, fds2, total-warm)
	}
	if rss2-rss > 4096 {
		t.Errorf("RSS grew by %d kB over %d calls", rss2-rss, total-warm)
	}
	if peak > 20*1024 {
		t.Errorf("peak RSS %d kB is over the 20 MB budget", peak)
	}
	lc.in.Close()
	if err := lc.cmd.Wait(); err != nil {
		t.Fatalf("proxy exit: %v", err)
	}
	if v := px.airlock(t, "verify"); v.code != 0 || !strings.Contains(v.stdout, "intact") {
		t.Errorf("verify after the soak: %s %s", v.stdout, v.stderr)
	}
}

// BenchmarkMCPToolCall measures a tools/call round trip against the same
// echo server, directly and through airlock-mcp, in one run: the
// difference is what the proxy adds (two pipe hops, the gate, the audit
// queue). Reported as p50/p99 per call.
func BenchmarkMCPToolCall(b *testing.B) {
	px := newProxyFixture(b)
	fake := fakeMCPCmd(b, "-mode", "echo-raw")
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		argv []string
		env  []string
	}{
		{"direct", fake, px.env},
		{"relay", append([]string{self}, fake...), append(px.env, "AIRLOCK_E2E_RELAY=1")},
		{"gated", px.proxied("bench", fake...), px.env},
	} {
		b.Run(bc.name, func(b *testing.B) {
			lc := startLineClient(b, bc.env, bc.argv...)
			for i := 0; i < 200; i++ {
				lc.call(b, i+10)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				lc.call(b, 1000+i)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
			if bc.name == "gated" {
				b.ReportMetric(float64(procStatus(b, lc.cmd.Process.Pid, "VmHWM"))/1024, "peak-RSS-MB")
			}
		})
	}
}
