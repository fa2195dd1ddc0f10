package forward

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/testrecv"
)

// helperEnv makes the test binary a forwarder process (TestMain), so the
// fault tests can kill it with SIGKILL.
const helperEnv = "AIRLOCK_FORWARD_TEST_HELPER"

func TestMain(m *testing.M) {
	if target := os.Getenv(helperEnv); target != "" {
		os.Exit(helperMain(target))
	}
	os.Exit(m.Run())
}

func helperMain(raw string) int {
	t, err := ParseTarget(raw)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 64
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	err = Run(ctx, Config{
		Home: os.Getenv("AIRLOCK_HOME"), Target: t, Host: "testhost", Version: "test",
		Batch: 16, Heartbeat: 200 * time.Millisecond, Poll: 10 * time.Millisecond, Timeout: 2 * time.Second,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Settle: 500 * time.Millisecond, Status: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func testRecord(i int) audit.Record {
	return audit.Record{
		Event: "decision", Source: "hook", Session: "sess-1", Tool: "Bash",
		Decision: "allow", Effective: "allow", Rule: fmt.Sprintf("rule-%d", i%7),
		Reason: fmt.Sprintf("reason number %d", i), Target: fmt.Sprintf("/home/u/p/file-%d.go", i), Mode: "enforce",
	}
}

func appendRecords(t testing.TB, home string, from, n int) {
	t.Helper()
	l, err := audit.Open(home)
	if err != nil {
		t.Fatalf("audit.Open: %v", err)
	}
	defer l.Close()
	for i := from; i < from+n; i++ {
		if _, err := l.Append(testRecord(i)); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
}

// chainHashes is every h of the chain in home, in order.
func chainHashes(t testing.TB, home string) []string {
	t.Helper()
	var out []string
	if err := audit.LinesAfter(home, audit.Position{}, func(l audit.Line) error {
		out = append(out, l.Pos.H)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// requireCopy checks that the receiver's copy holds every record of the
// chain, at least once and in order, and that VerifyExport calls it whole.
func requireCopy(t *testing.T, out string, want []string, recompute bool) *ChainCopy {
	t.Helper()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the receiver wrote nothing: %v", err)
	}
	rep, err := VerifyExport(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("VerifyExport: %v", err)
	}
	if len(rep.Chains) != 1 {
		t.Fatalf("copy has %d chains, want 1", len(rep.Chains))
	}
	c := rep.Chains[0]
	if !rep.OK() || c.Records != len(want) || !c.FromStart || !c.InOrder || c.Last != want[len(want)-1] {
		t.Fatalf("copy: %d records (want %d), from start %v, in order %v, last %s (want %s), problems %v",
			c.Records, len(want), c.FromStart, c.InOrder, c.Last, want[len(want)-1], c.Problems)
	}
	if recompute && c.Verified != len(want) {
		t.Fatalf("h recomputed for %d of %d records", c.Verified, len(want))
	}
	if c.LastBeat == nil {
		t.Fatal("no heartbeat in the copy")
	}
	// in order: the first copy of each record comes after the first copy
	// of the record before it
	firstAt := map[string]int{}
	i := 0
	for _, line := range strings.Split(string(b), "\n") {
		for _, h := range hashesIn(line) {
			if _, ok := firstAt[h]; !ok {
				firstAt[h] = i
			}
			i++
		}
	}
	for k := 1; k < len(want); k++ {
		if firstAt[want[k]] < firstAt[want[k-1]] {
			t.Fatalf("record %d arrived before record %d", k, k-1)
		}
	}
	return c
}

// hashesIn finds the h of every record a receiver line holds (syslog SD
// h="…", or OTLP's airlock.h attribute values).
func hashesIn(line string) []string {
	var out []string
	for _, key := range []string{` h="`, `"key":"airlock.h","value":{"stringValue":"`} {
		rest := line
		for {
			i := strings.Index(rest, key)
			if i < 0 || len(rest) < i+len(key)+64 {
				break
			}
			out = append(out, rest[i+len(key):i+len(key)+64])
			rest = rest[i+len(key)+64:]
		}
	}
	return out
}

func runOnce(t *testing.T, home string, target string) {
	t.Helper()
	tg, err := ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var status bytes.Buffer
	if err := Run(ctx, Config{Home: home, Target: tg, Host: "testhost", Version: "test", Once: true, Batch: 32,
		MinBackoff: 10 * time.Millisecond, Status: &status}); err != nil {
		t.Fatalf("Run: %v\n%s", err, status.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("Run did not finish: %s", status.String())
	}
}

// waitFile waits until the receiver's file holds every record of want.
func waitFile(t *testing.T, out string, want []string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(out)
		seen := map[string]bool{}
		for _, h := range hashesIn(string(b)) {
			seen[h] = true
		}
		missing := 0
		for _, h := range want {
			if !seen[h] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20s the receiver's copy lacks %d of %d records", missing, len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRELPToRsyslog(t *testing.T) {
	r := testrecv.StartRsyslog(t, nil)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 100)
	runOnce(t, home, fmt.Sprintf("relp://127.0.0.1:%d", r.RELP))
	want := chainHashes(t, home)
	waitFile(t, r.Out, want)
	c := requireCopy(t, r.Out, want, true)
	if c.Duplicates != 0 {
		t.Fatalf("a clean run sent %d duplicates", c.Duplicates)
	}
	// a second run resumes from the cursor: only the new records
	appendRecords(t, home, 100, 10)
	runOnce(t, home, fmt.Sprintf("relp://127.0.0.1:%d", r.RELP))
	want = chainHashes(t, home)
	waitFile(t, r.Out, want)
	if c := requireCopy(t, r.Out, want, true); c.Duplicates != 0 {
		t.Fatalf("resuming from the cursor resent %d records", c.Duplicates)
	}
}

func TestTLSToRsyslogWithATestCA(t *testing.T) {
	ca := testrecv.NewCA(t)
	r := testrecv.StartRsyslog(t, ca)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 50)
	runOnce(t, home, fmt.Sprintf("tls://127.0.0.1:%d?ca=%s", r.TLS, ca.CAFile))
	want := chainHashes(t, home)
	waitFile(t, r.Out, want)
	requireCopy(t, r.Out, want, true)

	// a receiver whose certificate the CA did not sign is refused
	other := testrecv.NewCA(t)
	tg, _ := ParseTarget(fmt.Sprintf("tls://127.0.0.1:%d?ca=%s", r.TLS, other.CAFile))
	s, err := newStreamSender(tg, 2*time.Second, func(item) []byte { return []byte("x") })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), []item{{beat: &Beat{}}}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a receiver with an unknown CA: err %v, want a certificate error", err)
	}
}

func TestCEFOverRELP(t *testing.T) {
	r := testrecv.StartRsyslog(t, nil)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 20)
	runOnce(t, home, fmt.Sprintf("relp://127.0.0.1:%d?format=cef", r.RELP))
	want := chainHashes(t, home)
	waitFile(t, r.Out, want)
	c := requireCopy(t, r.Out, want, false)
	if c.Verified != 0 {
		t.Fatalf("CEF carries no stored line, yet %d were recomputed", c.Verified)
	}
	b, _ := os.ReadFile(r.Out)
	if !strings.Contains(string(b), "CEF:0|Airlock|airlock|test|decision:allow|") {
		t.Fatalf("no CEF line in the copy:\n%.500s", b)
	}
}

func TestOTLPToAReceiver(t *testing.T) {
	r := testrecv.StartOTLP(t)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 100)
	runOnce(t, home, r.URL())
	want := chainHashes(t, home)
	c := requireCopy(t, r.Out, want, true)
	if c.Duplicates != 0 {
		t.Fatalf("%d duplicates on a clean run", c.Duplicates)
	}
	b, _ := os.ReadFile(r.Out)
	for _, attr := range []string{AttrH, AttrPrev, AttrChain, AttrEvent, AttrRule, `"eventName":"airlock.decision"`, `"eventName":"airlock.forward_heartbeat"`, `"service.name"`} {
		if !strings.Contains(string(b), attr) {
			t.Fatalf("the OTLP copy has no %s", attr)
		}
	}
}

func TestADownReceiverHoldsTheCursor(t *testing.T) {
	r := testrecv.StartOTLP(t)
	r.SetDown(true)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 40)
	tg, _ := ParseTarget(r.URL())
	ctx, cancel := context.WithCancel(context.Background())
	var status lockedBuf
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Home: home, Target: tg, Batch: 8, Poll: 10 * time.Millisecond,
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Status: &status})
	}()
	time.Sleep(300 * time.Millisecond)
	if c, err := LoadCursor(home, tg); err != nil || c.Pos.H != "" {
		t.Fatalf("the cursor moved while the receiver was down: %+v %v", c, err)
	}
	if !strings.Contains(status.String(), "nothing is dropped") {
		t.Fatalf("no status saying the forwarder holds: %s", status.String())
	}
	r.SetDown(false)
	want := chainHashes(t, home)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _ := LoadCursor(home, tg)
		if c.Pos.H == want[len(want)-1] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cursor did not reach the end: %+v\n%s", c, status.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	requireCopy(t, r.Out, want, true)
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// forwarderProc is the forwarder as a process of its own, to SIGKILL.
type forwarderProc struct {
	t      *testing.T
	home   string
	target string
	cmd    *exec.Cmd
	log    *lockedBuf
}

