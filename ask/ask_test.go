package ask

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func shortHome(t *testing.T) string {
	t.Helper()
	// sun_path is ~104 bytes: keep the socket path short
	d, err := os.MkdirTemp("", "ask")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestNewReadsEnv(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []string
		backends string
		timeout  time.Duration
		remember time.Duration
		err      string
	}{
		{name: "defaults", backends: "socket,tty,desktop,fallback", timeout: 60 * time.Second, remember: 300 * time.Second},
		{name: "order kept", env: []string{"AIRLOCK_ASK_BACKEND", "desktop, socket"}, backends: "desktop,socket", timeout: time.Minute, remember: 5 * time.Minute},
		{name: "seconds", env: []string{"AIRLOCK_ASK_TIMEOUT", "5", "AIRLOCK_ASK_REMEMBER", "0"}, backends: defaultBackends, timeout: 5 * time.Second},
		{name: "duration", env: []string{"AIRLOCK_ASK_TIMEOUT", "1500ms"}, backends: defaultBackends, timeout: 1500 * time.Millisecond, remember: 5 * time.Minute},
		{name: "unknown backend", env: []string{"AIRLOCK_ASK_BACKEND", "socket,slack"}, err: `unknown backend "slack"`},
		{name: "zero timeout", env: []string{"AIRLOCK_ASK_TIMEOUT", "0"}, err: "AIRLOCK_ASK_TIMEOUT"},
		{name: "negative remember", env: []string{"AIRLOCK_ASK_REMEMBER", "-1"}, err: "AIRLOCK_ASK_REMEMBER"},
		{name: "words", env: []string{"AIRLOCK_ASK_TIMEOUT", "soon"}, err: "not a number of seconds"},
		{name: "NaN", env: []string{"AIRLOCK_ASK_TIMEOUT", "NaN"}, err: "not a number of seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(Options{Getenv: env(tc.env...)})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.Backends(), ","); got != tc.backends {
				t.Errorf("backends %q, want %q", got, tc.backends)
			}
			if c.timeout != tc.timeout || c.remember != tc.remember {
				t.Errorf("timeout %v remember %v, want %v %v", c.timeout, c.remember, tc.timeout, tc.remember)
			}
		})
	}
}

// fakeDesk is a person at a desktop dialog.
type fakeDesk struct {
	answer  Answer
	reached bool
	wait    time.Duration
	calls   atomic.Int32
	texts   []string
	mu      sync.Mutex
}

func (f *fakeDesk) run(ctx context.Context, title, text string, left time.Duration) (Answer, bool, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.texts = append(f.texts, text)
	f.mu.Unlock()
	if f.wait > 0 {
		select {
		case <-time.After(f.wait):
		case <-ctx.Done():
			return Fallback, true, nil
		}
	}
	return f.answer, f.reached, nil
}

func TestNoBackendFallsBack(t *testing.T) {
	home := shortHome(t)
	c, err := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback")})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Ask(context.Background(), Request{Tool: "t", Rule: "r", Shape: "s"})
	if out.Answer != Fallback || out.Asked != audit.AskedUnattended || !strings.Contains(out.Detail, "askd is not running") {
		t.Fatalf("%+v", out)
	}
	// without fallback in the list, nobody answering refuses
	c, _ = New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket")})
	out = c.Ask(context.Background(), Request{Tool: "t", Rule: "r"})
	if out.Answer != Deny || out.Asked != audit.AskedUnattended || !strings.Contains(out.Detail, "no fallback") {
		t.Fatalf("%+v", out)
	}
}

func TestAutomaticIsNeverHuman(t *testing.T) {
	c, _ := New(Options{Auto: true, Getenv: env()})
	out := c.Ask(context.Background(), Request{Tool: "t"})
	if out.Answer != Allow || out.Asked != audit.AskedAutomatic {
		t.Fatalf("%+v", out)
	}
}

