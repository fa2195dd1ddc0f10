package setup

import "strings"

// WrappedCommand reports whether command and args launch airlock-mcp (its
// base name "airlock-mcp", or "airlock-mcp.exe" in any case), and returns
// the name given with --name (also -name, --name=X) and the command line
// after "--". It reads the options as airlock-mcp does: others (--sandbox)
// may come before "--", and the word after --name is its value whatever
// it looks like. When the options are incomplete (no --name, no "--"), ok
// is still true and the missing parts are empty: the entry is wrapped, badly.
func WrappedCommand(command string, args []string) (name string, inner []string, ok bool) {
	b := command
	if i := strings.LastIndexAny(b, `/\`); i >= 0 {
		b = b[i+1:]
	}
	if b != "airlock-mcp" && !strings.EqualFold(b, "airlock-mcp.exe") {
		return "", nil, false
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			if len(args) > i+1 {
				inner = append([]string(nil), args[i+1:]...)
			}
			return name, inner, true
		case a == "--name" || a == "-name":
			if i+1 < len(args) {
				i++
				name = args[i]
			}
		case strings.HasPrefix(a, "--name="):
			name = strings.TrimPrefix(a, "--name=")
		case strings.HasPrefix(a, "-name="):
			name = strings.TrimPrefix(a, "-name=")
		}
	}
	return name, nil, true
}
