package hook

import (
	"fmt"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Gemini CLI (geminicli.com/docs/hooks/reference): BeforeTool and
// AfterTool, with session_id, cwd, tool_name and tool_input. Its tools:
// run_shell_command (command, dir_path), read_file (absolute_path),
// read_many_files, write_file (file_path, content), replace (file_path,
// old_string, new_string), glob, grep_search (search_file_content in
// older builds), list_directory, web_fetch (a prompt holding the URLs),
// google_web_search; an MCP tool is named by mcp_context's server_name
// and tool_name (its tool_name is mcp_server_tool in 0.61). A deny is
// {"decision":"deny","reason":…} on stdout, and exit 2 with the reason on
// stderr (which Gemini logs as a hook failure, and blocks). Gemini's ask
// is not something its headless mode can put to a person, so asks go to
// Airlock's channel.
var geminiAdapter = &adapter{
	parse:  parseGemini,
	post:   func(root gjson.Result) bool { return root.Get("hook_event_name").String() == "AfterTool" },
	asks:   never,
	answer: answerGemini,
}

// maxURLs bounds the URLs of one web_fetch prompt (Gemini takes 20).
const maxURLs = 64

// findURLs lists the http(s) URLs in text, up to max+1 of them (no
// regexp: one compiled at package initialisation is paid by every hook
// process).
func findURLs(text string, max int) []string {
	var out []string
	for len(out) <= max {
		i := strings.Index(text, "http")
		if i < 0 {
			break
		}
		rest := text[i:]
		if !strings.HasPrefix(rest, "https://") && !strings.HasPrefix(rest, "http://") {
			text = rest[4:]
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool {
			return r <= ' ' || strings.ContainsRune("\"'<>()[]{}`", r)
		})
		if end < 0 {
			end = len(rest)
		}
		out = append(out, rest[:end])
		// a reader that takes the URL up to the next space (as Gemini's
		// may) reads more: "http://a.example'@169.254.169.254/" is a
		// user name and another host. Both readings are judged.
		word := strings.IndexFunc(rest, func(r rune) bool { return r <= ' ' })
		if word < 0 {
			word = len(rest)
		}
		if word > end {
			out = append(out, rest[:word])
		}
		text = rest[end:]
	}
	return out
}

func parseGemini(root gjson.Result) (*Event, error) {
	ev, err := parseClaude(root)
	if err != nil {
		return nil, err
	}
	ev.Agent = Gemini
	ev.Name = root.Get("hook_event_name").String()
	in := gjson.ParseBytes(ev.Input)
	raw := ev.Tool
	if !uniqueMembers(in) {
		return nil, errDuplicateMember
	}
	ev.Calls = nil
	one := func(tool string, ni *input) { ev.Calls = []Call{{Tool: tool, Input: ni.json(in)}} }
	switch raw {
	case "run_shell_command":
		cmd := str(in, "command")
		if cmd == "" {
			return nil, fmt.Errorf("%s without a command", raw)
		}
		dir, err := oneOf(in, "dir_path", "directory")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", raw, err)
		}
		if dir.Type == gjson.String && dir.Str != "" {
			ev.Cwd = joinCwd(ev.Cwd, dir.Str)
		}
		one("Bash", newInput().set("command", cmd).from(in, "description", "description").consume("command", "dir_path", "directory", "is_background"))
	case "read_file":
		one("Read", newInput().from(in, "file_path", "absolute_path", "file_path", "path").from(in, "offset", "offset").from(in, "limit", "limit"))
	case "read_many_files":
		var paths []string
		for _, k := range []string{"paths", "include"} {
			for _, p := range in.Get(k).Array() {
				if p.Type == gjson.String {
					paths = append(paths, p.Str)
				}
			}
		}
		if len(paths) == 0 || len(paths) > maxPatchFiles {
			return nil, fmt.Errorf("%s with %d paths", raw, len(paths))
		}
		for _, p := range paths {
			if strings.ContainsAny(p, "*?[{") {
				ev.Calls = append(ev.Calls, Call{Tool: "Glob", Input: newInput().set("pattern", p).json(nothing)})
			} else {
				ev.Calls = append(ev.Calls, Call{Tool: "Read", Input: newInput().set("file_path", p).json(nothing)})
			}
		}
		// exclusions and options are carried on the first call
		ev.Calls[0].Input = mergeCarry(ev.Calls[0].Input, in, "paths", "include")
	case "write_file":
		one("Write", newInput().from(in, "file_path", "file_path", "absolute_path", "path").from(in, "content", "content"))
	case "replace":
		one("Edit", newInput().from(in, "file_path", "file_path", "absolute_path", "path").
			from(in, "old_string", "old_string").from(in, "new_string", "new_string").from(in, "replace_all", "replace_all").consume("expected_replacements", "instruction"))
	case "glob":
		one("Glob", newInput().from(in, "pattern", "pattern").from(in, "path", "dir_path", "path"))
	case "grep_search", "search_file_content", "grep":
		one("Grep", newInput().from(in, "pattern", "pattern").from(in, "path", "dir_path", "path").from(in, "glob", "include"))
	case "list_directory", "ls":
		one("Glob", newInput().set("pattern", "*").from(in, "path", "dir_path", "path"))
	case "web_fetch":
		prompt := str(in, "prompt")
		urls := findURLs(prompt, maxURLs)
		if len(urls) > maxURLs {
			return nil, fmt.Errorf("%s names more than %d URLs", raw, maxURLs)
		}
		if u := str(in, "url"); u != "" {
			urls = append(urls, u)
		}
		if len(urls) == 0 {
			one("WebFetch", newInput().from(in, "prompt", "prompt"))
			break
		}
		for i, u := range urls {
			ni := newInput().set("url", strings.TrimRight(u, ".,;:!?")).set("prompt", prompt).consume("prompt", "url")
			if i == 0 {
				ev.Calls = append(ev.Calls, Call{Tool: "WebFetch", Input: ni.json(in)})
			} else {
				ev.Calls = append(ev.Calls, Call{Tool: "WebFetch", Input: ni.json(nothing)})
			}
		}
	case "google_web_search", "web_search":
		one("WebSearch", newInput().from(in, "query", "query"))
	default:
		// an MCP tool: Gemini 0.61 names it mcp_SERVER_TOOL in hooks (as
		// towards the model), which cannot be split, and says its server
		// and tool in mcp_context
		mc := root.Get("mcp_context")
		if server, tool := str(mc, "server_name"), str(mc, "tool_name"); server != "" && tool != "" {
			ev.Calls = []Call{{Tool: mcpName(server, tool), Input: ev.Input}}
			break
		}
		ev.Calls = []Call{{Tool: raw, Input: ev.Input}}
	}
	ev.Tool, ev.Input = ev.Calls[0].Tool, ev.Calls[0].Input
	if raw != ev.Tool {
		ev.AgentTool = raw
	}
	return ev, nil
}

// mergeCarry adds the members of src other than skip to a canonical
// object.
func mergeCarry(obj []byte, src gjson.Result, skip ...string) []byte {
	ni := newInput().consume(skip...)
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		ni.m[k.Str] = rawJSON(v.Raw)
		ni.used[k.Str] = true
		return true
	})
	return ni.json(src)
}

func answerGemini(w answerTo, _ *Event, v verdict) int {
	if v.Action != policy.Block {
		return ExitAllow
	}
	msg := "Airlock blocked this call: " + v.Reason
	if v.Tool != "" {
		msg = "Airlock blocked this call: " + textsafe.Escape(v.Tool) + ": " + v.Reason
	}
	writeJSON(w.Stdout, map[string]any{"decision": "deny", "reason": msg})
	fmt.Fprintln(w.Stderr, msg)
	return ExitBlock
}