func TestRememberedAnswers(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	for _, answer := range []Answer{Allow, Deny} {
		desk := &fakeDesk{answer: answer, reached: true}
		c, err := New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop,fallback", "AIRLOCK_ASK_REMEMBER", "300"), Now: clock, Desktop: desk.run})
		if err != nil {
			t.Fatal(err)
		}
		r := Request{Source: "mcp", Tool: "mcp__fs__write", Rule: "r", Shape: Shape("mcp", "fs", "mcp__fs__write", []byte(`{"path":"a"}`))}
		first := c.Ask(context.Background(), r)
		if first.Answer != answer || first.Asked != audit.AskedHuman {
			t.Fatalf("first %+v", first)
		}
		again := c.Ask(context.Background(), r)
		if again.Answer != answer || again.Asked != audit.AskedRemembered || desk.calls.Load() != 1 {
			t.Fatalf("retry %+v, %d prompts", again, desk.calls.Load())
		}
		// another shape is asked
		other := r
		other.Shape = Shape("mcp", "fs", "mcp__fs__write", []byte(`{"path":"b"}`))
		if out := c.Ask(context.Background(), other); out.Asked != audit.AskedHuman || desk.calls.Load() != 2 {
			t.Fatalf("other shape %+v", out)
		}
		// expiry
		now = now.Add(301 * time.Second)
		if out := c.Ask(context.Background(), r); out.Asked != audit.AskedHuman || desk.calls.Load() != 3 {
			t.Fatalf("after expiry %+v, %d prompts", out, desk.calls.Load())
		}
	}
	// 0 always asks
	desk := &fakeDesk{answer: Allow, reached: true}
	c, _ := New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop", "AIRLOCK_ASK_REMEMBER", "0"), Desktop: desk.run})
	r := Request{Tool: "t", Shape: "x"}
	c.Ask(context.Background(), r)
	c.Ask(context.Background(), r)
	if desk.calls.Load() != 2 {
		t.Fatalf("AIRLOCK_ASK_REMEMBER=0 prompted %d times, want 2", desk.calls.Load())
	}
	// a timeout is not remembered
	desk = &fakeDesk{reached: true, wait: time.Hour}
	c, _ = New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop,fallback", "AIRLOCK_ASK_TIMEOUT", "50ms"), Desktop: desk.run})
	for i := 0; i < 2; i++ {
		if out := c.Ask(context.Background(), r); out.Answer != Fallback || out.Asked != audit.AskedTimeout {
			t.Fatalf("%+v", out)
		}
	}
	if desk.calls.Load() != 2 {
		t.Fatalf("a timed-out ask was remembered")
	}
}

func TestConcurrentSameShapeOnePrompt(t *testing.T) {
	desk := &fakeDesk{answer: Allow, reached: true, wait: 100 * time.Millisecond}
	c, _ := New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop"), Desktop: desk.run})
	var wg sync.WaitGroup
	outs := make([]Outcome, 5)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = c.Ask(context.Background(), Request{Tool: "t", Shape: "same"})
		}()
	}
	wg.Wait()
	if desk.calls.Load() != 1 {
		t.Fatalf("%d prompts for one shape", desk.calls.Load())
	}
	humans := 0
	for _, o := range outs {
		if o.Answer != Allow {
			t.Fatalf("%+v", o)
		}
		if o.Asked == audit.AskedHuman {
			humans++
		}
	}
	if humans != 1 {
		t.Fatalf("%d outcomes say a person answered; one prompt was shown", humans)
	}
}

// The prompt: whatever the agent or the policy put in a string, the
// question has one line per field, each value quoted and escaped.
func TestHostileStringsCannotForgeThePrompt(t *testing.T) {
	hostile := "ok\"\n  rule    \"builtin-safe\"\nAllow this call? [y/N] y\r\x1b[2K\u202eevil\u200b"
	r := Request{Source: "mcp", Tool: hostile, Server: hostile, Target: hostile, Rule: hostile, Reason: hostile, Args: hostile}
	lines := Lines(r)
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, l := range lines[1:] {
		if strings.ContainsAny(l, "\n\r\x1b\u202e\u200b") {
			t.Errorf("line %d carries a raw control or invisible character: %q", i+1, l)
		}
		f := strings.Fields(l)
		v := strings.TrimSpace(strings.TrimPrefix(l, "  "+f[0]))
		if !strings.HasPrefix(v, `"`) || !strings.HasSuffix(v, `"`) {
			t.Errorf("value not quoted: %q", l)
		}
		inner := v[1 : len(v)-1]
		for j := 0; j < len(inner); j++ {
			if inner[j] == '\\' {
				j++
				continue
			}
			if inner[j] == '"' {
				t.Errorf("an unescaped quote ends the value early: %q", l)
			}
		}
	}
	if !strings.Contains(lines[2], `\u202e`) || !strings.Contains(lines[2], `\x1b`) || !strings.Contains(lines[2], `\n`) {
		t.Errorf("not made visible: %q", lines[2])
	}
	if w := word("../../etc\n"); !strings.HasPrefix(w, `"`) {
		t.Errorf("unknown source shown raw: %q", w)
	}
	long := quote(strings.Repeat("a", 5000))
	if len(long) > maxShown+40 || !strings.Contains(long, "more bytes") {
		t.Errorf("long value not cut: %d bytes", len(long))
	}
}

