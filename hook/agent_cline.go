package hook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Cline (docs.cline.bot/customization/hooks): an executable per hook
// (PreToolUse, PostToolUse, …) gets {clineVersion, hookName, timestamp,
// taskId, workspaceRoots, preToolUse: {toolName, parameters}} (newer
// builds also tool_call {id, name, input}; PostToolUse has postToolUse
// with result and success). Its tools: execute_command (command),
// read_file (path), write_to_file (path, content), replace_in_file (path,
// diff of SEARCH/REPLACE blocks), search_files (path, regex,
// file_pattern), list_files, list_code_definition_names, browser_action
// (url), web_fetch (url), use_mcp_tool (server_name, tool_name, arguments
// as a JSON string), access_mcp_resource (server_name, uri); paths are
// the workspace's. The answer is {"cancel": bool, "errorMessage": …} on
// stdout; Cline cannot ask from a hook, so asks go to Airlock's channel.
var clineAdapter = &adapter{
	parse:      parseCline,
	post:       func(root gjson.Result) bool { return str(root, "hookName") == "PostToolUse" },
	asks:       never,
	answer:     answerCline,
	answerPost: func(w answerTo) { writeJSON(w.Stdout, map[string]any{"cancel": false}) },
}

func parseCline(root gjson.Result) (*Event, error) {
	if !root.IsObject() {
		return nil, errors.New("the event is not a JSON object")
	}
	ev := &Event{Agent: Cline, Name: str(root, "hookName"), Session: str(root, "taskId"), Cwd: str(root, "workspaceRoots.0")}
	var tool string
	var params gjson.Result
	for _, k := range []string{"preToolUse", "postToolUse"} {
		if p := root.Get(k); p.IsObject() {
			tool, params = str(p, "toolName"), p.Get("parameters")
			ev.Response = p.Get("result")
			if s := p.Get("success"); s.Exists() && !s.Bool() {
				ev.Failed = true
			}
		}
	}
	if tool == "" {
		if tc := root.Get("tool_call"); tc.IsObject() {
			tool, params = str(tc, "name"), tc.Get("input")
		}
	}
	in, ok := objectArgs(params)
	if tool == "" || !ok {
		return nil, errors.New("the event has no preToolUse.toolName and parameters object")
	}
	c, err := clineTool(tool, in)
	if err != nil {
		return nil, err
	}
	ev.Calls = []Call{c}
	ev.Tool, ev.Input = c.Tool, c.Input
	if tool != ev.Tool {
		ev.AgentTool = tool
	}
	return ev, nil
}

func clineTool(tool string, in gjson.Result) (Call, error) {
	switch tool {
	case "execute_command":
		cmd := str(in, "command")
		if cmd == "" {
			return Call{}, fmt.Errorf("%s without a command", tool)
		}
		return Call{Tool: "Bash", Input: newInput().set("command", cmd).consume("command", "requires_approval", "timeout").json(in)}, nil
	case "read_file":
		return Call{Tool: "Read", Input: newInput().from(in, "file_path", "path").json(in)}, nil
	case "write_to_file":
		return Call{Tool: "Write", Input: newInput().from(in, "file_path", "path").from(in, "content", "content").json(in)}, nil
	case "replace_in_file", "apply_diff":
		old, neu := searchReplace(str(in, "diff"))
		return Call{Tool: "Edit", Input: newInput().from(in, "file_path", "path").set("old_string", old).set("new_string", neu).consume("diff").json(in)}, nil
	case "search_files":
		return Call{Tool: "Grep", Input: newInput().from(in, "path", "path").from(in, "pattern", "regex").from(in, "glob", "file_pattern").json(in)}, nil
	case "list_files", "list_code_definition_names":
		return Call{Tool: "Glob", Input: newInput().set("pattern", "*").from(in, "path", "path").consume("recursive").json(in)}, nil
	case "browser_action", "web_fetch":
		if str(in, "url") == "" {
			return Call{Tool: tool, Input: []byte(in.Raw)}, nil
		}
		return Call{Tool: "WebFetch", Input: newInput().from(in, "url", "url").consume("action").json(in)}, nil
	case "use_mcp_tool":
		server, name := str(in, "server_name"), str(in, "tool_name")
		args, ok := objectArgs(in.Get("arguments"))
		if server == "" || name == "" || !ok {
			return Call{}, fmt.Errorf("%s without server_name, tool_name and an arguments object", tool)
		}
		return Call{Tool: mcpName(server, name), Input: []byte(args.Raw)}, nil
	case "access_mcp_resource":
		server := str(in, "server_name")
		if server == "" {
			return Call{}, fmt.Errorf("%s without server_name", tool)
		}
		return Call{Tool: mcpName(server, "access_mcp_resource"), Input: newInput().from(in, "uri", "uri").consume("server_name").json(in)}, nil
	}
	return Call{Tool: tool, Input: []byte(in.Raw)}, nil
}

// searchReplace reads Cline's SEARCH/REPLACE blocks: the text searched
// for and its replacement, each block's joined.
func searchReplace(diff string) (old, neu string) {
	var o, n []string
	state := 0 // 0 outside, 1 search, 2 replace
	for _, l := range strings.Split(diff, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasSuffix(t, "SEARCH") && (strings.HasPrefix(t, "-------") || strings.HasPrefix(t, "<<<<<<<")):
			state = 1
		case t == "=======" && state == 1:
			state = 2
		case strings.HasSuffix(t, "REPLACE") && (strings.HasPrefix(t, "+++++++") || strings.HasPrefix(t, ">>>>>>>")):
			state = 0
		case state == 1:
			o = append(o, l)
		case state == 2:
			n = append(n, l)
		}
	}
	if len(o) == 0 && len(n) == 0 {
		// not blocks: the whole diff is what is written
		return "", diff
	}
	return strings.Join(o, "\n"), strings.Join(n, "\n")
}

func answerCline(w answerTo, _ *Event, v verdict) int {
	if v.Action != policy.Block {
		writeJSON(w.Stdout, map[string]any{"cancel": false})
		return ExitAllow
	}
	msg := "Airlock blocked this call: " + v.Reason
	if v.Tool != "" {
		msg = "Airlock blocked this call: " + textsafe.Escape(v.Tool) + ": " + v.Reason
	}
	writeJSON(w.Stdout, map[string]any{"cancel": true, "errorMessage": msg})
	return ExitAllow
}
