package forward

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// relpOffer is the data of the client's open command (librelp's
// relp_version 0, the syslog command only).
const relpOffer = "relp_version=0\nrelp_software=airlock,1,https://github.com/agentairlock/airlock\ncommands=syslog"

// maxRELPFrame bounds a response frame the receiver sends.
const maxRELPFrame = 1 << 20

// relpSender speaks RELP (librelp's protocol, rsyslog's imrelp): every
// syslog command is answered by a rsp with the same transaction number,
// "200 OK" once the receiver has taken the message. Send writes the whole
// batch and then waits for every answer; a batch is confirmed only when
// each of its messages was answered 200.
type relpSender struct {
	addr    string
	timeout time.Duration
	render  func(item) []byte

	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	txnr int
}

func newRELPSender(addr string, timeout time.Duration, render func(item) []byte) *relpSender {
	return &relpSender{addr: addr, timeout: timeout, render: render}
}

func (s *relpSender) next() int {
	s.txnr++
	if s.txnr > 999999999 {
		s.txnr = 1
	}
	return s.txnr
}

func (s *relpSender) connect(ctx context.Context) error {
	d := net.Dialer{Timeout: s.timeout}
	c, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("relp %s: %w", s.addr, err)
	}
	s.conn, s.br, s.bw, s.txnr = c, bufio.NewReader(c), bufio.NewWriterSize(c, 64<<10), 0
	n := s.next()
	s.frame(n, "open", []byte(relpOffer))
	if err := s.flush(); err != nil {
		return s.fail(err)
	}
	code, msg, err := s.await(n)
	if err != nil {
		return s.fail(err)
	}
	if code != 200 {
		return s.fail(fmt.Errorf("the receiver refused the session: %d %s", code, msg))
	}
	return nil
}

func (s *relpSender) fail(err error) error {
	s.drop()
	return fmt.Errorf("relp %s: %w", s.addr, err)
}

func (s *relpSender) drop() {
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

func (s *relpSender) frame(txnr int, cmd string, data []byte) {
	s.bw.WriteString(strconv.Itoa(txnr))
	s.bw.WriteByte(' ')
	s.bw.WriteString(cmd)
	s.bw.WriteByte(' ')
	s.bw.WriteString(strconv.Itoa(len(data)))
	if len(data) > 0 {
		s.bw.WriteByte(' ')
		s.bw.Write(data)
	}
	s.bw.WriteByte('\n')
}

func (s *relpSender) flush() error {
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
	return s.bw.Flush()
}

// Send delivers the batch and returns nil once every message is answered
// 200. Any other answer, a broken connection or a timeout fails the whole
// batch: the caller resends it from the cursor, and the receiver may then
// hold some of it twice (same h).
func (s *relpSender) Send(ctx context.Context, items []item) error {
	if s.conn == nil {
		if err := s.connect(ctx); err != nil {
			return err
		}
	}
	conn := s.conn // fail clears s.conn; the callback may run after
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	first := 0
	for _, it := range items {
		n := s.next()
		if first == 0 {
			first = n
		}
		s.frame(n, "syslog", s.render(it))
	}
	if err := s.flush(); err != nil {
		return s.fail(err)
	}
	for i := range items {
		want := first + i
		if want > 999999999 {
			want -= 999999999
		}
		code, msg, err := s.await(want)
		if err != nil {
			return s.fail(err)
		}
		if code != 200 {
			return s.fail(fmt.Errorf("message %d of %d refused: %d %s", i+1, len(items), code, msg))
		}
	}
	return nil
}

// await reads the receiver's next frame, which must be the rsp for txnr
// (librelp answers in order); a serverclose ends the session.
func (s *relpSender) await(txnr int) (int, string, error) {
	_ = s.conn.SetReadDeadline(time.Now().Add(s.timeout))
	if s.br.Buffered() == 0 {
		quickACK(s.conn)
	}
	n, cmd, data, err := readRELPFrame(s.br)
	if err != nil {
		return 0, "", err
	}
	switch {
	case cmd == "serverclose":
		return 0, "", errors.New("the receiver closed the session (serverclose)")
	case cmd != "rsp":
		return 0, "", fmt.Errorf("unexpected %q frame from the receiver", cmd)
	case n != txnr:
		return 0, "", fmt.Errorf("answer for transaction %d, want %d", n, txnr)
	}
	code, rest, _ := bytes.Cut(data, []byte(" "))
	c, err := strconv.Atoi(string(code))
	if err != nil || len(code) != 3 {
		return 0, "", fmt.Errorf("malformed rsp %q", data)
	}
	msg, _, _ := bytes.Cut(rest, []byte("\n"))
	return c, string(msg), nil
}

// readRELPFrame reads TXNR SP COMMAND SP DATALEN [SP DATA] LF.
func readRELPFrame(br *bufio.Reader) (int, string, []byte, error) {
	field := func(name string) (string, error) {
		b, err := br.ReadSlice(' ')
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		if len(b) > 33 {
			return "", fmt.Errorf("%s too long", name)
		}
		return string(b[:len(b)-1]), nil
	}
	ts, err := field("transaction number")
	if err != nil {
		return 0, "", nil, err
	}
	txnr, err := strconv.Atoi(ts)
	if err != nil {
		return 0, "", nil, fmt.Errorf("malformed transaction number %q", ts)
	}
	cmd, err := field("command")
	if err != nil {
		return 0, "", nil, err
	}
	var lenBuf []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, "", nil, fmt.Errorf("read data length: %w", err)
		}
		if c == ' ' || c == '\n' {
			n, err := strconv.Atoi(string(lenBuf))
			if err != nil || n < 0 || n > maxRELPFrame {
				return 0, "", nil, fmt.Errorf("bad data length %q", lenBuf)
			}
			if c == '\n' {
				if n != 0 {
					return 0, "", nil, fmt.Errorf("data length %d with no data", n)
				}
				return txnr, cmd, nil, nil
			}
			data := make([]byte, n+1)
			if _, err := io.ReadFull(br, data); err != nil {
				return 0, "", nil, fmt.Errorf("read data: %w", err)
			}
			if data[n] != '\n' {
				return 0, "", nil, errors.New("frame not ended by a newline")
			}
			return txnr, cmd, data[:n], nil
		}
		if len(lenBuf) > 9 {
			return 0, "", nil, errors.New("data length too long")
		}
		lenBuf = append(lenBuf, c)
	}
}

// Close ends the session politely (close, then its rsp), or just drops it.
func (s *relpSender) Close() error {
	if s.conn == nil {
		return nil
	}
	n := s.next()
	s.frame(n, "close", nil)
	if s.flush() == nil {
		_, _, _ = s.await(n)
	}
	s.drop()
	return nil
}