func FuzzLines(f *testing.F) {
	f.Add("mcp", "tool", "server", "/tmp/x", "rule", "reason")
	f.Add("x\n", "\x1b[31m", "\u202e", "\"\\", "\u2028", "\xff\xfe")
	f.Fuzz(func(t *testing.T, source, tool, server, target, rule, reason string) {
		lines := Lines(Request{Source: source, Tool: tool, Server: server, Target: target, Rule: rule, Reason: reason, Args: reason + target})
		want := 3
		for _, s := range []string{server, target, reason, reason + target} {
			if s != "" {
				want++
			}
		}
		if len(lines) != want {
			t.Fatalf("%d lines, want %d", len(lines), want)
		}
		for _, l := range lines {
			if textsafe.Escape(l) != strings.ReplaceAll(l, `\`, `\\`) {
				t.Fatalf("line needs escaping: %q", l)
			}
		}
	})
}

// daemon runs an askd on home whose person types what is written to the
// returned pipe; out collects what it shows.
type daemon struct {
	in   *io.PipeWriter
	out  *syncBuf
	done chan error
	stop context.CancelFunc
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startDaemon(t *testing.T, home string) *daemon {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemon{in: pw, out: &syncBuf{}, done: make(chan error, 1), stop: cancel}
	go func() { d.done <- (&Daemon{Home: home, In: pr, Out: d.out}).Serve(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if askdListening(home) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("askd did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Cleanup(func() {
		cancel()
		pw.Close()
		<-d.done
	})
	return d
}

// waitFor waits until the daemon has shown s.
func (d *daemon) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(d.out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("askd never showed %q; it showed:\n%s", s, d.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSocketDaemon(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	if useAbstract {
		// Linux: an abstract name, and no socket file a sandboxed
		// process could connect to
		if _, err := os.Lstat(SocketPath(home)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("askd made %s (%v); on Linux it listens on %s only", SocketPath(home), err, SocketAddress(home))
		}
	} else if fi, err := os.Lstat(SocketPath(home)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want 0600", fi.Mode(), err)
	}
	if err := (&Daemon{Home: home, In: strings.NewReader(""), Out: io.Discard}).Serve(context.Background()); err == nil || !strings.Contains(err.Error(), "already answering") {
		t.Fatalf("a second askd: %v", err)
	}
	// lines typed while no question is on the screen are read and
	// dropped; they must not wedge the daemon
	io.WriteString(d.in, "y\n\nhello\n")
	c, err := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback", "AIRLOCK_ASK_TIMEOUT", "400ms", "AIRLOCK_ASK_REMEMBER", "0")})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(target string) chan Outcome {
		ch := make(chan Outcome, 1)
		go func() {
			ch <- c.Ask(context.Background(), Request{Source: "mcp", Server: "fs", Tool: "mcp__fs__write_file", Target: target, Rule: "ask-writes", Reason: "writes are asked about", Shape: target})
		}()
		return ch
	}
	t.Run("allow", func(t *testing.T) {
		ch := ask("/w/allow.txt")
		d.waitFor(t, `"/w/allow.txt"`)
		d.waitFor(t, "Allow this call?")
		io.WriteString(d.in, "y\n")
		out := <-ch
		if out.Answer != Allow || out.Asked != audit.AskedHuman || !strings.Contains(out.Detail, "via socket") {
			t.Fatalf("%+v", out)
		}
		d.waitFor(t, "→ allowed")
	})
	t.Run("deny", func(t *testing.T) {
		ch := ask("/w/deny.txt")
		d.waitFor(t, `"/w/deny.txt"`)
		io.WriteString(d.in, "maybe\n")
		d.waitFor(t, "answer y or n")
		io.WriteString(d.in, "n\n")
		if out := <-ch; out.Answer != Deny || out.Asked != audit.AskedHuman {
			t.Fatalf("%+v", out)
		}
	})
	t.Run("late", func(t *testing.T) {
		ch := ask("/w/late.txt")
		d.waitFor(t, `"/w/late.txt"`)
		out := <-ch // nobody answers within 400ms
		if out.Answer != Fallback || out.Asked != audit.AskedTimeout {
			t.Fatalf("%+v", out)
		}
		d.waitFor(t, "no answer in time")
		// the answer typed now is not an approval of anything
		io.WriteString(d.in, "y\n")
		time.Sleep(50 * time.Millisecond)
		if strings.Count(d.out.String(), "→ allowed") != 1 {
			t.Fatalf("a late answer was taken:\n%s", d.out.String())
		}
		// and it does not answer the next question either
		ch = ask("/w/next.txt")
		d.waitFor(t, `"/w/next.txt"`)
		io.WriteString(d.in, "n\n")
		if out := <-ch; out.Answer != Deny {
			t.Fatalf("next question: %+v", out)
		}
	})
}

// A socket that is not private is not trusted to answer.
func TestSocketMustBePrivate(t *testing.T) {
	pathTransport(t)
	home := shortHome(t)
	ln, err := net.Listen("unix", SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(conn).ReadBytes('\n')
			b, _ := json.Marshal(wireReply{Answer: "allow"})
			conn.Write(append(b, '\n'))
			conn.Close()
		}
	}()
	if err := os.Chmod(SocketPath(home), 0o666); err != nil {
		t.Fatal(err)
	}
	c, _ := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback")})
	out := c.Ask(context.Background(), Request{Tool: "t"})
	if out.Answer != Fallback || !strings.Contains(out.Detail, "writable by others") {
		t.Fatalf("%+v", out)
	}
	// a regular file is not a daemon
	os.WriteFile(filepath.Join(shortHome(t), socketName), nil, 0o600)
}
