//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/sandbox"
)

// These tests run the built `airlock run` on the real kernel: Landlock,
// seccomp and the egress proxy, as a user gets them. Without Landlock
// network rules (ABI 4) they fail, unless AIRLOCK_KERNEL_TESTS=optional.

func runSbxNeedKernel(t *testing.T) {
	t.Helper()
	if r := sandbox.Probe(); r.ABI < 4 {
		if os.Getenv("AIRLOCK_KERNEL_TESTS") == "optional" {
			t.Skipf("the kernel offers Landlock ABI %d, airlock run's network rules need 4 (AIRLOCK_KERNEL_TESTS=optional)", r.ABI)
		}
		t.Fatalf("the kernel offers Landlock ABI %d; airlock run's network rules need 4 (set AIRLOCK_KERNEL_TESTS=optional to skip)", r.ABI)
	}
}

// runSbxEnv is a temporary home with a fake ~/.ssh, a repository to work
// in, its own TMPDIR (so the walk does not cover the machine's /tmp) and
// an Airlock home.
type runSbxEnv struct {
	root, home, ws, tmp, airlockHome string
	env                              []string
}

func newRunSbxEnv(t *testing.T) *runSbxEnv {
	t.Helper()
	root := t.TempDir()
	e := &runSbxEnv{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	e.ws = filepath.Join(e.home, "proj")
	e.airlockHome = filepath.Join(e.home, ".airlock")
	for _, d := range []string{filepath.Join(e.ws, ".git"), filepath.Join(e.home, ".ssh"), e.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.home, ".ssh", "id_ed25519"), []byte("FAKE PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "USER=dev", "LANG=C",
		"AIRLOCK_HOME=" + e.airlockHome, "TMPDIR=" + e.tmp}
	return e
}

func (e *runSbxEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "airlock"), args...)
	cmd.Dir, cmd.Env = e.ws, e.env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (e *runSbxEnv) run(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("airlock %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("airlock %s: timed out\nstdout: %s\nstderr: %s", strings.Join(args, " "), out.String(), errb.String())
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// records is the audit log, parsed.
func (e *runSbxEnv) records(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.airlockHome, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// runSbxEgress is the one egress decision record for target.
func runSbxEgress(t *testing.T, recs []map[string]any, target string) map[string]any {
	t.Helper()
	return runSbxOne(t, recs, "egress", target)
}

// runSbxOne is the one record of event for target.
func runSbxOne(t *testing.T, recs []map[string]any, event, target string) map[string]any {
	t.Helper()
	var found map[string]any
	for _, r := range recs {
		if r["event"] == event && r["target"] == target {
			if found != nil {
				t.Errorf("two %s records for %s", event, target)
			}
			found = r
		}
	}
	if found == nil {
		t.Fatalf("no %s record for %s", event, target)
	}
	return found
}

// runSbxNone checks that target has no record of event.
func runSbxNone(t *testing.T, recs []map[string]any, event, target string) {
	t.Helper()
	for _, r := range recs {
		if r["event"] == event && r["target"] == target {
			t.Errorf("a %s record for %s: %v", event, target, r)
		}
	}
}

var runSbxBytes = regexp.MustCompile(`bytes_in=(\d+) bytes_out=(\d+)`)

// runSbxMoved is what an egress record says moved.
func runSbxMoved(t *testing.T, r map[string]any) (in, out int) {
	t.Helper()
	d, _ := r["detail"].(string)
	m := runSbxBytes.FindStringSubmatch(d)
	if m == nil {
		t.Fatalf("egress record without bytes: %q", d)
	}
	in, _ = strconv.Atoi(m[1])
	out, _ = strconv.Atoi(m[2])
	return in, out
}

// An HTTP client the sandboxed command runs: curl when there is one, and
// always a small Go program that takes its proxy from HTTP_PROXY (Go's own
// ProxyFromEnvironment never proxies loopback, which is what the test
// serves on). Both print the body whatever the status, exit 7 when they
// cannot connect, and with -direct ignore the proxy.
type runSbxClient struct {
	name string
	args func(url string, direct bool) []string
}

const runSbxClientSrc = `package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

func main() {
	direct := len(os.Args) > 2 && os.Args[1] == "-direct"
	target := os.Args[len(os.Args)-1]
	tr := &http.Transport{}
	if !direct {
		tr.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse(os.Getenv("HTTP_PROXY")) }
	}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.Get(target)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(7)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(os.Stdout, resp.Body)
}
`

var (
	runSbxClientOnce sync.Once
	runSbxClientBin  string
	runSbxClientErr  error
)

func runSbxClients(t *testing.T, e *runSbxEnv) []runSbxClient {
	t.Helper()
	runSbxClientOnce.Do(func() {
		src := filepath.Join(bin, "sbxclient.go")
		if runSbxClientErr = os.WriteFile(src, []byte(runSbxClientSrc), 0o600); runSbxClientErr != nil {
			return
		}
		out := filepath.Join(bin, "sbxclient")
		build := exec.Command("go", "build", "-trimpath", "-o", out, src)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			runSbxClientErr = fmt.Errorf("build the Go client: %v\n%s", err, b)
			return
		}
		runSbxClientBin = out
	})
	if runSbxClientErr != nil {
		t.Fatal(runSbxClientErr)
	}
	// The sandbox grants execute in the workspace, not in the test's bin.
	b, err := os.ReadFile(runSbxClientBin)
	if err != nil {
		t.Fatal(err)
	}
	goClient := filepath.Join(e.ws, "sbxclient")
	if err := os.WriteFile(goClient, b, 0o700); err != nil {
		t.Fatal(err)
	}
	cs := []runSbxClient{{name: "go", args: func(url string, direct bool) []string {
		if direct {
			return []string{goClient, "-direct", url}
		}
		return []string{goClient, url}
	}}}
	if curl, err := exec.LookPath("curl"); err == nil {
		cs = append(cs, runSbxClient{name: "curl", args: func(url string, direct bool) []string {
			a := []string{curl, "-sS", "-m", "10"}
			if direct {
				a = append(a, "--noproxy", "*")
			}
			return append(a, url)
		}})
	}
	return cs
}

// runSbxOneLineBanner is airlock run's banner without -v: the first line
// of stderr, and the only one of airlock run's before the command's.
var runSbxOneLineBanner = regexp.MustCompile(`\Aairlock run: sandboxed \(Landlock ABI \d+, seccomp, egress proxy\) — \d+ not enforced: airlock run -v\n`)

// TestSandboxRunEgress: through the proxy an allowed host is reached, a
// forbidden one gets the proxy's refusal, and both are in the audit chain
// with what they moved; a connect that bypasses the proxy is refused by
// the kernel and reaches nothing.
func TestSandboxRunEgress(t *testing.T) {
	runSbxNeedKernel(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintln(w, "hello from the allowed host")
	}))
	defer srv.Close()
	target := strings.TrimPrefix(srv.URL, "http://")

	names := []string{"go"}
	if _, err := exec.LookPath("curl"); err == nil {
		names = append(names, "curl")
	} else {
		t.Logf("no curl on PATH: the Go client alone")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			e := newRunSbxEnv(t)
			var cl runSbxClient
			for _, c := range runSbxClients(t, e) {
				if c.name == name {
					cl = c
				}
			}
			before := hits.Load()

			// (a) allowed: the default policy lets a fetch of a loopback
			// http:// URL through (no rule matches; default allow), and the
			// proxy's cleartext rule spares loopback.
			// -v: the banner lists the rules and every gap
			r := e.run(t, append([]string{"run", "-v", "--"}, cl.args(srv.URL+"/ok", false)...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "hello from the allowed host") {
				t.Fatalf("allowed host: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			for _, w := range []string{"airlock run: sandboxed (Landlock ABI", ", seccomp, egress proxy) — ", " not enforced, listed below\n",
				"egress:   proxy on", "network:  TCP connect only to port", "    - port rules carry no address"} {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("banner (-v) lacks %q:\n%s", w, r.stderr)
				}
			}
			if hits.Load() != before+1 {
				t.Fatalf("the allowed host saw %d requests, want 1", hits.Load()-before)
			}

			// (a) forbidden: cloud metadata, refused by name before any
			// connection, with the proxy's own answer.
			r = e.run(t, append([]string{"run", "--"}, cl.args("http://169.254.169.254/latest/meta-data/", false)...)...)
			if !strings.Contains(r.stdout, "Airlock blocked this connection: 169.254.169.254: net.cloud-metadata") {
				t.Fatalf("metadata: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			// without -v: one line, the gaps counted, not listed
			if !runSbxOneLineBanner.MatchString(r.stderr) || strings.Contains(r.stderr, "  network:") {
				t.Errorf("banner without -v is not one line naming what is enforced and the count of gaps:\n%s", r.stderr)
			}
			// and an exfiltration collector over HTTPS: the CONNECT is refused
			r = e.run(t, append([]string{"run", "--"}, cl.args("https://webhook.site/abc", false)...)...)
			if r.code == 0 || !(strings.Contains(r.stderr, "403") || strings.Contains(r.stderr, "Forbidden")) {
				t.Fatalf("webhook.site: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}

			recs := e.records(t)
			ok := runSbxEgress(t, recs, target)
			if ok["effective"] != "allow" || ok["source"] != "sandbox" || ok["tool"] != "GET" {
				t.Errorf("allowed record: %v", ok)
			}
			// the decision is recorded before the connection, its end after
			end := runSbxOne(t, recs, "egress_end", target)
			if in, out := runSbxMoved(t, end); in == 0 || out == 0 || end["effective"] != "allow" {
				t.Errorf("allowed connection's end moved in=%d out=%d: %v", in, out, end)
			}
			md := runSbxEgress(t, recs, "169.254.169.254:80")
			if md["effective"] != "block" || md["rule"] != "net.cloud-metadata" || !strings.Contains(md["detail"].(string), "status=403") {
				t.Errorf("metadata record: %v", md)
			}
			runSbxNone(t, recs, "egress_end", "169.254.169.254:80") // refused: nothing moved, no end
			wh := runSbxEgress(t, recs, "webhook.site:443")
			if wh["effective"] != "block" || wh["rule"] != "net.exfil-collector" || wh["tool"] != "CONNECT" {
				t.Errorf("webhook.site record: %v", wh)
			}
			runSbxNone(t, recs, "egress_end", "webhook.site:443")

			// (b) around the proxy: Landlock lets TCP connect only to the
			// proxy's port, so the direct connect fails and the host sees
			// nothing; the proxy records nothing either.
			before = hits.Load()
			egressBefore := runSbxCount(recs, "egress")
			r = e.run(t, append([]string{"run", "--"}, cl.args(srv.URL+"/direct", true)...)...)
			if r.code != 7 || strings.Contains(r.stdout, "hello") {
				t.Fatalf("direct connect: exit %d (want 7, cannot connect)\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if hits.Load() != before {
				t.Fatalf("the direct connect reached the host")
			}
			if n := runSbxCount(e.records(t), "egress"); n != egressBefore {
				t.Errorf("the direct connect left %d egress records", n-egressBefore)
			}
			// the same connect outside the sandbox works: the refusal is the kernel's
			direct := exec.Command(cl.args(srv.URL+"/direct", true)[0], cl.args(srv.URL+"/direct", true)[1:]...)
			if out, err := direct.CombinedOutput(); err != nil || !strings.Contains(string(out), "hello") {
				t.Fatalf("the direct connect outside the sandbox: %v\n%s", err, out)
			}

			if r := e.run(t, "verify"); r.code != 0 {
				t.Fatalf("airlock verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func runSbxCount(recs []map[string]any, event string) int {
	n := 0
	for _, r := range recs {
		if r["event"] == event {
			n++
		}
	}
	return n
}

// TestSandboxRunExitAndSignals: the child's exit status is airlock run's,
// a signal that ends the child comes back as 128+signal, and SIGTERM sent
// to airlock run reaches the child.
func TestSandboxRunExitAndSignals(t *testing.T) {
	runSbxNeedKernel(t)
	e := newRunSbxEnv(t)

	if r := e.run(t, "run", "--no-egress-proxy", "--", "sh", "-c", "exit 7"); r.code != 7 {
		t.Fatalf("exit 7 came back as %d\n%s", r.code, r.stderr)
	}
	if r := e.run(t, "run", "--no-egress-proxy", "--", "sh", "-c", "kill -KILL $$"); r.code != 128+9 {
		t.Fatalf("SIGKILL came back as %d, want 137\n%s", r.code, r.stderr)
	}
	if r := e.run(t, "run", "--", "true"); r.code != 0 {
		t.Fatalf("true: exit %d\n%s", r.code, r.stderr)
	}

	// SIGTERM to airlock run: the child traps it and says so
	code, out := runSbxTerm(t, e, `trap 'echo got-term; exit 42' TERM; echo ready; while :; do sleep 0.05; done`)
	if code != 42 || !strings.Contains(out, "got-term") {
		t.Fatalf("trapped SIGTERM: exit %d, stdout %q", code, out)
	}
	// a child that does not trap it dies of it: 128+15
	code, out = runSbxTerm(t, e, `echo ready; exec sleep 30`)
	if code != 128+15 {
		t.Fatalf("untrapped SIGTERM: exit %d, stdout %q", code, out)
	}

	var ends []string
	for _, r := range e.records(t) {
		if r["event"] == "sandbox_end" {
			ends = append(ends, fmt.Sprint(r["effective"]))
		}
	}
	if want := []string{"exit 7", "exit 137", "exit 0", "exit 42", "exit 143"}; strings.Join(ends, ",") != strings.Join(want, ",") {
		t.Errorf("sandbox_end records %q, want %q", ends, want)
	}
	if r := e.run(t, "verify"); r.code != 0 {
		t.Fatalf("airlock verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// runSbxTerm starts airlock run -- sh -c script, waits for "ready", sends
// SIGTERM to airlock run alone (not its group) and returns the exit status
// and the child's output.
func runSbxTerm(t *testing.T, e *runSbxEnv, script string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, "run", "--no-egress-proxy", "--", "sh", "-c", script)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(pipe)
	line, err := rd.ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the child did not start: %q %v\n%s", line, err, errb.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(rd)
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("airlock run did not end after SIGTERM\n%s", errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(rest)
}
