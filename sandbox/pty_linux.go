package sandbox

// The command's terminal. A command that shares the person's terminal can
// type into it (ioctl TIOCSTI: the person's shell runs the line once
// airlock run exits), change its modes and read what is typed for
// others. When stdin is a terminal, Run gives the command a session of
// its own (setsid) whose controlling terminal is a fresh pty, and relays
// between the two: what is typed goes to the pty, what the command
// writes comes back, the window size follows SIGWINCH, and the person's
// terminal is in raw mode while the command runs (the pty's own line
// discipline does the echo, the line editing and Ctrl-C, which reaches
// the command's foreground process group there) and restored when it
// ends, at a stop signal and before a prompt of airlock run's own.
//
// airlock run's terminal ask prompt needs the person's terminal in line
// mode and nothing else reading it: handOver stops the relay's reads and
// restores the terminal's mode while the question is asked, when the
// command's pty is itself in line mode. A full-screen command (an agent's
// own interface) has its pty in raw mode; the terminal then stays raw and
// the ask channel skips the prompt, as it skips a raw terminal the
// command shares.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// termRelay is one command's pty and the relay to the person's terminal.
// An output-only relay (in -1: stdin is not a terminal, stdout or stderr
// is) copies what the command writes and nothing else: it never reads the
// terminal nor changes its mode, and the command keeps no descriptor of
// it, so nothing the command leaves behind can read what the person types
// into their shell once airlock run has exited.
type termRelay struct {
	in     int      // the person's terminal, read (stdin); -1: output only
	size   int      // the terminal whose window size the pty follows
	out    *os.File // where the command's output goes (the terminal)
	master *os.File
	slave  *os.File
	saved  unix.Termios // the terminal's mode at the start

	mu       sync.Mutex
	cond     *sync.Cond
	paused   int  // handOver calls in progress
	restored bool // the terminal is in its saved mode for a handOver
	released bool // restored for good: a stop signal came, or the command ended
	stopR    *os.File
	stopW    *os.File
	done     chan struct{} // the input relay has returned
	outDone  chan struct{} // the output relay has returned
	sigs     chan os.Signal
	sigsDone chan struct{}
}

// openRelay makes a pty for a command whose stdin is the terminal in,
// with the terminal's mode and window size. out is where the command's
// output is written (a terminal among stdout and stderr, else in).
func openRelay(in, out *os.File) (*termRelay, error) {
	infd, sizefd := -1, int(out.Fd())
	if in != nil {
		infd = int(in.Fd())
		sizefd = infd
	}
	saved, err := unix.IoctlGetTermios(sizefd, unix.TCGETS)
	if err != nil {
		return nil, fmt.Errorf("read the terminal's mode: %w", err)
	}
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(mfd)
		return nil, fmt.Errorf("unlock the pty: %w", err)
	}
	sfd, err := ptyPeer(mfd)
	if err != nil {
		// before Linux 4.13: by its name
		n, nerr := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
		if nerr != nil {
			unix.Close(mfd)
			return nil, fmt.Errorf("find the pty: %w", nerr)
		}
		sfd, err = unix.Open(fmt.Sprintf("/dev/pts/%d", n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Close(mfd)
			return nil, fmt.Errorf("open the pty: %w", err)
		}
	}
	r := &termRelay{in: infd, size: sizefd, out: out, saved: *saved,
		master: os.NewFile(uintptr(mfd), "/dev/ptmx"), slave: os.NewFile(uintptr(sfd), "pty"),
		done: make(chan struct{}), outDone: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	_ = unix.IoctlSetTermios(sfd, unix.TCSETS, saved)
	r.resize()
	return r, nil
}

// ptyPeer opens the pty of master mfd read-write (TIOCGPTPEER, Linux 4.13).
func ptyPeer(mfd int) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(mfd), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// resize gives the pty the terminal's window size; the kernel tells the
// command's foreground group (SIGWINCH).
func (r *termRelay) resize() {
	if ws, err := unix.IoctlGetWinsize(r.size, unix.TIOCGWINSZ); err == nil {
		if rc, err := r.master.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
		}
	}
}

// raw puts the person's terminal in raw mode.
func (r *termRelay) raw() {
	if r.in < 0 {
		return // output only: the terminal's mode is the person's
	}
	t := r.saved
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	_ = unix.IoctlSetTermios(r.in, unix.TCSETS, &t)
}

