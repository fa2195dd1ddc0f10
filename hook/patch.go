package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// maxPatchFiles bounds the files one patch may touch: each is a decision.
const maxPatchFiles = 256

// patchCalls reads a Codex apply_patch body (*** Begin Patch … *** End
// Patch) into one canonical call per file it touches: Write for an added
// file (its whole content), Edit for an update (the lines it removes and
// adds), a shell rm for a deletion and a shell mv for a move (the moved
// file's edit is judged at its new path). A patch that cannot be read is
// an error: what is not read is refused, never allowed.
func patchCalls(patch string) ([]Call, error) { return patchCallsIn(patch, "") }

// patchCallsIn is patchCalls for a patch whose relative paths are
// relative to dir (a `cd DIR && apply_patch` script), not to the event's
// cwd; "" is the cwd.
func patchCallsIn(patch, dir string) ([]Call, error) {
	at := func(p string) string {
		if dir == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || strings.TrimSpace(lines[i]) != "*** Begin Patch" {
		return nil, errors.New("the patch does not start with *** Begin Patch")
	}
	i++
	var calls []Call
	ended := false
	for i < len(lines) && !ended {
		// Codex trims a hunk's header before it reads it (padding and
		// all): so does this reader, or a padded header would be read as
		// the previous file's content while Codex applies it
		raw := lines[i]
		l := strings.TrimSpace(raw)
		switch {
		case l == "*** End Patch":
			ended = true
			i++
		case strings.HasPrefix(l, "*** Add File: "):
			path := strings.TrimSpace(strings.TrimPrefix(l, "*** Add File: "))
			i++
			if path == "" {
				return nil, fmt.Errorf("line %d of the patch names no file", i)
			}
			// an added file is its "+" lines, up to the first other line
			// (Codex's end of the file, whatever follows: a header,
			// padded or not, or a line it refuses)
			var content []string
			for i < len(lines) && strings.HasPrefix(lines[i], "+") {
				content = append(content, lines[i][1:])
				i++
			}
			calls = append(calls, Call{Tool: "Write", Input: newInput().set("file_path", at(path)).set("content", strings.Join(content, "\n")).json(nothing)})
		case strings.HasPrefix(l, "*** Delete File: "):
			path := strings.TrimSpace(strings.TrimPrefix(l, "*** Delete File: "))
			i++
			if path == "" {
				return nil, fmt.Errorf("line %d of the patch names no file", i)
			}
			calls = append(calls, Call{Tool: "Bash", Input: newInput().set("command", "rm -f -- "+shellQuote(at(path))).json(nothing)})
		case strings.HasPrefix(l, "*** Update File: "):
			path := strings.TrimSpace(strings.TrimPrefix(l, "*** Update File: "))
			i++
			if path == "" {
				return nil, fmt.Errorf("line %d of the patch names no file", i)
			}
			if i < len(lines) && strings.HasPrefix(lines[i], "*** Move to: ") {
				to := strings.TrimSpace(strings.TrimPrefix(lines[i], "*** Move to: "))
				i++
				if to == "" {
					return nil, fmt.Errorf("the patch moves %s to an empty path", path)
				}
				calls = append(calls, Call{Tool: "Bash", Input: newInput().set("command", "mv -- "+shellQuote(at(path))+" "+shellQuote(at(to))).json(nothing)})
				path = to
			}
			var old, neu []string
			for i < len(lines) && (!strings.HasPrefix(lines[i], "***") || lines[i] == "*** End of File") {
				h := lines[i]
				i++
				switch {
				case h == "*** End of File", strings.HasPrefix(h, "@@"):
				case strings.HasPrefix(h, "-"):
					old = append(old, h[1:])
				case strings.HasPrefix(h, "+"):
					neu = append(neu, h[1:])
				default:
					c := strings.TrimPrefix(h, " ")
					old, neu = append(old, c), append(neu, c)
				}
			}
			calls = append(calls, Call{Tool: "Edit", Input: newInput().set("file_path", at(path)).
				set("old_string", strings.Join(old, "\n")).set("new_string", strings.Join(neu, "\n")).json(nothing)})
		case l == "":
			i++
		default:
			return nil, fmt.Errorf("line %d of the patch is not a file operation: %q", i+1, cutText(raw, 80))
		}
		if len(calls) > maxPatchFiles {
			return nil, fmt.Errorf("the patch touches more than %d files: too many to inspect", maxPatchFiles)
		}
	}
	if !ended {
		return nil, errors.New("the patch does not end with *** End Patch")
	}
	if len(calls) == 0 {
		return nil, errors.New("the patch touches no file")
	}
	return calls, nil
}
