package forward

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// streamSender writes syslog over TCP or TLS with octet counting (RFC 6587
// §3.4.1, RFC 5425 §4.3: "LEN SP MSG"), or one message per UDP datagram.
// Neither acknowledges anything: a batch counts as sent once it is written
// and the connection shows no sign of having been closed by the receiver
// (a short read finds neither EOF nor a reset). A batch that fails is resent
// whole from the cursor after the reconnect.
type streamSender struct {
	kind, addr string
	tls        *tls.Config
	timeout    time.Duration
	render     func(item) []byte

	conn net.Conn
	bw   *bufio.Writer
}

func newStreamSender(t Target, timeout time.Duration, render func(item) []byte) (*streamSender, error) {
	s := &streamSender{kind: t.Kind, addr: t.Addr, timeout: timeout, render: render}
	if t.Kind == KindTLS {
		host, _, _ := net.SplitHostPort(t.Addr)
		cfg, err := tlsConfig(t, host)
		if err != nil {
			return nil, err
		}
		s.tls = cfg
	}
	return s, nil
}

// tlsConfig is the client's TLS configuration for t: TLS 1.2 or later, the
// receiver's certificate checked against t.CA (or the system roots) and its
// name, a client certificate when t names one.
func tlsConfig(t Target, host string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
	if t.ServerName != "" {
		cfg.ServerName = t.ServerName
	}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return nil, fmt.Errorf("target %s: read ca: %w", t.Raw, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target %s: %s holds no PEM certificate", t.Raw, t.CA)
		}
		cfg.RootCAs = pool
	}
	if t.Cert != "" {
		pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, fmt.Errorf("target %s: client certificate: %w", t.Raw, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func (s *streamSender) connect(ctx context.Context) error {
	d := net.Dialer{Timeout: s.timeout}
	network := "tcp"
	if s.kind == KindUDP {
		network = "udp"
	}
	c, err := d.DialContext(ctx, network, s.addr)
	if err != nil {
		return fmt.Errorf("%s %s: %w", s.kind, s.addr, err)
	}
	if s.tls != nil {
		tc := tls.Client(c, s.tls)
		hctx, cancel := context.WithTimeout(ctx, s.timeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			_ = c.Close()
			return fmt.Errorf("tls %s: handshake: %w", s.addr, err)
		}
		c = tc
	}
	s.conn, s.bw = c, bufio.NewWriterSize(c, 64<<10)
	return nil
}

func (s *streamSender) fail(err error) error {
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
	return fmt.Errorf("%s %s: %w", s.kind, s.addr, err)
}

// Send writes the batch. For TCP and TLS it then checks that the receiver
// has not closed the connection.
func (s *streamSender) Send(ctx context.Context, items []item) error {
	if s.conn == nil {
		if err := s.connect(ctx); err != nil {
			return err
		}
	}
	conn := s.conn // fail clears s.conn; the callback may run after
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
	if s.kind == KindUDP {
		for _, it := range items {
			if _, err := s.conn.Write(s.render(it)); err != nil {
				return s.fail(err)
			}
		}
		return nil
	}
	for _, it := range items {
		msg := s.render(it)
		s.bw.WriteString(strconv.Itoa(len(msg)))
		s.bw.WriteByte(' ')
		s.bw.Write(msg)
	}
	if err := s.bw.Flush(); err != nil {
		return s.fail(err)
	}
	return s.probe()
}

// probe looks for the receiver's end of the connection: a syslog receiver
// never writes, so a read that returns anything but a timeout (EOF, a
// reset, a TLS alert) means the connection is gone and what was just
// written may not have arrived.
func (s *streamSender) probe() error {
	_ = s.conn.SetReadDeadline(time.Now().Add(2 * time.Millisecond))
	var b [1]byte
	_, err := s.conn.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return nil
	}
	if err == nil {
		return s.fail(errors.New("the receiver sent data on a syslog connection"))
	}
	return s.fail(fmt.Errorf("the connection is closed: %w", err))
}

func (s *streamSender) Close() error {
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}
