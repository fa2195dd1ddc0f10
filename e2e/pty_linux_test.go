//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentairlock/airlock/internal/corpus"
)

// A coding agent runs commands on a pseudo-terminal that answers no
// query: nothing replies to a colour (OSC 11), cursor-position (DSR) or
// device-attributes (DA) request. A command that sends one either waits
// for a reply that never comes or, with a timeout, stalls every run by it;
// and the query itself lands as garbage in the agent's transcript. These
// tests run the built binaries on such a terminal (Linux: /dev/ptmx).

// silentPTY is a pseudo-terminal whose master is only ever read.
type silentPTY struct {
	master *os.File
	slave  *os.File
	out    chan []byte // everything read from the master, once the slave side is closed
}

// openSilentPTY opens a 120x40 pty. The master is non-blocking, so reads
// honour a deadline.
func openSilentPTY(t *testing.T) *silentPTY {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Fatalf("pty number: %v", err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		master.Close()
		t.Fatalf("pty size: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatalf("open the pty's slave: %v", err)
	}
	p := &silentPTY{master: master, slave: slave, out: make(chan []byte, 1)}
	t.Cleanup(func() { p.master.Close(); p.slave.Close() })
	return p
}

// start runs the command with the slave as its controlling terminal and
// stdout and stderr, and stdin unless the command has one, and starts
// reading the master.
func (p *silentPTY) start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	ctty := 0 // the child's descriptor that is the terminal
	if cmd.Stdin == nil {
		cmd.Stdin = p.slave
	} else {
		ctty = 1
	}
	cmd.Stdout, cmd.Stderr = p.slave, p.slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	// only the child holds the slave now: when it is gone, reading the
	// master ends with EIO
	p.slave.Close()
	go func() {
		var all bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := p.master.Read(buf)
			all.Write(buf[:n])
			if err != nil {
				p.out <- all.Bytes()
				return
			}
		}
	}()
}

// ptyGuard bounds a run only so that a hung child fails the test instead
// of the whole package: it is far above any real run and asserts nothing
// about speed.
const ptyGuard = 60 * time.Second

// wait waits for the child to exit and for its output, failing after the
// guard.
func (p *silentPTY) wait(t *testing.T, cmd *exec.Cmd) (code int, out []byte) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			t.Fatalf("wait %s: %v", cmd.Path, err)
		}
	case <-time.After(ptyGuard):
		_ = cmd.Process.Kill()
		<-done
		_ = p.master.SetReadDeadline(time.Now())
		t.Fatalf("%s did not finish on a terminal that answers nothing; it wrote:\n%q", strings.Join(cmd.Args, " "), <-p.out)
	}
	// a grandchild could keep the slave open: do not wait for it forever
	_ = p.master.SetReadDeadline(time.Now().Add(ptyGuard))
	return code, <-p.out
}

// terminalQueries lists the control sequences in out that ask the
// terminal for a reply: every OSC (colour queries are OSC 10/11/12 with
// "?"; a program that needs none sends none), DCS, APC and PM string,
// DECID, and the CSI requests DSR (n), DA (c), DECRQM ($p), XTVERSION (>q),
// the kitty keyboard query (?u) and XTWINOPS reports (t 11-21). C1 forms
// (U+009B, U+009D, ...) count as their ESC forms.
func terminalQueries(out []byte) []string {
	s := strings.NewReplacer("\u009b", "\x1b[", "\u009d", "\x1b]", "\u0090", "\x1bP", "\u009f", "\x1b_", "\u009e", "\x1b^").Replace(string(out))
	var found []string
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			continue
		}
		switch s[i+1] {
		case ']', 'P', '_', '^':
			end := i + 2
			for end < len(s) && s[end] != 0x07 && !(s[end] == 0x1b && end+1 < len(s) && s[end+1] == '\\') {
				end++
			}
			stop := end + 1 // past BEL
			if end < len(s) && s[end] == 0x1b {
				stop = end + 2 // past ESC \
			}
			found = append(found, s[i:min(stop, len(s))])
			i = stop - 1
		case 'Z':
			found = append(found, s[i:i+2])
		case '[':
			j := i + 2
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			params := s[i+2 : j]
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			inter := s[i+2+len(params) : j]
			if j >= len(s) {
				break
			}
			final := s[j]
			seq := s[i : j+1]
			first, _, _ := strings.Cut(strings.TrimLeft(params, "?>=<"), ";")
			switch {
			case final == 'n', final == 'c',
				final == 'p' && inter == "$",
				final == 'q' && strings.HasPrefix(params, ">"),
				final == 'u' && params == "?",
				final == 't' && len(first) == 2 && first >= "11" && first <= "21":
				found = append(found, seq)
			}
			i = j
		}
	}
	return found
}

