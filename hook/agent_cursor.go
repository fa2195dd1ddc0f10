package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Cursor (cursor.com/docs/hooks): ~/.cursor/hooks.json runs the hook for
// preToolUse (tool_name Shell, Read, Write, Edit, Delete, Grep, Glob,
// Task, WebFetch, MCP:server:tool, with tool_input and tool_use_id),
// beforeShellExecution (command, cwd), beforeMCPExecution (tool_name,
// tool_input, and the server's url or command) and beforeReadFile
// (file_path, content); every event has conversation_id, generation_id,
// hook_event_name and workspace_roots. The answer is
// {"permission":"allow"|"deny"|"ask", "user_message", "agent_message"} on
// stdout (a deny also exits 2); with failClosed on, a hook that prints
// no permission refuses, so an allow is written too. An ask is honoured
// by beforeShellExecution and beforeMCPExecution only (preToolUse treats
// it as a deny): the others' asks go to Airlock's channel.
var cursorAdapter = &adapter{
	parse: parseCursor,
	post:  func(root gjson.Result) bool { return cursorPost(root.Get("hook_event_name").String()) },
	asks: func(ev *Event) bool {
		return ev.Via == "" && (ev.Name == "beforeShellExecution" || ev.Name == "beforeMCPExecution")
	},
	answer: answerCursor,
}

// cursorPost: Cursor's events after a tool ran.
func cursorPost(name string) bool {
	switch name {
	case "postToolUse", "postToolUseFailure", "afterShellExecution", "afterMCPExecution", "afterFileEdit", "afterReadFile",
		"PostToolUse", "PostToolUseFailure":
		return true
	}
	return false
}

func parseCursor(root gjson.Result) (*Event, error) {
	if !root.IsObject() {
		return nil, errors.New("the event is not a JSON object")
	}
	ev := &Event{Agent: Cursor, Name: str(root, "hook_event_name"), Session: str(root, "conversation_id"),
		Cwd: str(root, "cwd"), Response: root.Get("tool_output"), Error: str(root, "error_message")}
	if ev.Cwd == "" {
		ev.Cwd = str(root, "workspace_roots.0")
	}
	if !ev.Response.Exists() {
		ev.Response = root.Get("output")
	}
	ev.Failed = strings.EqualFold(ev.Name, "postToolUseFailure")
	switch ev.Name {
	case "beforeShellExecution", "afterShellExecution":
		cmd := str(root, "command")
		if cmd == "" {
			return nil, fmt.Errorf("%s without a command", ev.Name)
		}
		ev.AgentTool = "Shell"
		ev.Calls = []Call{{Tool: "Bash", Input: newInput().set("command", cmd).json(nothing)}}
	case "beforeReadFile", "afterReadFile":
		p := str(root, "file_path")
		if p == "" {
			return nil, fmt.Errorf("%s without a file_path", ev.Name)
		}
		ev.AgentTool = "Read"
		ev.Calls = []Call{{Tool: "Read", Input: newInput().set("file_path", p).json(nothing)}}
	case "afterFileEdit":
		p := str(root, "file_path")
		if p == "" {
			return nil, fmt.Errorf("%s without a file_path", ev.Name)
		}
		ev.AgentTool = "Edit"
		ev.Calls = []Call{{Tool: "Edit", Input: newInput().set("file_path", p).json(nothing)}}
	case "beforeMCPExecution", "afterMCPExecution":
		tool := str(root, "tool_name")
		args, ok := objectArgs(root.Get("tool_input"))
		if tool == "" || !ok {
			return nil, fmt.Errorf("%s without a tool_name and tool_input object", ev.Name)
		}
		server, name := cursorMCP(tool)
		if server == "" {
			server = mcpServerOf(root)
		}
		ev.AgentTool = tool
		ev.Calls = []Call{{Tool: mcpName(server, name), Input: []byte(args.Raw)}}
	default: // preToolUse, postToolUse(Failure), and Claude Code's names
		tn := root.Get("tool_name")
		if tn.Type != gjson.String || tn.Str == "" {
			return nil, errors.New("the event has no tool_name")
		}
		in, ok := objectArgs(root.Get("tool_input"))
		if !ok {
			return nil, errors.New("the event's tool_input is not a JSON object")
		}
		c, err := cursorTool(tn.Str, in, ev)
		if err != nil {
			return nil, err
		}
		ev.AgentTool = tn.Str
		ev.Calls = []Call{c}
	}
	ev.Tool, ev.Input = ev.Calls[0].Tool, ev.Calls[0].Input
	if ev.AgentTool == ev.Tool {
		ev.AgentTool = ""
	}
	if conv := str(root, "conversation_id"); conv != "" {
		h := sha256.New()
		for _, s := range []string{conv, str(root, "generation_id"), str(root, "tool_use_id"), ev.Tool, string(ev.Input)} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		ev.Dedupe = hex.EncodeToString(h.Sum(nil)[:16])
	}
	return ev, nil
}

