package policy

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// ReplayInput rebuilds, from what a decision record keeps (the tool, the
// target that decided and the detail), the arguments of a call that a
// policy can decide again, or says why it cannot: a record keeps targets,
// not whole arguments, and a call rebuilt from less than its decision read
// would be re-decided on something it was not. Only two kinds are
// rebuilt:
//
//   - a native shell call (Bash) whose target is the whole command line.
//     One whose target is a path or host inside the command (the detail
//     says "… in argument command"), one simple command of a longer line
//     or a text cut short (PartOfCallNote; a record written
//     before the gate said so is known by the "…" clip leaves) is not
//     replayable: re-decided, the part could get another answer than the
//     line.
//   - a native read (Read, NotebookRead) of an absolute path.
//
// A target with a secret masked in it (audit masks every record) is not
// replayable either. Writes and edits (their content is not kept), searches (their pattern),
// fetches (their prompt) and MCP calls (their arguments are a digest) are
// not replayable.
func ReplayInput(tool, target, detail string) (input []byte, why string) {
	if strings.HasPrefix(strings.ToLower(tool), "mcp__") {
		return nil, "an MCP call's arguments are kept as a digest"
	}
	if target == "" {
		return nil, "the record names no target"
	}
	if strings.Contains(target, "[masked ") {
		// the log never holds a secret (audit masks it): the call rebuilt
		// from the mask is not the call that ran, and may be decided
		// otherwise than it would be
		return nil, "the record keeps the command with a secret masked, not as it ran"
	}
	switch toolKindOf(tool) {
	case kindShell:
		if strings.Contains(detail, PartOfCallNote) || strings.HasSuffix(target, "…") {
			return nil, "the record keeps the part of the command that decided, not the whole line"
		}
		if strings.Contains(detail, " in argument ") {
			return nil, "the record keeps the path or host that decided, not the command"
		}
		b, _ := json.Marshal(map[string]string{"command": target})
		return b, ""
	case kindRead:
		if !filepath.IsAbs(target) && !strings.HasPrefix(target, "/") {
			return nil, "the record keeps no absolute path"
		}
		b, _ := json.Marshal(map[string]string{"file_path": target})
		return b, ""
	case kindWrite:
		return nil, "a write's content is not kept"
	case kindGlob, kindGrep:
		return nil, "a search's pattern is not kept"
	case kindFetch:
		return nil, "a fetch's prompt is not kept"
	}
	return nil, "the record keeps only the target of this tool's call"
}

// PartOfCallNote, followed by the argument's name, is what a decision
// record's detail says when its target is a part of a shell call's command
// (the gate's record): ReplayInput does not rebuild the call from it.
const PartOfCallNote = "decided on a part of argument "

// ParseAction reads a recorded decision (allow, ask or block).
func ParseAction(s string) (Action, error) { return parseAction(s) }