func (p *forwarderProc) Start() {
	p.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+p.target, "AIRLOCK_HOME="+p.home)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.cmd = cmd
}

func (p *forwarderProc) Kill() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
	p.cmd = nil
}

// faultRun writes records (rotating the log underneath) while the
// forwarder and the receiver are killed and restarted at random, then
// waits for the cursor to reach the end of the chain.
func faultRun(t *testing.T, target string, killReceiver, startReceiver func()) []string {
	t.Setenv(audit.MaxMBEnv, "0.01") // a rotation every ~30 records
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 1)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	fw := &forwarderProc{t: t, home: home, target: target, log: &lockedBuf{}}
	fw.Start()
	defer fw.Kill()
	const total = 600
	kills, receiverKills := 0, 0
	for n := 1; n < total; {
		burst := 1 + rng.IntN(40)
		appendRecords(t, home, n, burst)
		n += burst
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		switch rng.IntN(4) {
		case 0:
			fw.Kill()
			kills++
			fw.Start()
		case 1:
			killReceiver()
			receiverKills++
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			startReceiver()
		}
	}
	if kills == 0 || receiverKills == 0 {
		fw.Kill()
		fw.Start()
		killReceiver()
		startReceiver()
	}
	want := chainHashes(t, home)
	tg, _ := ParseTarget(target)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, _ := LoadCursor(home, tg)
		if c.Pos.H == want[len(want)-1] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s the cursor is at %+v, not the chain's end; forwarder output:\n%s", c, tail(fw.log.String(), 3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	segs, _ := filepath.Glob(filepath.Join(home, "audit-*.jsonl"))
	if len(segs) < 5 {
		t.Fatalf("only %d rotations under the test", len(segs))
	}
	t.Logf("%d records, %d segments, forwarder killed %d times, receiver %d times", len(want), len(segs), kills, receiverKills)
	return want
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func TestFaultsRELP(t *testing.T) {
	r := testrecv.StartRsyslog(t, nil)
	want := faultRun(t, fmt.Sprintf("relp://127.0.0.1:%d", r.RELP), r.Kill, r.Start)
	waitFile(t, r.Out, want)
	c := requireCopy(t, r.Out, want, true)
	t.Logf("RELP copy: %d records, %d duplicates dropped by h", c.Records, c.Duplicates)
}