func TestTerminalQueriesFindsTheProbes(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"plain text\r\n\x1b[1mbold\x1b[0m \x1b[31mred\x1b[m", nil},
		{"\x1b]11;?\x1b\\\x1b[6n", []string{"\x1b]11;?\x1b\\", "\x1b[6n"}},
		{"\x1b]10;?\x07", []string{"\x1b]10;?\x07"}},
		{"\x1b[c\x1b[0c\x1b[>c", []string{"\x1b[c", "\x1b[0c", "\x1b[>c"}},
		{"\x1b[?2026$p\x1b[?u\x1b[>0q\x1b[14t\x1b[8;40;120t", []string{"\x1b[?2026$p", "\x1b[?u", "\x1b[>0q", "\x1b[14t"}},
		{"\x1bP+q544e\x1b\\\x1bZ", []string{"\x1bP+q544e\x1b\\", "\x1bZ"}},
		{"\u009b6n", []string{"\x1b[6n"}},
		{"\x1b[?1049h\x1b[?25l\x1b[2J\x1b[H", nil}, // the alternate screen: no reply expected
	}
	for _, tt := range tests {
		if got := terminalQueries([]byte(tt.out)); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("terminalQueries(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// ptyEnv is the fixture's environment on a terminal that says it is an
// xterm, as an agent's terminal does.
func ptyEnv(fx corpus.Fixture) []string {
	return append(fx.Env(), "TERM=xterm-256color", "COLORTERM=truecolor")
}

// TestCommandsDoNotProbeASilentTerminal runs everyday commands on a
// terminal that never answers: each must finish and write no query.
// bubbletea v1 (linked for the monitor) queried the background colour in
// its package init, in every airlock process, and waited for termenv's
// five-second timeout.
func TestCommandsDoNotProbeASilentTerminal(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := ptyEnv(fx)
	decide := run(t, env, event(t, "Bash", `{"command":"ls -la"}`, fx.WS), "airlock-hook") // something for log to show
	if decide.code != 0 {
		t.Fatalf("airlock-hook: exit %d\n%s", decide.code, decide.stderr)
	}
	block := event(t, "Read", `{"file_path":"~/.ssh/id_rsa"}`, fx.WS)
	tests := []struct {
		name  string
		args  []string
		stdin []byte // the hook reads its event; the terminal is its stdout and stderr
	}{
		{"airlock", []string{"--version"}, nil},
		{"airlock", []string{"check", "--tool", "Bash", "--input", `{"command":"ls"}`}, nil},
		{"airlock", []string{"doctor"}, nil},
		{"airlock", []string{"log"}, nil},
		{"airlock", []string{"monitor", "--once"}, nil},
		{"airlock-mcp", []string{"--version"}, nil},
		{"airlock-hook", nil, block},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{tt.name}, tt.args...), " "), func(t *testing.T) {
			p := openSilentPTY(t)
			cmd := exec.Command(filepath.Join(bin, tt.name), tt.args...)
			cmd.Env, cmd.Dir = env, fx.WS
			if tt.stdin != nil {
				cmd.Stdin = bytes.NewReader(tt.stdin)
			}
			p.start(t, cmd)
			code, out := p.wait(t, cmd)
			if q := terminalQueries(out); len(q) > 0 {
				t.Errorf("exit %d; wrote terminal queries %q to a terminal; all it wrote:\n%q", code, q, out)
			}
			if len(bytes.TrimSpace(out)) == 0 {
				t.Errorf("exit %d and wrote nothing: the test did not see the command run", code)
			}
		})
	}
}

