package hook

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Claude Code (docs.claude.com, hooks reference): PreToolUse with
// tool_name and tool_input; PostToolUse and PostToolUseFailure record.
//
// Cursor runs the hooks of ~/.claude/settings.json too when its
// third-party hooks are on, with its own tool names and fields
// (cursor.com/docs/reference/third-party-hooks): an event carrying
// Cursor's documented fields is read as Cursor's, answered in Claude
// Code's format (the file it came through), and its ask goes to Airlock's
// channel, since Cursor's preToolUse cannot ask.
var claudeAdapter = &adapter{
	parse: func(root gjson.Result) (*Event, error) {
		if isCursorEvent(root) {
			ev, err := parseCursor(root)
			if err != nil {
				return nil, err
			}
			ev.Via = Claude
			return ev, nil
		}
		return parseClaude(root)
	},
	post: func(root gjson.Result) bool {
		name := root.Get("hook_event_name").String()
		return postEvent(name) || isCursorEvent(root) && cursorPost(name)
	},
	asks:   func(ev *Event) bool { return ev.Agent == Claude },
	answer: answerClaude,
}

// isCursorEvent: fields only Cursor sends (its common input). A look for
// the names' bytes first keeps Claude Code's own events from paying for
// two more walks of the object.
func isCursorEvent(root gjson.Result) bool {
	if !strings.Contains(root.Raw, `"cursor_version"`) && !strings.Contains(root.Raw, `"conversation_id"`) {
		return false
	}
	return root.Get("cursor_version").Exists() ||
		root.Get("conversation_id").Exists() && root.Get("generation_id").Exists()
}
