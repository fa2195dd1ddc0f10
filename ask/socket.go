package ask

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The wire, one JSON line per step (proof.go says why each step is MACed):
//
//	caller → askd   {"v":2,"hello":NONCE}
//	askd → caller   {"challenge":NONCE,"proof":MAC(hello, challenge)}
//	caller → askd   {"question":{…wireRequest…},"mac":MAC(hello, challenge, question bytes)}
//	askd → caller   {"answer":"allow|deny|timeout","mac":MAC(hello, challenge, answer)}
//
// A question askd cannot verify is answered {"answer":"refused","why":…},
// logged on askd's screen and never shown as a question.

// wireRequest is one question, the body the caller MACs.
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

type wireHello struct {
	V     int    `json:"v"`
	Hello string `json:"hello"`
}

type wireChallenge struct {
	Challenge string `json:"challenge"`
	Proof     string `json:"proof"`
}

type wireQuestion struct {
	Question json.RawMessage `json:"question"`
	MAC      string          `json:"mac"`
}

// wireReply is askd's answer, as one JSON line.
type wireReply struct {
	Answer string `json:"answer"` // allow | deny | timeout | refused
	MAC    string `json:"mac,omitempty"`
	Why    string `json:"why,omitempty"` // why refused
}

const (
	wireVersion     = 2
	maxWireLine     = 256 << 10
	requestReadTime = 5 * time.Second
	deadlineMargin  = 200 * time.Millisecond
	nonceHex        = 32
)

// SocketPath is askd.sock in the Airlock home: where askd listens on
// macOS and Windows (SocketAddress says where it listens here).
func SocketPath(home string) string { return filepath.Join(home, socketName) }

// SocketAddress is where askd listens: an abstract socket name
// ("@airlock-askd-…") on Linux, SocketPath elsewhere.
func SocketAddress(home string) string {
	if useAbstract {
		return abstractAddr(home)
	}
	return SocketPath(home)
}

// link is a connection to an askd that has proved it holds this home's key.
type link struct {
	conn          net.Conn
	rd            *bufio.Reader
	key           []byte
	hello, chall  string
	addr          string
	listenerPID   int
	listenerKnown bool
}

// dial reaches askd and checks its proof; why says what stopped it.
func (c *Channel) dial(ctx context.Context) (l *link, why string) {
	home := c.o.Home
	addr := SocketAddress(home)
	if !useAbstract {
		fi, err := os.Lstat(addr)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, "airlock askd is not running"
			}
			return nil, err.Error()
		}
		if why := unsafeSocket(fi); why != "" {
			return nil, addr + " " + why + "; not used"
		}
		if why := unsafeHome(home); why != "" {
			return nil, home + " " + why + "; askd.sock there is not used"
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return nil, "airlock askd is not running (" + shortErr(err) + ")"
	}
	l = &link{conn: conn, addr: addr, rd: bufio.NewReaderSize(io.LimitReader(conn, maxWireLine), 512)}
	p := peerOf(conn)
	l.listenerPID, l.listenerKnown = p.pid, p.known
	fail := func(why string) (*link, string) {
		conn.Close()
		return nil, why
	}
	// another user can bind an abstract name first: its listener is not
	// this user's askd, whatever it answers
	if p.known && p.uid != os.Getuid() {
		return fail(fmt.Sprintf("%s is held by another user's process (uid %d, pid %d); not used", addr, p.uid, p.pid))
	}
	if l.key, err = loadKey(home); err != nil {
		return fail("cannot read askd's key: " + err.Error())
	}
	if l.hello, err = nonce(); err != nil {
		return fail(err.Error())
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	} else {
		_ = conn.SetDeadline(time.Now().Add(requestReadTime))
	}
	if err := writeLine(conn, wireHello{V: wireVersion, Hello: l.hello}); err != nil {
		return fail("airlock askd did not take the question (" + shortErr(err) + ")")
	}
	line, err := l.rd.ReadBytes('\n')
	var ch wireChallenge
	if err != nil || json.Unmarshal(line, &ch) != nil || len(ch.Challenge) != nonceHex {
		return fail(l.who() + " did not answer as airlock askd (an older airlock askd? restart it); not used")
	}
	if !verify(l.key, ch.Proof, macHello, []byte(l.hello), []byte(ch.Challenge)) {
		// a process that bound askd's name while askd was not running
		// (a sandboxed one can bind, it cannot read the key)
		return fail(l.who() + " did not prove it is this user's airlock askd; not used")
	}
	l.chall = ch.Challenge
	return l, ""
}

func (l *link) who() string {
	if l.listenerKnown {
		return l.addr + " (pid " + strconv.Itoa(l.listenerPID) + ")"
	}
	return l.addr
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (c *Channel) askSocket(ctx context.Context, r Request) result {
	l, why := c.dial(ctx)
	if l == nil {
		return result{why: why}
	}
	conn := l.conn
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
	body, err := json.Marshal(req)
	if err != nil {
		return result{why: "cannot encode the question: " + err.Error()}
	}
	q := wireQuestion{Question: body, MAC: sum(l.key, macQuestion, []byte(l.hello), []byte(l.chall), body)}
	if err := writeLine(conn, q); err != nil {
		return result{why: "airlock askd did not take the question (" + shortErr(err) + ")"}
	}
	reply, err := l.rd.ReadBytes('\n')
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || ctx.Err() != nil || time.Until(deadline) < 250*time.Millisecond {
			return result{reached: true, answer: Fallback}
		}
		return result{why: "airlock askd closed without an answer (" + shortErr(err) + ")"}
	}
	var w wireReply
	if err := json.Unmarshal(reply, &w); err != nil {
		return result{why: "airlock askd sent something that is not an answer"}
	}
	if w.Answer == "refused" {
		return result{why: "airlock askd refused the question (" + w.Why + ")"}
	}
	if !verify(l.key, w.MAC, macAnswer, []byte(l.hello), []byte(l.chall), []byte(w.Answer)) {
		return result{why: fmt.Sprintf("an answer %q without askd's proof; not used", w.Answer)}
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
