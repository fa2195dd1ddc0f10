package ask

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// askdListening says whether askd's socket is bound, without connecting
// (a connection that sends no hello is logged as refused).
func askdListening(home string) bool {
	if !useAbstract {
		fi, err := os.Lstat(SocketPath(home))
		return err == nil && fi.Mode()&os.ModeSocket != 0
	}
	b, err := os.ReadFile("/proc/net/unix")
	return err == nil && strings.Contains(string(b), " "+SocketAddress(home)+"\n")
}

// pathTransport runs a test on askd.sock in the home, askd's transport on
// macOS and Windows.
func pathTransport(t *testing.T) {
	t.Helper()
	old := useAbstract
	useAbstract = false
	t.Cleanup(func() { useAbstract = old })
}

// rawCaller speaks askd's wire by hand, as a forger would.
type rawCaller struct {
	conn net.Conn
	rd   *bufio.Reader
}

func dialRaw(t *testing.T, home string) *rawCaller {
	t.Helper()
	conn, err := net.Dial("unix", SocketAddress(home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	return &rawCaller{conn: conn, rd: bufio.NewReader(conn)}
}

func (r *rawCaller) send(t *testing.T, line string) {
	t.Helper()
	if _, err := r.conn.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

func (r *rawCaller) read(t *testing.T, v any) {
	t.Helper()
	line, err := r.rd.ReadBytes('\n')
	if err != nil {
		t.Fatalf("askd closed without a line: %v", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		t.Fatalf("askd sent %q: %v", line, err)
	}
}

func questionBody(t *testing.T, target string) []byte {
	t.Helper()
	b, err := json.Marshal(wireRequest{V: wireVersion, Source: "mcp", Tool: "mcp__fs__write_file", Target: target, Rule: "ask-writes", TimeoutMS: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantRefused reads askd's refusal and checks the question never reached
// the screen.
func wantRefused(t *testing.T, d *daemon, r *rawCaller, target string) {
	t.Helper()
	var w wireReply
	r.read(t, &w)
	if w.Answer != "refused" {
		t.Fatalf("askd answered %+v to a question without valid proof; want refused", w)
	}
	d.waitFor(t, "refused a question from ")
	if s := d.out.String(); strings.Contains(s, target) {
		t.Fatalf("a question without valid proof reached the screen:\n%s", s)
	}
}

func TestAskdRefusesQuestionWithoutProof(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	t.Run("the old wire, no hello", func(t *testing.T) {
		r := dialRaw(t, home)
		b, _ := json.Marshal(map[string]any{"v": 1, "source": "mcp", "tool": "t", "target": "/forged/v1", "rule": "r", "timeout_ms": 3000})
		r.send(t, string(b))
		wantRefused(t, d, r, "/forged/v1")
	})
	for _, tc := range []struct{ name, mac string }{
		{"no mac", ""},
		{"a made-up mac", strings.Repeat("ab", 32)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dialRaw(t, home)
			r.send(t, `{"v":2,"hello":"`+strings.Repeat("0", nonceHex)+`"}`)
			var ch wireChallenge
			r.read(t, &ch)
			target := "/forged/" + strings.ReplaceAll(tc.name, " ", "-")
			b, _ := json.Marshal(wireQuestion{Question: questionBody(t, target), MAC: tc.mac})
			r.send(t, string(b))
			wantRefused(t, d, r, target)
		})
	}
	if strings.Contains(d.out.String(), "Allow this call?") {
		t.Fatalf("askd showed a question:\n%s", d.out.String())
	}
}

// A question MACed for one connection is refused on another: askd's
// challenge is new each time.
func TestAskdRefusesReplayedQuestion(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	key, err := loadKey(home)
	if err != nil {
		t.Fatal(err)
	}
	hello := strings.Repeat("1", nonceHex)
	first := dialRaw(t, home)
	first.send(t, `{"v":2,"hello":"`+hello+`"}`)
	var ch wireChallenge
	first.read(t, &ch)
	if !verify(key, ch.Proof, macHello, []byte(hello), []byte(ch.Challenge)) {
		t.Fatalf("askd's hello carries no valid proof: %+v", ch)
	}
	body := questionBody(t, "/once")
	line, _ := json.Marshal(wireQuestion{Question: body, MAC: sum(key, macQuestion, []byte(hello), []byte(ch.Challenge), body)})
	first.send(t, string(line))
	d.waitFor(t, "Allow this call?")
	d.in.Write([]byte("n\n"))
	var w wireReply
	first.read(t, &w)
	if w.Answer != "deny" || !verify(key, w.MAC, macAnswer, []byte(hello), []byte(ch.Challenge), []byte("deny")) {
		t.Fatalf("askd's answer %+v is not a MACed deny", w)
	}

	again := dialRaw(t, home)
	again.send(t, `{"v":2,"hello":"`+hello+`"}`)
	var ch2 wireChallenge
	again.read(t, &ch2)
	if ch2.Challenge == ch.Challenge {
		t.Fatalf("askd gave the same challenge twice: %s", ch.Challenge)
	}
	again.send(t, string(line))
	var w2 wireReply
	again.read(t, &w2)
	if w2.Answer != "refused" {
		t.Fatalf("a replayed question was answered %+v; want refused", w2)
	}
	d.waitFor(t, "refused a question from ")
	if n := strings.Count(d.out.String(), "Allow this call?"); n != 1 {
		t.Fatalf("askd showed %d questions, want 1 (the replay is never shown):\n%s", n, d.out.String())
	}
}

// A process that took askd's name (a sandboxed one can bind it while
// askd is not running) gets no question and its answer counts for
// nothing; askd refuses to start behind it.
func TestAskdImpostorIsNotUsed(t *testing.T) {
	home := shortHome(t)
	ln, err := net.Listen("unix", SocketAddress(home))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			rd := bufio.NewReader(conn)
			line, _ := rd.ReadBytes('\n')
			conn.Write([]byte(`{"challenge":"` + strings.Repeat("2", nonceHex) + `","proof":"` + strings.Repeat("cd", 32) + `"}` + "\n"))
			q, _ := rd.ReadBytes('\n')
			got <- string(line) + string(q)
			conn.Write([]byte(`{"answer":"allow"}` + "\n"))
			conn.Close()
		}
	}()
	c, err := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback", "AIRLOCK_ASK_TIMEOUT", "2s")})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Target: "/secret/plan", Rule: "r"})
	if out.Answer == Allow || !strings.Contains(out.Detail, "did not prove it is this user's airlock askd") {
		t.Fatalf("an impostor's listener was used: %+v", out)
	}
	if s := <-got; strings.Contains(s, "/secret/plan") {
		t.Fatalf("the impostor was told the question: %s", s)
	}
	err = (&Daemon{Home: home, In: strings.NewReader(""), Out: &syncBuf{}}).Serve(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not this user's airlock askd") {
		t.Fatalf("askd behind an impostor: %v", err)
	}
}

// An answer without askd's MAC is not an answer, even from a listener
// that passed the hello (here: the real askd's hello relayed).
func TestAskdAnswerMustCarryProof(t *testing.T) {
	home := shortHome(t)
	key, err := loadKey(home)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", SocketAddress(home))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		rd := bufio.NewReader(conn)
		line, _ := rd.ReadBytes('\n')
		var h wireHello
		json.Unmarshal(line, &h)
		chall := strings.Repeat("3", nonceHex)
		b, _ := json.Marshal(wireChallenge{Challenge: chall, Proof: sum(key, macHello, []byte(h.Hello), []byte(chall))})
		conn.Write(append(b, '\n'))
		rd.ReadBytes('\n')
		conn.Write([]byte(`{"answer":"allow","mac":"` + strings.Repeat("ef", 32) + `"}` + "\n"))
	}()
	c, _ := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback", "AIRLOCK_ASK_TIMEOUT", "2s")})
	out := c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Rule: "r"})
	if out.Answer == Allow || !strings.Contains(out.Detail, "without askd's proof") {
		t.Fatalf("an answer without askd's MAC was taken: %+v", out)
	}
}

func TestAskdKeyIsPrivate(t *testing.T) {
	home := shortHome(t)
	key, err := loadKey(home)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(KeyPath(home))
	if err != nil || fi.Mode().Perm() != 0o600 || len(key) != keySize {
		t.Fatalf("askd.key: %v %v, %d bytes; want a 0600 file of %d", fi.Mode(), err, len(key), keySize)
	}
	again, err := loadKey(home)
	if err != nil || string(again) != string(key) {
		t.Fatalf("a second load made another key (%v)", err)
	}
	if err := os.Chmod(KeyPath(home), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKey(home); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a key others can read was used: %v", err)
	}
}

// airlock doctor's check (connect, hello, hang up) is not a refused
// question: nothing is logged, nothing recorded.
func TestAskdProbeIsNotARefusal(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	c, _ := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket")})
	for _, p := range c.Probe() {
		if p.Backend == "socket" && !p.Ready {
			t.Fatalf("probe: %+v", p)
		}
	}
	// and a connection that says nothing at all
	conn, err := net.Dial("unix", SocketAddress(home))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// a refusal after them proves they were handled and not refused
	r := dialRaw(t, home)
	r.send(t, `{"v":1}`)
	wantRefused(t, d, r, "/none")
	if n := strings.Count(d.out.String(), "refused a question"); n != 1 {
		t.Fatalf("%d refusals logged, want 1 (the probe and the silent connection are not questions):\n%s", n, d.out.String())
	}
}
