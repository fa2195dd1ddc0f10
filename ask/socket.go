package ask

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// wireRequest is one question sent to askd, as one JSON line.
type wireRequest struct {
	V         int    `json:"v"`
	Source    string `json:"source"`
	Tool      string `json:"tool"`
	Server    string `json:"server,omitempty"`
	Target    string `json:"target,omitempty"`
	Rule      string `json:"rule"`
	Reason    string `json:"reason,omitempty"`
	Args      string `json:"args,omitempty"`
	Fallback  string `json:"fallback,omitempty"`
	TimeoutMS int64  `json:"timeout_ms"`
}

// wireReply is askd's answer, as one JSON line.
type wireReply struct {
	Answer string `json:"answer"` // allow | deny | timeout
}

const (
	wireVersion     = 1
	maxWireLine     = 256 << 10
	requestReadTime = 5 * time.Second
	deadlineMargin  = 200 * time.Millisecond
)

// SocketPath is askd's socket in the Airlock home.
func SocketPath(home string) string { return filepath.Join(home, socketName) }

func (c *Channel) askSocket(ctx context.Context, r Request) result {
	path := SocketPath(c.o.Home)
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return result{why: "airlock askd is not running"}
		}
		return result{why: err.Error()}
	}
	if why := unsafeSocket(fi); why != "" {
		return result{why: path + " " + why + "; not used"}
	}
	if why := unsafeHome(c.o.Home); why != "" {
		return result{why: c.o.Home + " " + why + "; askd.sock there is not used"}
	}
	conn, err := dialSocket(ctx, path)
	if err != nil {
		return result{why: "airlock askd is not running (" + shortErr(err) + ")"}
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if deadline.IsZero() {
		deadline = time.Now().Add(c.timeout)
	}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := wireRequest{V: wireVersion, Source: r.Source, Tool: r.Tool, Server: r.Server, Target: r.Target,
		Rule: r.Rule, Reason: r.Reason, Args: r.Args, Fallback: r.Fallback, TimeoutMS: time.Until(deadline).Milliseconds()}
	line, err := json.Marshal(req)
	if err != nil {
		return result{why: "cannot encode the question: " + err.Error()}
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return result{why: "airlock askd did not take the question (" + shortErr(err) + ")"}
	}
	rd := bufio.NewReaderSize(io.LimitReader(conn, maxWireLine), 512)
	reply, err := rd.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil || time.Until(deadline) < 250*time.Millisecond {
			return result{reached: true, answer: Fallback}
		}
		return result{why: "airlock askd closed without an answer (" + shortErr(err) + ")"}
	}
	var w wireReply
	if err := json.Unmarshal(reply, &w); err != nil {
		return result{why: "airlock askd sent something that is not an answer"}
	}
	switch w.Answer {
	case "allow":
		return result{reached: true, answer: Allow}
	case "deny":
		return result{reached: true, answer: Deny}
	case "timeout":
		return result{reached: true, answer: Fallback}
	}
	return result{why: fmt.Sprintf("airlock askd answered %q, which is not allow or deny", w.Answer)}
}

func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// Daemon is airlock askd: it listens on askd.sock and puts each question,
// one at a time, to the person at In/Out.
type Daemon struct {
	Home string
	In   io.Reader // the person's answers, one per line
	Out  io.Writer // where questions are shown
	Now  func() time.Time
}

// conn is a connection to or from askd: a net.Conn, or an *os.File on a
// socket (socket_unix.go), whose deadlines work the same way.
type conn interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// listener accepts askd's callers.
type listener interface {
	Accept() (conn, error)
	Close() error
}

type pending struct {
	req      wireRequest
	conn     conn
	deadline time.Time
	gone     chan struct{} // closed when the caller hung up
}

// ErrRunning is returned by Serve when another askd answers on the socket.
var ErrRunning = errors.New("another airlock askd is already answering on this socket")

