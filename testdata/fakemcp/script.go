package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// script is -mode script's whole behaviour, read from -script FILE: what
// the server lists and answers, for the ingress tests (what a server
// shows the model and what it asks of the client).
type script struct {
	Instructions string            `json:"instructions,omitempty"`
	Tools        []json.RawMessage `json:"tools"`
	Prompts      []json.RawMessage `json:"prompts,omitempty"`
	Resources    []json.RawMessage `json:"resources,omitempty"`
	Templates    []json.RawMessage `json:"templates,omitempty"`
	// Results answer tools/call by tool name (the whole "result"); a
	// tool not named here echoes its arguments as text. NAME#retry
	// answers a call of NAME that carries inputResponses.
	Results map[string]json.RawMessage `json:"results,omitempty"`
	// Asks: before answering a call of the tool, the server sends this
	// request to the client and answers the call with the client's
	// answer line as text.
	Asks map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"asks,omitempty"`
	// After a call of a tool named here the server says its tools
	// changed and lists these from then on.
	Changes map[string][]json.RawMessage `json:"changes,omitempty"`
}

// serveScript is a hand-written line server (no SDK): the ingress tests
// need exact control of every listing and answer. Server/discover is
// refused, as a server that predates 2026-07-28 does.
func serveScript(path string, in io.Reader, out io.Writer, received io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read -script: %w", err)
	}
	var sc script
	if err := json.Unmarshal(b, &sc); err != nil {
		return fmt.Errorf("parse -script %s: %w", path, err)
	}
	var mu sync.Mutex
	bw := bufio.NewWriter(out)
	write := func(v any) {
		line, _ := json.Marshal(v)
		mu.Lock()
		bw.Write(append(line, '\n'))
		bw.Flush()
		mu.Unlock()
	}
	reply := func(id json.RawMessage, result any) {
		write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	asked := map[string]json.RawMessage{} // our request id → the call it answers
	n := 0
	r := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			received.Write(line)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name           string          `json:"name"`
					Arguments      json.RawMessage `json:"arguments"`
					InputResponses json.RawMessage `json:"inputResponses"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			switch {
			case m.Method == "" && len(m.ID) > 0:
				// the client's answer to our request
				if call, ok := asked[string(m.ID)]; ok {
					delete(asked, string(m.ID))
					reply(call, map[string]any{"content": []any{map[string]any{"type": "text", "text": "client answered: " + string(line)}}})
				}
			case len(m.ID) == 0:
				// a notification
			case m.Method == "server/discover":
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			case m.Method == "initialize":
				res := map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "fakemcp-script", "version": "1.0.0"},
					"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{}, "resources": map[string]any{}}}
				if sc.Instructions != "" {
					res["instructions"] = sc.Instructions
				}
				reply(m.ID, res)
			case m.Method == "ping":
				reply(m.ID, map[string]any{})
			case m.Method == "tools/list":
				reply(m.ID, map[string]any{"tools": nonNil(sc.Tools)})
			case m.Method == "prompts/list":
				reply(m.ID, map[string]any{"prompts": nonNil(sc.Prompts)})
			case m.Method == "resources/list":
				reply(m.ID, map[string]any{"resources": nonNil(sc.Resources)})
			case m.Method == "resources/templates/list":
				reply(m.ID, map[string]any{"resourceTemplates": nonNil(sc.Templates)})
			case m.Method == "tools/call":
				name := m.Params.Name
				if ask, ok := sc.Asks[name]; ok {
					n++
					id := json.RawMessage(fmt.Sprintf(`"fakemcp-ask-%d"`, n))
					asked[string(id)] = m.ID
					write(map[string]any{"jsonrpc": "2.0", "id": id, "method": ask.Method, "params": ask.Params})
					continue
				}
				key := name
				if len(m.Params.InputResponses) > 0 {
					key += "#retry"
				}
				if res, ok := sc.Results[key]; ok {
					reply(m.ID, res)
				} else {
					reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": string(m.Params.Arguments)}}})
				}
				if tools, ok := sc.Changes[name]; ok {
					sc.Tools = tools
					write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
				}
			default:
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
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

func nonNil(v []json.RawMessage) []json.RawMessage {
	if v == nil {
		return []json.RawMessage{}
	}
	return v
}