func TestFaultsOTLP(t *testing.T) {
	r := testrecv.StartOTLP(t)
	want := faultRun(t, r.URL(), r.Stop, r.Start)
	c := requireCopy(t, r.Out, want, true)
	t.Logf("OTLP copy: %d records, %d duplicates dropped by h", c.Records, c.Duplicates)
}

// TestFaultsTLS: syslog over TLS has no acknowledgement. The forwarder
// resends from its cursor after every broken connection it notices; what
// the receiver lost with a connection the forwarder did not see break is
// a hole, and verify --export must name it rather than call the copy whole.
func TestFaultsTLS(t *testing.T) {
	ca := testrecv.NewCA(t)
	r := testrecv.StartRsyslog(t, ca)
	want := faultRun(t, fmt.Sprintf("tls://127.0.0.1:%d?ca=%s", r.TLS, ca.CAFile), r.Kill, r.Start)
	time.Sleep(500 * time.Millisecond)
	b, err := os.ReadFile(r.Out)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyExport(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Chains) != 1 {
		t.Fatalf("%d chains", len(rep.Chains))
	}
	c := rep.Chains[0]
	seen := map[string]bool{}
	for _, h := range hashesIn(string(b)) {
		seen[h] = true
	}
	missing := 0
	for _, h := range want {
		if !seen[h] {
			missing++
		}
	}
	switch {
	case missing == 0 && !rep.OK():
		t.Fatalf("every record arrived, yet verify --export says %v", c.Problems)
	case missing > 0 && rep.OK():
		t.Fatalf("%d records never arrived, yet verify --export calls the copy whole", missing)
	}
	t.Logf("TLS copy: %d of %d records, %d duplicates, %d lost with connections the receiver was killed on; verify --export: %v", c.Records, len(want), c.Duplicates, missing, c.Problems)
}

