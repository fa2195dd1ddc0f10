package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain doubles as the child of the pseudo-terminal tests: a process
// whose controlling terminal is the pty asks once through the tty backend
// and prints the outcome as JSON.
func TestMain(m *testing.M) {
	if os.Getenv("AIRLOCK_ASK_TTY_CHILD") == "1" {
		if os.Getenv("AIRLOCK_ASK_TTY_HOLD") == "1" {
			// hold the prompt, question shown, until the answer typed on
			// seeing it is in the terminal's input queue: what a person
			// typing at once does on a busy machine
			questionShown = waitForInput
		}
		c, err := New(Options{Getenv: os.Getenv})
		if err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		out := c.Ask(context.Background(), Request{Source: "mcp", Server: "fs", Tool: "mcp__fs__write_file",
			Target: "/w/notes.txt", Rule: "ask-writes", Reason: "reason with\nAllow this call? [y/N] y"})
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// waitForInput waits until a whole line waits in f's input queue, polling
// (the typist is another process) for at most 10 s.
func waitForInput(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		n := 0
		_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
		if n > 0 {
			return
		}
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// ttyHold makes runTTYChild's child hold its prompt, once the question
// is shown, until the answer is in the terminal's input queue.
var ttyHold bool

type ttyRun struct {
	mu     sync.Mutex
	screen bytes.Buffer
}

func (r *ttyRun) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.String()
}

// runTTYChild runs TestMain's tty child on a fresh pty: before is typed
// before the child starts (type-ahead), after is typed once the question
// is on the screen; raw puts the terminal in raw mode first, as a
// full-screen agent does.
func runTTYChild(t *testing.T, timeout, before, after string, raw ...bool) (Outcome, string) {
	t.Helper()
	m, s := openPTY(t)
	defer m.Close()
	if len(raw) > 0 && raw[0] {
		tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		tio.Lflag &^= unix.ICANON | unix.ECHO
		if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
			t.Fatal(err)
		}
	}
	if before != "" {
		if _, err := io.WriteString(m, before); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AIRLOCK_ASK_TTY_CHILD=1", "AIRLOCK_ASK_BACKEND=tty,fallback", "AIRLOCK_ASK_TIMEOUT="+timeout)
	if ttyHold {
		cmd.Env = append(cmd.Env, "AIRLOCK_ASK_TTY_HOLD=1")
	}
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, &stdout, &stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	run := &ttyRun{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			run.mu.Lock()
			run.screen.Write(buf[:n])
			run.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if after != "" {
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(run.text(), "Allow this call?") {
			if time.Now().After(deadline) {
				t.Fatalf("no question on the terminal; it shows:\n%s", run.text())
			}
			time.Sleep(10 * time.Millisecond)
		}
		io.WriteString(m, after)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stdout.String())
	}
	var out Outcome
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); err != nil {
		t.Fatalf("child said %q: %v", stdout.String(), err)
	}
	m.Close()
	<-copied
	return out, run.text()
}

// TestTTYAnswerTypedAsTheQuestionShowsCounts: the prompt drops type-ahead
// before it shows the question, never after, so an answer typed the moment
// the question is on the screen is read. The child holds between showing
// the question and reading until the "y" has reached the terminal: had it
// flushed the input there, the answer would be gone and the call would
// wait out its timeout (TestTTYPrompt/yes failed so under load).
func TestTTYAnswerTypedAsTheQuestionShowsCounts(t *testing.T) {
	ttyHold = true
	defer func() { ttyHold = false }()
	out, screen := runTTYChild(t, "10s", "", "y\n")
	if out.Answer != Allow || out.Asked != "human" {
		t.Fatalf("outcome %+v, want the y typed on seeing the question\nterminal:\n%s", out, screen)
	}
}

func TestTTYPrompt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typed   string // typed once the question is shown; "" types nothing
		raw     bool   // the terminal is in raw mode, as under a full-screen agent
		timeout string
		answer  Answer
		asked   string
		detail  string
	}{
		{name: "yes", typed: "y\n", answer: Allow, asked: "human", detail: "via tty"},
		{name: "no", typed: "no\n", answer: Deny, asked: "human"},
		{name: "enter is no", typed: "\n", answer: Deny, asked: "human"},
		{name: "no answer", timeout: "300ms", answer: Fallback, asked: "timeout"},
		{name: "raw mode is left alone", raw: true, answer: Fallback, asked: "unattended", detail: "raw mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == "" {
				timeout = "10s"
			}
			out, screen := runTTYChild(t, timeout, "", tc.typed, tc.raw)
			if out.Answer != tc.answer || out.Asked != tc.asked || !strings.Contains(out.Detail, tc.detail) {
				t.Fatalf("outcome %+v, want %v %s …%s…\nterminal:\n%s", out, tc.answer, tc.asked, tc.detail, screen)
			}
			if tc.raw {
				if screen != "" {
					t.Fatalf("a raw-mode terminal was written to: %q", screen)
				}
				return
			}
			// the reason's forged question stays inside its quotes: one line
			// of the screen asks, and the reason shows its newline as \n
			asks := 0
			for _, l := range strings.Split(screen, "\n") {
				if strings.HasPrefix(strings.TrimLeft(l, "\r"), "Allow this call?") {
					asks++
				}
			}
			if asks != 1 || !strings.Contains(screen, `  reason  "reason with\nAllow this call? [y/N] y"`) {
				t.Fatalf("%d lines ask; the reason was not shown escaped:\n%s", asks, screen)
			}
		})
	}
}
