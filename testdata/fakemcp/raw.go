package main

import (
	"bufio"
	"encoding/json"
	"io"
)

// rawTools is echo-raw's whole tools/list result.
const rawTools = `{"tools":[{"name":"echo","description":"Echo the given text back unchanged.",` +
	`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`

// serveRaw is the benchmark server: a hand-written line loop with no SDK,
// so a benchmark through the proxy measures the proxy, not the server. It
// answers with the request's id bytes as they came.
func serveRaw(in io.Reader, out io.Writer, received io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	bw := bufio.NewWriterSize(out, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := received.Write(line); werr != nil {
				return werr
			}
			if reply := rawAnswer(line); reply != nil {
				bw.Write(reply)
				if ferr := bw.Flush(); ferr != nil {
					return ferr
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

// rawAnswer is the reply line to one client line, or nil for a
// notification or a response.
func rawAnswer(line []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return rawReply(json.RawMessage("null"), "", `{"code":-32700,"message":"Parse error"}`)
	}
	if len(m.ID) == 0 || m.Method == "" {
		return nil
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v := "2025-11-25"
		switch p.ProtocolVersion {
		case "2024-11-05", "2025-03-26", "2025-06-18":
			v = p.ProtocolVersion
		}
		return rawReply(m.ID, `{"protocolVersion":"`+v+`","capabilities":{"tools":{}},"serverInfo":{"name":"fakemcp-echo-raw","version":"1.0.0"}}`, "")
	case "ping":
		return rawReply(m.ID, `{}`, "")
	case "tools/list":
		return rawReply(m.ID, rawTools, "")
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Name != "echo" {
			return rawReply(m.ID, "", `{"code":-32602,"message":"unknown tool"}`)
		}
		text, _ := json.Marshal(p.Arguments.Text)
		return rawReply(m.ID, `{"content":[{"type":"text","text":`+string(text)+`}],"isError":false}`, "")
	}
	return rawReply(m.ID, "", `{"code":-32601,"message":"Method not found"}`)
}

func rawReply(id json.RawMessage, result, rpcErr string) []byte {
	b := make([]byte, 0, 64+len(id)+len(result)+len(rpcErr))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	if rpcErr != "" {
		b = append(b, `,"error":`...)
		b = append(b, rpcErr...)
	} else {
		b = append(b, `,"result":`...)
		b = append(b, result...)
	}
	return append(b, "}\n"...)
}