// Serve answers questions until ctx ends or In reaches its end. It removes
// the socket when it stops.
func (d *Daemon) Serve(ctx context.Context) error {
	path := SocketPath(d.Home)
	probe, cancelProbe := context.WithTimeout(ctx, time.Second)
	c, err := dialSocket(probe, path)
	cancelProbe()
	if err == nil {
		c.Close()
		return fmt.Errorf("%s: %w", path, ErrRunning)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return fmt.Errorf("%s exists and is not a socket; move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove the stale socket: %w", err)
		}
	}
	ln, err := listenPrivate(path)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", path, err)
	}
	defer os.Remove(path)
	defer ln.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()

	lines := make(chan typed)
	go func() {
		defer cancel()
		sc := bufio.NewScanner(d.In)
		for sc.Scan() {
			select {
			case lines <- typed{text: sc.Text(), at: time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	queue := make(chan *pending, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.prompter(ctx, queue, lines)
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			cancel()
			wg.Wait()
			return fmt.Errorf("accept: %w", err)
		}
		go d.take(ctx, conn, queue)
	}
	wg.Wait()
	return nil
}

// take reads one question from conn and queues it.
func (d *Daemon) take(ctx context.Context, conn conn, queue chan<- *pending) {
	_ = conn.SetReadDeadline(time.Now().Add(requestReadTime))
	rd := bufio.NewReaderSize(io.LimitReader(conn, maxWireLine), 4096)
	line, err := rd.ReadBytes('\n')
	var req wireRequest
	if err != nil || json.Unmarshal(line, &req) != nil || req.V != wireVersion {
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	left := time.Duration(req.TimeoutMS) * time.Millisecond
	if left <= 0 {
		conn.Close()
		return
	}
	if left > maxTimeout {
		left = maxTimeout
	}
	// close the question a little before the caller stops waiting, so a
	// late answer meets "too late" here and never races the caller's
	// deadline
	left -= min(deadlineMargin, left/4)
	p := &pending{req: req, conn: conn, deadline: d.now().Add(left), gone: make(chan struct{})}
	go func() {
		// the caller sends nothing more: a read returns when it hangs up
		_, _ = io.Copy(io.Discard, conn)
		close(p.gone)
	}()
	select {
	case queue <- p:
	case <-ctx.Done():
		conn.Close()
	default:
		fmt.Fprintln(d.Out, "airlock askd: too many questions waiting; one was not shown (its caller's ask_fallback decides)")
		conn.Close()
	}
}

func (d *Daemon) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// typed is one line the person typed, and when it was read: a line read
// before a question was fully on the screen is not an answer to it.
type typed struct {
	text string
	at   time.Time
}

// prompter shows questions one at a time. When askd stops, every question
// still queued is closed unanswered, so its caller moves on to its next
// backend at once.
func (d *Daemon) prompter(ctx context.Context, queue <-chan *pending, lines <-chan typed) {
	defer func() {
		for {
			select {
			case p := <-queue:
				p.conn.Close()
			default:
				return
			}
		}
	}()
	for {
		var p *pending
		select {
		case <-ctx.Done():
			return
		case <-lines:
			// typed with no question on the screen: not an answer
			continue
		case p = <-queue:
		}
		d.one(ctx, p, lines)
		p.conn.Close()
	}
}

func (d *Daemon) one(ctx context.Context, p *pending, lines <-chan typed) {
	left := p.deadline.Sub(d.now())
	select {
	case <-p.gone:
		return
	default:
	}
	if left <= 0 {
		return
	}
	r := Request{Source: p.req.Source, Tool: p.req.Tool, Server: p.req.Server, Target: p.req.Target, Rule: p.req.Rule, Reason: p.req.Reason, Args: p.req.Args}
	fmt.Fprintln(d.Out)
	for _, l := range Lines(r) {
		fmt.Fprintln(d.Out, l)
	}
	fmt.Fprint(d.Out, Question(left, p.req.Fallback))
	// type-ahead is not an answer to a question not yet shown
	shown := time.Now()
	timer := time.NewTimer(left)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(d.Out, "\nairlock askd stopped; the caller's ask_fallback decides")
			return
		case <-p.gone:
			fmt.Fprintln(d.Out, "\nthe caller stopped waiting; this question is closed")
			return
		case <-timer.C:
			b, _ := json.Marshal(wireReply{Answer: "timeout"})
			_ = p.conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = p.conn.Write(append(b, '\n'))
			fmt.Fprintln(d.Out, "\nno answer in time: the caller's ask_fallback decided; a later answer is not an approval")
			return
		case l := <-lines:
			if l.at.Before(shown) {
				continue
			}
			a, ok := parseAnswer(l.text)
			if !ok {
				fmt.Fprint(d.Out, "answer y or n: ")
				continue
			}
			if !d.now().Before(p.deadline) {
				fmt.Fprintln(d.Out, "too late: the caller's ask_fallback decided; this answer was not used")
				return
			}
			word := map[Answer]string{Allow: "allow", Deny: "deny"}[a]
			b, _ := json.Marshal(wireReply{Answer: word})
			_ = p.conn.SetWriteDeadline(p.deadline)
			if _, err := p.conn.Write(append(b, '\n')); err != nil {
				fmt.Fprintln(d.Out, "too late: the caller had stopped waiting; this answer was not used")
				return
			}
			if a == Allow {
				fmt.Fprintln(d.Out, "→ allowed")
			} else {
				fmt.Fprintln(d.Out, "→ refused")
			}
			return
		}
	}
}
