package hook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// GitHub Copilot (docs.github.com, Copilot CLI hooks reference): a
// preToolUse hook gets {timestamp, cwd, toolName, toolArgs} with toolArgs
// a JSON string; postToolUse adds toolResult {resultType,
// textResultForLlm}. Its tools: bash and powershell (command), view
// (path), create (path, file_text), edit and str_replace (path, old_str,
// new_str), glob, grep, web_fetch (url); an MCP tool is
// SERVER-TOOL, named mcp__SERVER__TOOL here when SERVER is one of the
// servers in Copilot's mcp-config.json (copilotMCPName), so that a rule for
// mcp__SERVER__* covers it as it covers every other agent's. The CLI
// also accepts Claude Code's PascalCase PreToolUse payload. The answer is
// {"permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason"}
// on stdout; Copilot's CLI puts an ask to the person itself. A hook that
// outlives timeoutSec is let through, so the deadline answers first.
var copilotAdapter = &adapter{
	parse: parseCopilot,
	post: func(root gjson.Result) bool {
		n := str(root, "hook_event_name")
		return n == "PostToolUse" || n == "PostToolUseFailure" || root.Get("toolResult").Exists()
	},
	asks:   func(*Event) bool { return true },
	answer: answerCopilot,
}

func parseCopilot(root gjson.Result) (*Event, error) {
	if !root.IsObject() {
		return nil, errors.New("the event is not a JSON object")
	}
	if root.Get("tool_name").Exists() {
		// Claude Code's payload (a PascalCase PreToolUse key)
		ev, err := parseClaude(root)
		if err != nil {
			return nil, err
		}
		ev.Agent = Copilot
		ev.Via = Claude
		return mapCopilot(ev, ev.Tool, gjson.ParseBytes(ev.Input))
	}
	tool := str(root, "toolName")
	in, ok := objectArgs(root.Get("toolArgs"))
	if tool != "" && !ok && gjson.Parse(root.Get("toolArgs").String()).IsObject() {
		return nil, errDuplicateMember
	}
	if tool == "" || !ok {
		return nil, errors.New("the event has no toolName and toolArgs (a JSON object, or a string holding one)")
	}
	ev := &Event{Agent: Copilot, Name: "preToolUse", Cwd: str(root, "cwd"), Session: str(root, "sessionId")}
	if r := root.Get("toolResult"); r.Exists() {
		ev.Name = "postToolUse"
		ev.Response = r.Get("textResultForLlm")
		if rt := str(r, "resultType"); rt == "failure" || rt == "error" {
			ev.Failed = true
		}
	}
	return mapCopilot(ev, tool, in)
}

func mapCopilot(ev *Event, tool string, in gjson.Result) (*Event, error) {
	if !uniqueMembers(in) {
		return nil, errDuplicateMember
	}
	var c Call
	switch strings.ToLower(tool) {
	case "bash", "powershell", "shell":
		cmd, ok := commandOf(in.Get("command"))
		if !ok {
			return nil, fmt.Errorf("%s without a command", tool)
		}
		c = Call{Tool: "Bash", Input: newInput().set("command", cmd).from(in, "description", "description").consume("command", "sessionId", "async", "timeout", "mode", "initial_wait").json(in)}
	case "write_bash":
		// text typed into a shell session bash started (async): what the
		// shell will run, judged as a command ({enter} is a newline)
		text := str(in, "input")
		if text == "" {
			c = Call{Tool: tool, Input: []byte(in.Raw)}
			break
		}
		text = strings.ReplaceAll(strings.ReplaceAll(text, "{enter}", "\n"), "{ENTER}", "\n")
		c = Call{Tool: "Bash", Input: newInput().set("command", text).consume("input", "sessionId", "delay").json(in)}
	case "view", "read":
		c = Call{Tool: "Read", Input: newInput().from(in, "file_path", "path", "file_path").consume("view_range").json(in)}
	case "create", "write":
		c = Call{Tool: "Write", Input: newInput().from(in, "file_path", "path", "file_path").from(in, "content", "file_text", "content").json(in)}
	case "edit", "str_replace", "str_replace_editor":
		c = Call{Tool: "Edit", Input: newInput().from(in, "file_path", "path", "file_path").from(in, "old_string", "old_str", "old_string").
			from(in, "new_string", "new_str", "new_string").consume("command").json(in)}
	case "glob":
		c = Call{Tool: "Glob", Input: newInput().from(in, "pattern", "pattern").from(in, "path", "path").json(in)}
	case "grep", "rg":
		c = Call{Tool: "Grep", Input: newInput().from(in, "pattern", "pattern").from(in, "path", "path").from(in, "glob", "glob").json(in)}
	case "web_fetch", "fetch":
		c = Call{Tool: "WebFetch", Input: newInput().from(in, "url", "url").json(in)}
	default:
		c = Call{Tool: copilotMCPName(tool), Input: []byte(in.Raw)}
	}
	ev.Calls = []Call{c}
	if tool != c.Tool {
		ev.AgentTool = tool
	}
	ev.Tool, ev.Input = c.Tool, c.Input
	return ev, nil
}

func answerCopilot(w answerTo, ev *Event, v verdict) int {
	if v.Action == policy.Allow {
		return ExitAllow
	}
	word, reason := "deny", "Airlock blocked this call: "+v.Reason
	if v.Tool != "" {
		reason = "Airlock blocked this call: " + textsafe.Escape(v.Tool) + ": " + v.Reason
	}
	if v.Action == policy.Ask {
		word, reason = "ask", "Airlock: "+v.Reason
	}
	out := map[string]any{"permissionDecision": word, "permissionDecisionReason": reason}
	if ev != nil && ev.Via == Claude {
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "PreToolUse", "permissionDecision": word, "permissionDecisionReason": reason}
	}
	writeJSON(w.Stdout, out)
	if v.Action == policy.Block && ev != nil && ev.Via == Claude {
		fmt.Fprintln(w.Stderr, reason)
		return ExitBlock
	}
	return ExitAllow
}

// copilotServers lists the MCP servers Copilot CLI is configured with:
// the mcpServers keys of mcp-config.json in $COPILOT_HOME or ~/.copilot.
// A variable so that the fixtures' tests name their own.
var copilotServers = func() []string {
	dir := os.Getenv("COPILOT_HOME")
	if dir == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(h, ".copilot")
	}
	b, err := regular.Read(filepath.Join(dir, "mcp-config.json"), 1<<20)
	if err != nil {
		return nil
	}
	var names []string
	gjson.GetBytes(b, "mcpServers").ForEach(func(k, _ gjson.Result) bool {
		names = append(names, k.String())
		return true
	})
	return names
}

// copilotMCPName names an MCP tool as the policy does: Copilot shows the
// model SERVER-TOOL; the longest configured server name that prefixes it
// with a dash decides where the server's name ends (a server "my-fs" and
// a tool "read" give my-fs-read). A name no server prefixes is kept.
func copilotMCPName(tool string) string {
	if !strings.Contains(tool, "-") || strings.HasPrefix(tool, "mcp__") {
		return tool
	}
	best := ""
	for _, s := range copilotServers() {
		if len(s) > len(best) && strings.HasPrefix(tool, s+"-") && len(tool) > len(s)+1 {
			best = s
		}
	}
	if best == "" {
		return tool
	}
	return "mcp__" + best + "__" + tool[len(best)+1:]
}
