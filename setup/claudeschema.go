package setup

import (
	"encoding/json"
	"fmt"
)

// claudeSkips says why Claude Code would discard a settings file as a
// whole ("" when it loads it): the file is read with JSON.parse (no
// comments, no trailing commas), and a file failing the settings schema
// is skipped entirely. Only the hook schema is checked here: "hooks" is an
// object of lists of groups, each group has a "hooks" list, each hook a
// string "type", and a command hook a string "command".
func claudeSkips(data []byte) string {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(data, &root); err != nil {
		if !json.Valid(data) {
			return "not strict JSON (comments or trailing commas are not allowed in settings.json)"
		}
		return "not a JSON object"
	}
	raw, ok := root["hooks"]
	if !ok || string(raw) == "null" {
		return ""
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return `"hooks" is not an object`
	}
	for ev, list := range events {
		var groups []json.RawMessage
		if err := json.Unmarshal(list, &groups); err != nil {
			return fmt.Sprintf("hooks.%s is not a list", ev)
		}
		for gi, g := range groups {
			var group map[string]json.RawMessage
			if err := json.Unmarshal(g, &group); err != nil {
				return fmt.Sprintf("hooks.%s[%d] is not an object", ev, gi)
			}
			var hooks []map[string]json.RawMessage
			if hr, ok := group["hooks"]; !ok || json.Unmarshal(hr, &hooks) != nil {
				return fmt.Sprintf("hooks.%s[%d].hooks is not a list of hooks", ev, gi)
			}
			for hi, hk := range hooks {
				var typ, cmd string
				if json.Unmarshal(hk["type"], &typ) != nil {
					return fmt.Sprintf("hooks.%s[%d].hooks[%d].type is not a string", ev, gi, hi)
				}
				if typ == "command" && json.Unmarshal(hk["command"], &cmd) != nil {
					return fmt.Sprintf("hooks.%s[%d].hooks[%d].command is not a string", ev, gi, hi)
				}
			}
		}
	}
	return ""
}
