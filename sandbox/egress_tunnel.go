package sandbox

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// serveConnect handles "CONNECT host:port": decide, dial, answer 200 and
// relay bytes both ways until both sides are done. What flows inside is
// usually TLS and is not read: the decision is on the destination only.
func (e *egress) serveConnect(w http.ResponseWriter, r *http.Request) {
	// r.URL.Host, never r.Host: for "CONNECT /path" Go fills r.Host from
	// the Host header, which names nothing the client will connect to.
	host, port, err := egressTarget(r.URL.Host, 0)
	if err != nil {
		egressError(w, http.StatusBadRequest, "Airlock's egress proxy: CONNECT needs host:port: "+err.Error())
		return
	}
	ex := &egressExchange{method: http.MethodConnect, host: host, port: port, start: time.Now()}
	scheme := "https"
	if port == 80 {
		scheme = "http" // a tunnel to port 80 carries cleartext HTTP
	}
	addrs := e.admit(r.Context(), ex, scheme)
	// the decision is in the log before anything is dialled or answered
	if !e.decided(ex) {
		w.Header().Set("Connection", "close")
		e.answerRefusal(w, ex)
		return
	}
	defer e.recordEnd(ex)
	up, err := e.dial(r.Context(), ex, addrs)
	if err != nil {
		ex.status = http.StatusBadGateway
		ex.err = err.Error()
		w.Header().Set("Connection", "close")
		egressError(w, http.StatusBadGateway, "Airlock's egress proxy could not connect to "+r.URL.Host+": "+err.Error())
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		ex.status, ex.err = http.StatusInternalServerError, "connection cannot be taken over"
		egressError(w, http.StatusInternalServerError, "Airlock's egress proxy cannot tunnel on this connection")
		return
	}
	client, brw, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		ex.err = "hijack: " + err.Error()
		return
	}
	t := &egressTunnel{client: client, up: up, idle: e.opt.IdleTimeout}
	t.touch()
	e.track(t)
	defer e.untrack(t)
	_ = client.SetDeadline(time.Time{})
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		t.cut()
		ex.err = "answer client: " + err.Error()
		return
	}
	// A client may send its first bytes (a TLS ClientHello) right behind
	// the CONNECT, before our answer; the server's reader already holds
	// them.
	if n := brw.Reader.Buffered(); n > 0 {
		head, _ := brw.Reader.Peek(n)
		_ = up.SetWriteDeadline(time.Now().Add(t.idle))
		w, err := up.Write(head)
		ex.addOut(w)
		if err != nil {
			t.cut()
			ex.err = "relay: " + err.Error()
			return
		}
	}
	ex.err = t.relay(ex)
}

func (e *egress) answerRefusal(w http.ResponseWriter, ex *egressExchange) {
	switch ex.status {
	case http.StatusForbidden:
		egressRefuse(w, ex.host, ex.v)
	case http.StatusBadRequest:
		egressError(w, ex.status, "Airlock's egress proxy: "+ex.host+": "+ex.v.rule+": "+ex.v.reason)
	default:
		egressError(w, ex.status, "Airlock's egress proxy: "+ex.err)
	}
}

// egressTunnel is one spliced CONNECT.
type egressTunnel struct {
	client, up net.Conn
	idle       time.Duration
	last       atomic.Int64 // unix nanoseconds of the last byte moved either way
	cutOnce    sync.Once
}

func (t *egressTunnel) touch() { t.last.Store(time.Now().UnixNano()) }

// cut closes both sides, ending the relay.
func (t *egressTunnel) cut() {
	t.cutOnce.Do(func() {
		_ = t.client.Close()
		_ = t.up.Close()
	})
}

// relay copies both ways until each side has finished sending, passing a
// half-close on so that request/response protocols that rely on it work.
// It returns the first error that was not an orderly end.
func (t *egressTunnel) relay(ex *egressExchange) string {
	defer t.cut()
	var wg sync.WaitGroup
	var errMu sync.Mutex
	first := ""
	note := func(err error) {
		if err == nil || errors.Is(err, net.ErrClosed) {
			return
		}
		errMu.Lock()
		if first == "" {
			first = err.Error()
		}
		errMu.Unlock()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		note(t.copy(t.up, t.client, ex.addOut))
		egressCloseWrite(t.up)
	}()
	go func() {
		defer wg.Done()
		note(t.copy(t.client, t.up, func(n int) { ex.in.Add(int64(n)) }))
		egressCloseWrite(t.client)
	}()
	wg.Wait()
	return first
}

// copy moves bytes from src to dst through a buffer, counting them as
// they pass. (Splicing in the kernel would be faster but hides progress
// until a whole chunk has moved, and the idle rule below needs to see
// every byte.) A read that times out ends the copy only when neither
// direction has moved a byte for the idle timeout: a long download with
// nothing sent back is not idle. A receiver that stops reading holds
// only this direction, and only for the idle timeout.
func (t *egressTunnel) copy(dst, src net.Conn, count func(int)) error {
	buf := make([]byte, egressTunnelBuf)
	for {
		_ = src.SetReadDeadline(time.Now().Add(t.idle))
		n, err := src.Read(buf)
		if n > 0 {
			t.touch()
			count(n)
			_ = dst.SetWriteDeadline(time.Now().Add(t.idle))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				t.cut() // the receiving side is gone: stop both
				return werr
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, os.ErrDeadlineExceeded) && time.Since(time.Unix(0, t.last.Load())) < t.idle:
		case errors.Is(err, os.ErrDeadlineExceeded):
			t.cut()
			return errors.New("idle timeout")
		default:
			return err
		}
	}
}

// egressTunnelBuf is the relay buffer of one direction of a tunnel.
const egressTunnelBuf = 64 << 10

func egressCloseWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}
