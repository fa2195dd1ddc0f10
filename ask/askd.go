package ask

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Daemon is airlock askd: it listens on SocketAddress and puts each
// question that proves it came from an Airlock process of this user, one at
// a time, to the person at In/Out.
type Daemon struct {
	Home string
	In   io.Reader // the person's answers, one per line
	Out  io.Writer // where questions are shown
	Now  func() time.Time
	// Refused, when set, is told of each question refused for want of a
	// valid proof (who sent it, why), before it is logged on Out.
	Refused func(from, why string)
	// Listening, when set, is told once askd's address is bound (where it
	// listens): only then can a caller reach it.
	Listening func(addr string)

	key []byte
}

type pending struct {
	req          wireRequest
	conn         conn
	hello, chall string
	deadline     time.Time
	gone         chan struct{} // closed when the caller hung up
}

// ErrRunning is returned by Serve when another askd answers on the socket.
var ErrRunning = errors.New("another airlock askd is already answering on this socket")

// Serve answers questions until ctx ends or In reaches its end. It removes
// the socket when it stops.
func (d *Daemon) Serve(ctx context.Context) error {
	key, err := loadKey(d.Home)
	if err != nil {
		return fmt.Errorf("askd's key: %w", err)
	}
	d.key = key
	ln, err := d.listen(ctx)
	if err != nil {
		return err
	}
	defer ln.Close()
	if d.Listening != nil {
		d.Listening(SocketAddress(d.Home))
	}
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

// take checks one caller's proof, reads its question and queues it.
func (d *Daemon) take(ctx context.Context, conn conn, queue chan<- *pending) {
	_ = conn.SetDeadline(time.Now().Add(requestReadTime))
	from := "a caller"
	if p := peerOf(conn); p.known {
		from = "pid " + strconv.Itoa(p.pid)
		// a process of another user's can connect to an abstract name
		if p.uid != os.Getuid() {
			d.refuse(conn, from+" of uid "+strconv.Itoa(p.uid), "it is another user's process")
			return
		}
	}
	rd := bufio.NewReaderSize(io.LimitReader(conn, maxWireLine), 4096)
	line, err := rd.ReadBytes('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		// connected and said nothing (a check that askd listens): no
		// question to refuse
		conn.Close()
		return
	}
	var h wireHello
	if err != nil || json.Unmarshal(line, &h) != nil || h.V != wireVersion || len(h.Hello) != nonceHex {
		d.refuse(conn, from, "it did not start with airlock's hello (not airlock, or an older one)")
		return
	}
	chall, err := nonce()
	if err != nil {
		conn.Close()
		return
	}
	if err := writeLine(conn, wireChallenge{Challenge: chall, Proof: sum(d.key, macHello, []byte(h.Hello), []byte(chall))}); err != nil {
		conn.Close()
		return
	}
	line, err = rd.ReadBytes('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		// hung up after askd's proof: airlock doctor checking askd
		conn.Close()
		return
	}
	var q wireQuestion
	if err != nil || json.Unmarshal(line, &q) != nil {
		d.refuse(conn, from, "it sent no question")
		return
	}
	// the challenge is new on every connection: a question copied from
	// another one carries a MAC over another challenge
	if !verify(d.key, q.MAC, macQuestion, []byte(h.Hello), []byte(chall), q.Question) {
		d.refuse(conn, from, "it carried no valid proof that it came from an Airlock process of this user")
		return
	}
	var req wireRequest
	if json.Unmarshal(q.Question, &req) != nil || req.V != wireVersion {
		d.refuse(conn, from, "its question could not be read")
		return
	}
	_ = conn.SetDeadline(time.Time{})
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
	p := &pending{req: req, conn: conn, hello: h.Hello, chall: chall, deadline: d.now().Add(left), gone: make(chan struct{})}
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
			_ = p.conn.SetWriteDeadline(time.Now().Add(time.Second))
			_ = writeLine(p.conn, d.reply(p, "timeout"))
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
			_ = p.conn.SetWriteDeadline(p.deadline)
			if err := writeLine(p.conn, d.reply(p, word)); err != nil {
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

// reply is answer with askd's MAC, bound to this connection's nonces.
func (d *Daemon) reply(p *pending, answer string) wireReply {
	return wireReply{Answer: answer, MAC: sum(d.key, macAnswer, []byte(p.hello), []byte(p.chall), []byte(answer))}
}

// refuse logs a question that is not shown, tells its sender why and
// hangs up. What the sender wrote is not echoed: it may be a forged
// question drawn to look like one of askd's.
func (d *Daemon) refuse(conn conn, from, why string) {
	_ = writeLine(conn, wireReply{Answer: "refused", Why: "airlock askd shows only questions from Airlock processes of this user"})
	conn.Close()
	// recorded first: what the screen says has been recorded
	if d.Refused != nil {
		d.Refused(from, why)
	}
	fmt.Fprintf(d.Out, "\nairlock askd: refused a question from %s, not shown: %s\n", from, why)
}

// listen binds askd's address. An address something already answers on
// is askd running when what answers proves so, and an impostor otherwise.
func (d *Daemon) listen(ctx context.Context) (listener, error) {
	addr := SocketAddress(d.Home)
	if !useAbstract {
		if err := d.held(ctx, addr); err != nil {
			return nil, err
		}
		return listenPath(addr)
	}
	ln, err := listenUnix(addr)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		if herr := d.held(ctx, addr); herr != nil {
			return nil, herr
		}
	}
	return nil, fmt.Errorf("listen on %s: %w", addr, err)
}

// held says who answers on addr: nil when nobody does.
func (d *Daemon) held(ctx context.Context, addr string) error {
	c := &Channel{o: Options{Home: d.Home}}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	l, why := c.dial(hctx)
	switch {
	case l != nil:
		l.conn.Close()
		return fmt.Errorf("%s: %w", addr, ErrRunning)
	case strings.HasPrefix(why, "airlock askd is not running"):
		return nil
	}
	return fmt.Errorf("listen on %s: it is held by something that is not this user's airlock askd (%s); stop it or move it away", addr, why)
}

// listenPath listens on askd.sock in the home (macOS, Windows), replacing
// a stale socket nobody answers on.
func listenPath(path string) (listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket; move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale socket: %w", err)
		}
	}
	ln, err := listenPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// the listener removes its socket file when it closes
	return ln, nil
}