// TestPendingBoundStopsReading: over TCP, lines written but not yet
// counted are bounded; at the bound the forwarder reads no more, says so,
// and goes on once they settle.
func TestPendingBoundStopsReading(t *testing.T) {
	ca := testrecv.NewCA(t)
	r := testrecv.StartRsyslog(t, ca)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 100)
	tg, _ := ParseTarget(fmt.Sprintf("tls://127.0.0.1:%d?ca=%s", r.TLS, ca.CAFile))
	var status lockedBuf
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Run(ctx, Config{Home: home, Target: tg, Once: true, Batch: 10, MaxPending: 30, Settle: 300 * time.Millisecond,
		Poll: 10 * time.Millisecond, Status: &status}); err != nil || ctx.Err() != nil {
		t.Fatalf("Run: %v %v\n%s", err, ctx.Err(), status.String())
	}
	if !strings.Contains(status.String(), "reading no more until they are") {
		t.Fatalf("the bound was never reported:\n%s", status.String())
	}
	want := chainHashes(t, home)
	waitFile(t, r.Out, want)
	requireCopy(t, r.Out, want, true)
	if c, _ := LoadCursor(home, tg); c.Pos.H != want[len(want)-1] || c.Shipped != int64(len(want)) {
		t.Fatalf("cursor %+v after --once; want the chain's end and %d shipped", c, len(want))
	}
}

// TestRELPRefusalIsNotConfirmation: a receiver that answers 500 confirms
// nothing; the batch is held and resent.
func TestRELPRefusalIsNotConfirmation(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var refused atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					n, cmd, _, err := readRELPFrame(br)
					if err != nil {
						return
					}
					answer := "200 OK"
					if cmd == "syslog" {
						refused.Add(1)
						answer = "500 queue full"
					}
					fmt.Fprintf(c, "%d rsp %d %s\n", n, len(answer), answer)
				}
			}()
		}
	}()
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 5)
	tg, _ := ParseTarget("relp://" + l.Addr().String())
	var status lockedBuf
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := Run(ctx, Config{Home: home, Target: tg, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, Status: &status}); err != nil {
		t.Fatal(err)
	}
	if c, _ := LoadCursor(home, tg); c.Pos.H != "" || c.Shipped != 0 {
		t.Fatalf("a refusing receiver moved the cursor: %+v", c)
	}
	if refused.Load() < 2 || !strings.Contains(status.String(), "500 queue full") {
		t.Fatalf("refused %d messages; status:\n%s", refused.Load(), status.String())
	}
}

func TestReadRELPFrame(t *testing.T) {
	for in, want := range map[string]string{
		"1 rsp 6 200 OK\n":                      "1 rsp 200 OK",
		"0 serverclose 0\n":                     "0 serverclose ",
		"12 rsp 14 200 OK\nabc=def\n":           "12 rsp 200 OK\nabc=def",
		"2 rsp 6 200 OKX":                       "error",
		"x rsp 6 200 OK\n":                      "error",
		"1 rsp 99999999999 x\n":                 "error",
		"1 rsp 3\n":                             "error",
		strings.Repeat("9", 40) + " rsp 0\n":    "error",
		"1 " + strings.Repeat("c", 40) + " 0\n": "error",
	} {
		n, cmd, data, err := readRELPFrame(bufio.NewReader(strings.NewReader(in)))
		got := fmt.Sprintf("%d %s %s", n, cmd, data)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("readRELPFrame(%q) = %q (%v), want %q", in, got, err, want)
		}
	}
}

// TestUDPToRsyslog: UDP promises nothing; on loopback, a small chain
// arrives whole.
func TestUDPToRsyslog(t *testing.T) {
	r := testrecv.StartRsyslog(t, nil)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 30)
	runOnce(t, home, fmt.Sprintf("udp://127.0.0.1:%d", r.UDP))
	want := chainHashes(t, home)
	waitFile(t, r.Out, want)
	requireCopy(t, r.Out, want, true)
}

func TestOTLPOverHTTPSWithATestCA(t *testing.T) {
	ca := testrecv.NewCA(t)
	r := testrecv.StartOTLPTLS(t, ca)
	home := filepath.Join(t.TempDir(), "airlock")
	appendRecords(t, home, 0, 20)
	runOnce(t, home, r.URL())
	want := chainHashes(t, home)
	requireCopy(t, r.Out, want, true)

	// a receiver whose certificate the CA did not sign confirms nothing
	other := testrecv.NewCA(t)
	tg, err := ParseTarget(strings.Replace(r.URL(), ca.CAFile, other.CAFile, 1))
	if err != nil {
		t.Fatal(err)
	}
	s, err := newOTLPSender(context.Background(), tg, 2*time.Second, "h", "c", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Send(context.Background(), []item{{beat: &Beat{}}}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an unknown CA: err %v, want a certificate error", err)
	}
}
