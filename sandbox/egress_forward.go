package sandbox

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"time"
)

// serveForward handles a plain-HTTP proxy request ("GET http://host/path"):
// decide, dial, send the request with the proxy's own headers removed,
// stream the response back. Each request gets its own upstream connection,
// decided and recorded on its own, so a keep-alive client connection that
// names a different host on each request is decided each time.
func (e *egress) serveForward(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.URL.Scheme, "http") {
		egressError(w, http.StatusBadRequest, "Airlock's egress proxy forwards only http:// URLs; "+r.URL.Scheme+"://… goes through CONNECT (set HTTPS_PROXY)")
		return
	}
	host, port, err := egressTarget(r.URL.Host, 80)
	if err != nil {
		egressError(w, http.StatusBadRequest, "Airlock's egress proxy: "+err.Error())
		return
	}
	ex := &egressExchange{method: r.Method, host: host, port: port, start: time.Now()}
	addrs := e.admit(r.Context(), ex, "http")
	// the decision is in the log before anything is dialled or answered
	if !e.decided(ex) {
		e.answerRefusal(w, ex)
		return
	}
	defer e.recordEnd(ex)
	conn, err := e.dial(r.Context(), ex, addrs)
	if err != nil {
		ex.status, ex.err = http.StatusBadGateway, err.Error()
		egressError(w, http.StatusBadGateway, "Airlock's egress proxy could not connect to "+r.URL.Host+": "+err.Error())
		return
	}
	up := &egressConn{Conn: conn, ex: ex, idle: e.opt.IdleTimeout}
	e.track(up)
	defer e.untrack(up)
	defer up.Close()

	out := &http.Request{
		Method:           r.Method,
		URL:              r.URL,
		Proto:            "HTTP/1.1",
		ProtoMajor:       1,
		ProtoMinor:       1,
		Header:           r.Header.Clone(),
		Body:             r.Body,
		ContentLength:    r.ContentLength,
		TransferEncoding: r.TransferEncoding,
		Host:             r.Host,
		Close:            true, // one request per upstream connection
	}
	if r.ContentLength == 0 {
		out.Body = nil
	}
	out.URL.User = nil
	stripEgressHopByHop(out.Header)
	out.Header.Del("Expect") // the client's 100-continue was answered by this server
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = []string{""} // Request.Write would add Go's own
	}
	if err := out.Write(up); err != nil {
		ex.status, ex.err = http.StatusBadGateway, "send request: "+err.Error()
		egressError(w, http.StatusBadGateway, "Airlock's egress proxy could not send the request to "+r.URL.Host+": "+err.Error())
		return
	}
	// http.ReadResponse puts no bound on a header: until the head is read,
	// the upstream gets egressMaxResponseHead bytes and no more.
	head := &egressHeadLimit{r: up, left: egressMaxResponseHead}
	br := bufio.NewReaderSize(head, egressBufSize)
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(br, out)
		if err != nil {
			ex.status, ex.err = http.StatusBadGateway, "read response: "+err.Error()
			egressError(w, http.StatusBadGateway, "Airlock's egress proxy got no valid response from "+r.URL.Host+": "+err.Error())
			return
		}
		// Interim answers (100 Continue, 103 Early Hints) are dropped;
		// 101 cannot happen because Upgrade is not forwarded.
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	head.left = -1
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		ex.status, ex.err = http.StatusBadGateway, "upstream switched protocols"
		egressError(w, http.StatusBadGateway, "Airlock's egress proxy does not relay protocol upgrades over plain HTTP; use CONNECT")
		return
	}
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	stripEgressHopByHop(h)
	w.WriteHeader(resp.StatusCode)
	if err := streamEgressBody(w, resp.Body); err != nil {
		ex.err = "relay response: " + err.Error()
	}
}

// streamEgressBody copies a response body, flushing each chunk so that a
// streamed answer (server-sent events, a long download) reaches the client
// as it arrives.
func streamEgressBody(w http.ResponseWriter, body io.Reader) error {
	rc := http.NewResponseController(w)
	buf := make([]byte, egressBufSize)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			_ = rc.Flush()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// egressHopByHop are the headers that describe one connection, not the
// message (RFC 9110 §7.6.1), plus the proxy's own credentials, which
// must never reach the destination.
var egressHopByHop = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func stripEgressHopByHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range egressHopByHop {
		h.Del(k)
	}
}

// egressConn counts an upstream connection's bytes into its exchange and
// gives every read and write the idle timeout.
type egressConn struct {
	net.Conn
	ex   *egressExchange
	idle time.Duration
}

func (c *egressConn) cut() { _ = c.Close() }

func (c *egressConn) Read(p []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Read(p)
	c.ex.in.Add(int64(n))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errors.New("upstream idle timeout")
	}
	return n, err
}

func (c *egressConn) Write(p []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(p)
	c.ex.addOut(n)
	return n, err
}

// egressMaxResponseHead bounds an upstream response's status line and
// headers (interim responses included).
const egressMaxResponseHead = 1 << 20

// egressHeadLimit reads at most left bytes while left >= 0; -1 lifts the
// limit once the head has been read.
type egressHeadLimit struct {
	r    io.Reader
	left int64
}

func (h *egressHeadLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		return 0, errors.New("response head larger than 1 MiB")
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	h.left -= int64(n)
	return n, err
}
