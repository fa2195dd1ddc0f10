package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// wire is the server's stdout, shared by mcp-go and the lines this program
// writes by hand: answers mcp-go would not give (a refused server/discover,
// responses to ids nobody sent) and the server→client sampling request.
// Every Write is one whole line, so holding mu keeps lines from interleaving.
type wire struct {
	mu  sync.Mutex
	out io.Writer
	// after, when set, runs under mu after each line goes out and may
	// write more lines with w.out.
	after func(line []byte)

	pmu sync.Mutex
	// pending holds server→client requests awaiting the client's answer,
	// by raw id.
	pending map[string]chan []byte
	// calls are the ids of ask_llm calls not yet picked up by a handler.
	calls []json.RawMessage
}

func newWire(out io.Writer) *wire {
	return &wire{out: out, pending: map[string]chan []byte{}}
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.out.Write(p)
	if err == nil && w.after != nil {
		w.after(p)
	}
	return n, err
}

// message is the part of a JSON-RPC line the server routes on.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

// request sends a server→client request with the given id and waits for
// the client's answer line.
func (w *wire) request(ctx context.Context, id json.RawMessage, method string, params any) ([]byte, error) {
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	ch := make(chan []byte, 1)
	w.pmu.Lock()
	w.pending[string(id)] = ch
	w.pmu.Unlock()
	defer func() {
		w.pmu.Lock()
		delete(w.pending, string(id))
		w.pmu.Unlock()
	}()
	if _, err := w.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	select {
	case answer := <-ch:
		return answer, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s %s: %w", method, id, ctx.Err())
	}
}

// deliver hands a response line to the request waiting on its id, and
// reports whether one was.
func (w *wire) deliver(id json.RawMessage, line []byte) bool {
	w.pmu.Lock()
	ch, ok := w.pending[string(id)]
	delete(w.pending, string(id))
	w.pmu.Unlock()
	if ok {
		ch <- line
	}
	return ok
}

func (w *wire) noteCall(id json.RawMessage) {
	w.pmu.Lock()
	w.calls = append(w.calls, id)
	w.pmu.Unlock()
}

func (w *wire) takeCall() json.RawMessage {
	w.pmu.Lock()
	defer w.pmu.Unlock()
	if len(w.calls) == 0 {
		return nil
	}
	id := w.calls[0]
	w.calls = w.calls[1:]
	return id
}

// ghostsAfterHandshake makes the wire follow the first handshake answer
// (initialize or server/discover) with responses to ids the client never
// sent, one numeric and one string: a proxy must not route them to anyone.
func (w *wire) ghostsAfterHandshake(handshakes *sync.Map) {
	var once sync.Once
	w.after = func(line []byte) {
		var m message
		if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.Result) == 0 {
			return
		}
		if _, ok := handshakes.Load(string(m.ID)); !ok {
			return
		}
		once.Do(func() {
			fmt.Fprintf(w.out, "%s\n%s\n", `{"jsonrpc":"2.0","id":999,"result":{}}`, `{"jsonrpc":"2.0","id":"ghost","result":{}}`)
		})
	}
}

// serve runs srv over in and w until in closes. Every line read is first
// appended to received, then either answered here or handed to mcp-go.
func serve(c config, srv *server.MCPServer, w *wire, in io.Reader, received io.Writer) error {
	var handshakes sync.Map
	if c.mode == "unsolicited" {
		w.ghostsAfterHandshake(&handshakes)
	}
	if c.mode == "ignoreterm" {
		// the proxy's shutdown must escalate to SIGKILL for this one
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	}
	pr, pw := io.Pipe()
	go func() {
		err := pump(c, in, received, w, pw, &handshakes)
		if c.mode == "ignoreterm" {
			// deaf to EOF too, so that only SIGKILL ends it promptly
			time.Sleep(c.linger)
			os.Exit(0)
		}
		pw.CloseWithError(err)
	}()
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(os.Stderr, "fakemcp: ", 0))
	return stdio.Listen(context.Background(), pr, w)
}

// pump copies client lines to mcp-go, logging each one and taking out
// those this program answers itself.
func pump(c config, in io.Reader, received io.Writer, w *wire, to io.Writer, handshakes *sync.Map) error {
	r := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if _, werr := received.Write(line); werr != nil {
				return fmt.Errorf("write -log: %w", werr)
			}
			if forward := route(c, line, w, handshakes); forward {
				if _, werr := to.Write(line); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// route answers what mcp-go must not see and reports whether the line
// should still go to it.
func route(c config, line []byte, w *wire, handshakes *sync.Map) bool {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return true // batches and garbage: mcp-go answers those
	}
	id := json.RawMessage(bytes.TrimSpace(m.ID))
	hasID := len(id) > 0 && string(id) != "null"
	switch {
	case m.Method == "" && hasID:
		return !w.deliver(id, line)
	case m.Method == "server/discover" && hasID && c.legacy:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found: server/discover"}}`+"\n", id)
		return false
	case m.Method == "initialize" || m.Method == "server/discover":
		handshakes.Store(string(id), true)
	case m.Method == "tools/call" && m.Params.Name == "ask_llm":
		w.noteCall(id)
	}
	return true
}
