package hook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Windsurf's Cascade (docs.windsurf.com/windsurf/cascade/hooks): one event
// per action, named by agent_action_name, its arguments in tool_info —
// pre_run_command {command_line, cwd}, pre_read_code {file_path},
// pre_write_code {file_path, edits[{old_string,new_string}]},
// pre_mcp_tool_use {mcp_server_name, mcp_tool_name, mcp_tool_arguments};
// post_* after the action. There is no tool_name. A hook refuses with
// exit 2 (the reason on stderr); Cascade cannot be asked from a hook, so
// asks go to Airlock's channel.
var windsurfAdapter = &adapter{
	parse:  parseWindsurf,
	post:   func(root gjson.Result) bool { return strings.HasPrefix(str(root, "agent_action_name"), "post_") },
	asks:   never,
	answer: answerExit2,
}

func parseWindsurf(root gjson.Result) (*Event, error) {
	if !root.IsObject() {
		return nil, errors.New("the event is not a JSON object")
	}
	name := str(root, "agent_action_name")
	info := root.Get("tool_info")
	if name == "" || !info.IsObject() || !uniqueMembers(info) {
		return nil, errors.New("the event has no agent_action_name and tool_info object")
	}
	ev := &Event{Agent: Windsurf, Name: name, Session: str(root, "trajectory_id"), Cwd: str(info, "cwd"), Response: info.Get("output")}
	action := strings.TrimPrefix(strings.TrimPrefix(name, "pre_"), "post_")
	switch action {
	case "run_command":
		cmd := str(info, "command_line")
		if cmd == "" {
			return nil, fmt.Errorf("%s without a command_line", name)
		}
		ev.Calls = []Call{{Tool: "Bash", Input: newInput().set("command", cmd).consume("command_line", "cwd", "output", "exit_code").json(info)}}
	case "read_code":
		ev.Calls = []Call{{Tool: "Read", Input: newInput().from(info, "file_path", "file_path").consume("content").json(info)}}
	case "write_code":
		ni := newInput().from(info, "file_path", "file_path").consume("edits")
		edits := info.Get("edits")
		if edits.IsArray() {
			ni.set("edits", rawJSON(edits.Raw))
			ev.Calls = []Call{{Tool: "MultiEdit", Input: ni.json(info)}}
		} else {
			ev.Calls = []Call{{Tool: "Write", Input: ni.json(info)}}
		}
	case "mcp_tool_use":
		server, tool := str(info, "mcp_server_name"), str(info, "mcp_tool_name")
		args, ok := objectArgs(info.Get("mcp_tool_arguments"))
		if server == "" || tool == "" || !ok {
			return nil, fmt.Errorf("%s without mcp_server_name, mcp_tool_name and an arguments object", name)
		}
		ev.Calls = []Call{{Tool: mcpName(server, tool), Input: []byte(args.Raw)}}
	default:
		return nil, fmt.Errorf("%w: %s", errNoTool, name)
	}
	ev.Tool, ev.Input = ev.Calls[0].Tool, ev.Calls[0].Input
	ev.AgentTool = name
	return ev, nil
}

// answerExit2 refuses with exit 2 and the reason on stderr; an allow is
// exit 0 with nothing printed.
func answerExit2(w answerTo, _ *Event, v verdict) int {
	if v.Action != policy.Block {
		return ExitAllow
	}
	if v.Tool != "" {
		fmt.Fprintf(w.Stderr, "Airlock blocked this call: %s: %s\n", textsafe.Escape(v.Tool), v.Reason)
	} else {
		fmt.Fprintf(w.Stderr, "Airlock blocked this call: %s\n", v.Reason)
	}
	return ExitBlock
}