// cursorTool maps one preToolUse tool.
func cursorTool(tool string, in gjson.Result, ev *Event) (Call, error) {
	filePath := []string{"file_path", "target_file", "path", "absolute_path", "filePath"}
	switch tool {
	case "Shell", "Bash", "run_terminal_cmd":
		cmd, ok := commandOf(in.Get("command"))
		if !ok {
			return Call{}, fmt.Errorf("%s without a command", tool)
		}
		// one directory, under either name: both, different, cannot be
		// judged as Cursor reads them (applying both judged a third)
		dir, err := oneOf(in, "cwd", "working_directory")
		if err != nil {
			return Call{}, fmt.Errorf("%s: %w", tool, err)
		}
		if dir.Type == gjson.String && dir.Str != "" {
			ev.Cwd = joinCwd(ev.Cwd, dir.Str)
		}
		return Call{Tool: "Bash", Input: newInput().set("command", cmd).from(in, "description", "description", "explanation").consume("command", "cwd", "working_directory", "is_background", "timeout").json(in)}, nil
	case "Read", "read_file":
		return Call{Tool: "Read", Input: newInput().from(in, "file_path", filePath...).from(in, "offset", "offset").from(in, "limit", "limit").json(in)}, nil
	case "Write", "write":
		return Call{Tool: "Write", Input: newInput().from(in, "file_path", filePath...).from(in, "content", "contents", "content", "file_text", "code").json(in)}, nil
	case "Edit", "edit_file", "search_replace":
		return Call{Tool: "Edit", Input: newInput().from(in, "file_path", filePath...).from(in, "old_string", "old_string").
			from(in, "new_string", "new_string", "code_edit").from(in, "replace_all", "replace_all").from(in, "description", "instructions", "explanation").json(in)}, nil
	case "Delete", "delete_file":
		ni := newInput()
		ni.from(in, "file_path", filePath...)
		p, _ := ni.m["file_path"].(string)
		if p == "" {
			return Call{}, fmt.Errorf("%s without a path", tool)
		}
		delete(ni.m, "file_path")
		return Call{Tool: "Bash", Input: ni.set("command", "rm -f -- "+shellQuote(p)).json(in)}, nil
	case "Grep", "grep":
		return Call{Tool: "Grep", Input: newInput().from(in, "pattern", "pattern", "query", "regex").from(in, "path", "path", "target_directory").from(in, "glob", "glob", "include", "include_pattern").json(in)}, nil
	case "Glob", "glob_file_search":
		return Call{Tool: "Glob", Input: newInput().from(in, "pattern", "glob_pattern", "pattern").from(in, "path", "target_directory", "path").json(in)}, nil
	case "LS", "list_dir":
		return Call{Tool: "Glob", Input: newInput().set("pattern", "*").from(in, "path", "target_directory", "path").json(in)}, nil
	case "Task":
		return Call{Tool: "Task", Input: []byte(in.Raw)}, nil
	case "WebFetch", "web_fetch":
		return Call{Tool: "WebFetch", Input: newInput().from(in, "url", "url").from(in, "prompt", "prompt").json(in)}, nil
	case "WebSearch", "web_search":
		return Call{Tool: "WebSearch", Input: newInput().from(in, "query", "query", "search_term").json(in)}, nil
	}
	if server, name := cursorMCP(tool); server != "" {
		return Call{Tool: mcpName(server, name), Input: []byte(in.Raw)}, nil
	}
	return Call{Tool: tool, Input: []byte(in.Raw)}, nil
}

// cursorMCP splits Cursor's MCP:server:tool name (a tool of an unnamed
// server, MCP:tool, has server "").
func cursorMCP(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "MCP:")
	if !ok {
		return "", name
	}
	if s, t, ok := strings.Cut(rest, ":"); ok {
		return s, t
	}
	return "", rest
}

// mcpServerOf names the server of a beforeMCPExecution event: Airlock's
// proxy's --name when the server is started through it, else the URL's
// host or the command's program, else "unknown".
func mcpServerOf(root gjson.Result) string {
	if s := str(root, "server_name"); s != "" {
		return s
	}
	if cmd := str(root, "command"); cmd != "" {
		f := strings.Fields(cmd)
		for i, w := range f {
			if w == "--name" && i+1 < len(f) {
				return f[i+1]
			}
		}
		if len(f) > 0 {
			return path.Base(f[0])
		}
	}
	if u := str(root, "url"); u != "" {
		u = u[strings.Index(u, "://")+1:]
		u = strings.TrimLeft(u, "/")
		if i := strings.IndexAny(u, "/:?#"); i >= 0 {
			u = u[:i]
		}
		if u != "" {
			return u
		}
	}
	return "unknown"
}

func answerCursor(w answerTo, _ *Event, v verdict) int {
	switch v.Action {
	case policy.Block:
		msg := "Airlock blocked this call: " + v.Reason
		if v.Tool != "" {
			msg = "Airlock blocked this call: " + textsafe.Escape(v.Tool) + ": " + v.Reason
		}
		writeJSON(w.Stdout, map[string]any{"permission": "deny", "user_message": msg, "agent_message": msg})
		fmt.Fprintln(w.Stderr, msg)
		return ExitBlock
	case policy.Ask:
		msg := "Airlock: " + v.Reason
		writeJSON(w.Stdout, map[string]any{"permission": "ask", "user_message": msg, "agent_message": msg})
		return ExitAllow
	}
	writeJSON(w.Stdout, map[string]any{"permission": "allow"})
	return ExitAllow
}
