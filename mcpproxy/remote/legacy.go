package remote

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// The legacy HTTP+SSE transport (protocol 2024-11-05): a GET opens an
// event stream whose first event, "endpoint", names where to POST; every
// answer and every server request comes on that stream as a "message"
// event. Our reader hands each one to the proxy as it is: a server request
// with an id is a request, whatever its id (mcp-go's transport takes every
// message with an id for a response).

// endpointWait bounds the wait for the endpoint event.
const endpointWait = 30 * time.Second

// connectLegacy opens the stream and reads its endpoint.
func (c *Conn) connectLegacy() error {
	req, err := c.request(c.ctx, http.MethodGet, c.url.String(), nil, gjson.Result{})
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		hint := bodyHint(resp.Body)
		resp.Body.Close()
		return fmt.Errorf("the SSE stream answered HTTP %d (%s)%s", resp.StatusCode, ct, hint)
	}
	sr := newSSEReader(resp.Body, int(min(c.o.MaxMessage, int64(^uint(0)>>2))))
	timer := time.AfterFunc(endpointWait, func() { resp.Body.Close() })
	var endpoint string
	for {
		ev, err := sr.next()
		if err != nil {
			timer.Stop()
			resp.Body.Close()
			return fmt.Errorf("the SSE stream ended before it named its endpoint: %w", err)
		}
		if ev.Type == "endpoint" {
			endpoint = strings.TrimSpace(ev.Data)
			break
		}
	}
	timer.Stop()
	u, err := c.url.Parse(endpoint)
	if err != nil || u.Scheme != c.url.Scheme || !strings.EqualFold(u.Host, c.url.Host) {
		resp.Body.Close()
		// posting elsewhere would take the session to a host the policy
		// never judged
		return fmt.Errorf("the SSE stream named the endpoint %q, not on %s", clipText(endpoint, 200), c.url.Host)
	}
	c.mu.Lock()
	c.streamGen++
	gen := c.streamGen
	c.endpoint = u.String()
	c.mu.Unlock()
	go c.legacyStream(sr, resp.Body, gen)
	return nil
}

// legacyStream relays the stream's messages; at its end every request in
// flight is answered with an error and the next message reconnects.
func (c *Conn) legacyStream(sr *sseReader, body io.ReadCloser, gen int) {
	defer body.Close()
	var err error
	for {
		var ev sseEvent
		ev, err = sr.next()
		if err != nil {
			break
		}
		if ev.Type == "message" {
			c.deliver(ev.Data)
		}
	}
	c.mu.Lock()
	if gen != c.streamGen || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.endpoint = ""
	var lost []pend
	for k, p := range c.pending {
		lost = append(lost, p)
		delete(c.pending, k)
	}
	for k, ch := range c.own {
		delete(c.own, k)
		close(ch)
	}
	c.mu.Unlock()
	why := "the stream ended"
	if err != nil && !errors.Is(err, io.EOF) {
		why = err.Error()
	}
	c.breakSession(why)
	for _, p := range lost {
		c.writeOut(brokenAnswer(c.o.Name, p, why))
	}
}

// postLegacy posts one message to the endpoint; its answer comes on the
// stream.
func (c *Conn) postLegacy(raw string, m gjson.Result, isReq bool) {
	id, method := m.Get("id"), m.Get("method").String()
	c.mu.Lock()
	endpoint := c.endpoint
	c.mu.Unlock()
	if endpoint == "" {
		c.failReq(isReq, id, method, errors.New("the SSE stream is not open"))
		return
	}
	req, err := c.request(c.ctx, http.MethodPost, endpoint, []byte(raw), m)
	if err != nil {
		c.failReq(isReq, id, method, err)
		return
	}
	resp, err := c.do(req)
	if err != nil {
		c.failReq(isReq, id, method, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		c.failReq(isReq, id, method, fmt.Errorf("the server answered HTTP %d%s", resp.StatusCode, bodyHint(resp.Body)))
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
}