// restore puts the person's terminal back in the mode it had.
func (r *termRelay) restore() {
	if r.in >= 0 {
		_ = unix.IoctlSetTermios(r.in, unix.TCSETSW, &r.saved)
	}
}

// start puts the terminal in raw mode and starts the relay, once the
// command has started (its copy of the pty is its own: ours is closed).
func (r *termRelay) start() error {
	var err error
	r.stopR, r.stopW, err = os.Pipe()
	if err != nil {
		return err
	}
	r.slave.Close()
	r.raw()
	r.sigs = make(chan os.Signal, 4)
	r.sigsDone = make(chan struct{})
	signal.Notify(r.sigs, unix.SIGWINCH, unix.SIGCONT, unix.SIGTSTP)
	go r.signals()
	if r.in >= 0 {
		go r.input()
	} else {
		close(r.done)
	}
	go func() {
		defer close(r.outDone)
		_, _ = io.Copy(r.out, r.master)
	}()
	return nil
}

// signals follows the window size, and stops airlock run itself at a
// SIGTSTP (not from the terminal, which is raw: a kill) with the terminal
// restored, raw again when it goes on.
func (r *termRelay) signals() {
	defer close(r.sigsDone)
	for s := range r.sigs {
		switch s {
		case unix.SIGWINCH:
			r.resize()
		case unix.SIGTSTP:
			r.restore()
			_ = unix.Kill(os.Getpid(), unix.SIGSTOP)
		case unix.SIGCONT:
			r.mu.Lock()
			if !r.restored && !r.released {
				r.raw()
			}
			r.mu.Unlock()
			r.resize()
		}
	}
}

// input copies what is typed to the pty. It reads only what poll says is
// there and never while a handOver is in progress, so the prompt gets
// every key; it returns at stop without reading what is typed after.
func (r *termRelay) input() {
	defer close(r.done)
	buf := make([]byte, 4096)
	stopfd := int(r.stopR.Fd())
	for {
		fds := []unix.PollFd{{Fd: int32(r.in), Events: unix.POLLIN}, {Fd: int32(stopfd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 && fds[0].Revents&unix.POLLIN == 0 {
			return
		}
		r.mu.Lock()
		for r.paused > 0 {
			r.cond.Wait()
		}
		// poll again: the prompt may have taken what was there
		ready := []unix.PollFd{{Fd: int32(r.in), Events: unix.POLLIN}}
		n := 0
		if k, _ := unix.Poll(ready, 0); k > 0 && ready[0].Revents&unix.POLLIN != 0 {
			var err error
			n, err = unix.Read(r.in, buf)
			if err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
				r.mu.Unlock()
				return
			}
		}
		r.mu.Unlock()
		if n > 0 {
			if _, err := r.master.Write(buf[:n]); err != nil {
				return
			}
		}
		if n == 0 && ready[0].Revents&unix.POLLIN != 0 {
			return // end of input
		}
	}
}

// handOver runs fn (a prompt on the person's terminal) with the relay's
// reads stopped and, when the command's pty is in line mode, the
// terminal in the mode it had before the command started.
func (r *termRelay) handOver(fn func()) {
	r.mu.Lock()
	r.paused++
	if r.paused == 1 && !r.released && r.lineMode() {
		r.restore()
		r.restored = true
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.paused--
		if r.paused == 0 {
			if r.restored && !r.released {
				r.raw()
			}
			r.restored = false
			r.cond.Broadcast()
		}
		r.mu.Unlock()
	}()
	fn()
}

// lineMode says the command's pty is in canonical mode.
func (r *termRelay) lineMode() bool {
	rc, err := r.master.SyscallConn()
	if err != nil {
		return false
	}
	canon := false
	_ = rc.Control(func(fd uintptr) {
		if t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS); err == nil {
			canon = t.Lflag&unix.ICANON != 0
		}
	})
	return canon
}

// release restores the terminal for good (at a stop signal: whoever sent
// it may kill airlock run a moment later); the relay goes on.
func (r *termRelay) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = true
	r.restore()
}

// stop ends the relay once the command has exited: what it wrote is
// copied out (for a moment, should something it left behind keep the pty
// open), and the terminal is restored.
func (r *termRelay) stop() {
	if r.stopW != nil {
		r.stopW.Close()
		<-r.done
		r.stopR.Close()
		_ = r.master.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		<-r.outDone
		signal.Stop(r.sigs)
		close(r.sigs)
		<-r.sigsDone
	}
	r.master.Close()
	r.slave.Close()
	r.release()
}