// TestMonitorBoardOnASilentTerminal runs the full-screen board on a
// terminal that answers nothing: it must draw without waiting for a
// reply, send no colour or cursor query, and, stopped by q, by Ctrl-C or
// by a signal, exit 0 with the terminal given back (the alternate screen
// left).
func TestMonitorBoardOnASilentTerminal(t *testing.T) {
	fx, err := corpus.NewFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := ptyEnv(fx)
	if r := run(t, env, event(t, "Bash", `{"command":"ls -la"}`, fx.WS), "airlock-hook"); r.code != 0 {
		t.Fatalf("airlock-hook: exit %d\n%s", r.code, r.stderr)
	}
	tests := []struct {
		name string
		stop func(cmd *exec.Cmd, master *os.File) error
	}{
		// keys, not replies to anything
		{"q", func(_ *exec.Cmd, m *os.File) error { _, err := m.Write([]byte("q")); return err }},
		{"ctrl-c", func(_ *exec.Cmd, m *os.File) error { _, err := m.Write([]byte{0x03}); return err }},
		{"SIGINT", func(c *exec.Cmd, _ *os.File) error { return c.Process.Signal(syscall.SIGINT) }},
		{"SIGTERM", func(c *exec.Cmd, _ *os.File) error { return c.Process.Signal(syscall.SIGTERM) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := openSilentPTY(t)
			cmd := exec.Command(filepath.Join(bin, "airlock"), "monitor")
			cmd.Env, cmd.Dir = env, fx.WS
			// read the master here, not in start's reader: the test waits
			// on the board itself before it stops it
			cmd.Stdin, cmd.Stdout, cmd.Stderr = p.slave, p.slave, p.slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			p.slave.Close()
			_ = p.master.SetReadDeadline(time.Now().Add(ptyGuard))
			var seen bytes.Buffer
			buf := make([]byte, 4096)
			for !bytes.Contains(seen.Bytes(), []byte("q quit")) || !bytes.Contains(seen.Bytes(), []byte("ls -la")) {
				n, err := p.master.Read(buf)
				seen.Write(buf[:n])
				if err != nil {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("the board never appeared on a terminal that answers nothing (%v); it wrote:\n%q", err, seen.Bytes())
				}
			}
			if err := tt.stop(cmd, p.master); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			read := make(chan struct{})
			go func() {
				defer close(read)
				for {
					n, err := p.master.Read(buf)
					seen.Write(buf[:n])
					if err != nil {
						return
					}
				}
			}()
			select {
			case err := <-done:
				<-read // EIO once the child is gone, or the guard's deadline
				if err != nil {
					t.Fatalf("airlock monitor after %s: %v\n%q", tt.name, err, seen.Bytes())
				}
			case <-time.After(ptyGuard):
				_ = cmd.Process.Kill()
				<-done
				<-read
				t.Fatalf("airlock monitor did not stop on %s; it wrote:\n%q", tt.name, seen.Bytes())
			}
			out := seen.Bytes()
			if enter, leave := bytes.LastIndex(out, []byte("\x1b[?1049h")), bytes.LastIndex(out, []byte("\x1b[?1049l")); enter < 0 || leave < enter {
				t.Errorf("the alternate screen was not left (entered at %d, left at %d):\n%q", enter, leave, out)
			}
			if bytes.Contains(out, []byte("error")) {
				t.Errorf("an error on stopping with %s:\n%q", tt.name, out)
			}
			for _, q := range terminalQueries(out) {
				// bubbletea v2 asks, without waiting, whether the terminal
				// does synchronized output (DECRQM 2026/2027) and which
				// keyboard enhancements it took; a silent terminal costs
				// it nothing
				if strings.HasSuffix(q, "$p") || q == "\x1b[?u" {
					continue
				}
				t.Errorf("the board sent the terminal query %q", q)
			}
		})
	}
}
