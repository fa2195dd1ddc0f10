package demo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentairlock/airlock/mcpproxy"
)

// protocolVersion is the MCP revision the demo's client speaks.
const protocolVersion = "2025-06-18"

// client is the agent's side of one MCP server behind the real proxy:
// mcpproxy.Main runs in this process, on pipes, exactly as airlock-mcp
// would, and starts the embedded server as its child.
type client struct {
	toProxy *io.PipeWriter
	lines   chan []byte // the proxy's output, line by line; closed at its end
	exit    chan int    // the proxy's exit code
	stderr  *lockedBuffer
	timeout time.Duration
	nextID  int
}

// lockedBuffer collects the proxy's and the server's stderr, written from
// the proxy's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startProxy runs `airlock-mcp --name NAME -- SERVER… --server NAME --state FILE`.
func (r *runner) startProxy(server string) *client {
	args := append([]string{"--name", server, "--"}, r.o.Server...)
	args = append(args, "--server", server, "--state", r.w.statePath(server))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{toProxy: inW, lines: make(chan []byte, 16), exit: make(chan int, 1),
		stderr: &lockedBuffer{}, timeout: r.o.Timeout}
	go func() {
		code := mcpproxy.Main(args, inR, outW, c.stderr)
		// nothing reads the client's pipe once the proxy is gone
		inR.CloseWithError(io.ErrClosedPipe)
		outW.Close()
		c.exit <- code
	}()
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	return c
}

// rpcAnswer is a JSON-RPC response as the client reads it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and waits for the response with its id; anything
// else the proxy relays meanwhile (notifications) is passed over.
func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	deadline := time.NewTimer(c.timeout)
	defer deadline.Stop()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return nil, fmt.Errorf("%s: the proxy closed its output without answering", method)
			}
			var a rpcAnswer
			if err := json.Unmarshal(line, &a); err != nil {
				return nil, fmt.Errorf("%s: the proxy answered with a line that is not JSON: %.200s", method, line)
			}
			if a.Method != "" || string(bytes.TrimSpace(a.ID)) != id {
				continue
			}
			if a.Error != nil {
				return nil, fmt.Errorf("%s: error %d: %s", method, a.Error.Code, a.Error.Message)
			}
			return a.Result, nil
		case <-deadline.C:
			return nil, fmt.Errorf("%s: no answer within %s", method, c.timeout)
		}
	}
}

func (c *client) notify(method string) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method})
}

func (c *client) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.toProxy.Write(append(b, '\n'))
	if errors.Is(err, io.ErrClosedPipe) {
		return errors.New("the proxy has exited")
	}
	return err
}

// close ends the session the way an agent does, by closing the proxy's
// stdin, and returns the proxy's exit code (the server's status).
func (c *client) close() (int, error) {
	c.toProxy.Close()
	go func() {
		for range c.lines { // drain, so the proxy is never stuck writing
		}
	}()
	select {
	case code := <-c.exit:
		return code, nil
	case <-time.After(c.timeout):
		return -1, fmt.Errorf("the proxy did not exit within %s of its client leaving", c.timeout)
	}
}

// handshake is what an agent does on connecting: initialize, initialized,
// and the tool list, which the proxy reads to admit the toolset.
func (c *client) handshake() (tools int, err error) {
	if _, err := c.call("initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "airlock-demo", "version": "1"},
	}); err != nil {
		return 0, err
	}
	if err := c.notify("notifications/initialized"); err != nil {
		return 0, err
	}
	res, err := c.call("tools/list", map[string]any{})
	if err != nil {
		return 0, err
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return 0, fmt.Errorf("tools/list: %w", err)
	}
	return len(list.Tools), nil
}

// toolResult is a tools/call result, with the decision the proxy attaches
// to a refusal.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
	Meta    struct {
		Decision struct {
			Rule   string `json:"rule"`
			Source string `json:"source"`
		} `json:"airlock/decision"`
	} `json:"_meta"`
}

func (t *toolResult) text() string {
	var b bytes.Buffer
	for _, c := range t.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// refused reports whether the proxy, not the server, answered the call.
func (t *toolResult) refused() bool {
	return t.IsError && bytes.HasPrefix([]byte(t.text()), []byte(mcpproxy.BlockedPrefix))
}
