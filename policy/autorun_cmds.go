package policy

import (
	"strings"
)

// Commands that write a setting which names a program, without a file
// write the shell sees: git config KEY VALUE, npm pkg set scripts.X=…,
// npm config set, yarn config set, defaults write of a LaunchAgent,
// launchctl submit, schtasks /create /tr, reg add …\Run /d. What the
// setting would run is judged as the content of the file it lands in.

// setting is one such write.
type setting struct {
	label string // "git config core.pager", for the reason
	runs  string
	cmds  []autorunCmd
}

// settingWrite recognises a setting write in one simple command.
func settingWrite(argv []string) (setting, bool) {
	if len(argv) < 2 {
		return setting{}, false
	}
	prog := argv[0][strings.LastIndexAny(argv[0], "/\\")+1:]
	switch strings.TrimSuffix(strings.ToLower(prog), ".exe") {
	case "git":
		return gitConfigSet(argv[1:])
	case "npm", "pnpm":
		return npmSet(argv[1:])
	case "yarn":
		if len(argv) >= 5 && argv[1] == "config" && argv[2] == "set" {
			return keyedSetting("yarn config set "+argv[3], "pkg.yarnrc", strings.ToLower(argv[3]), argv[4])
		}
	case "defaults":
		return defaultsWrite(argv[1:])
	case "launchctl":
		if argv[1] == "submit" {
			for i, a := range argv {
				if a == "--" && i+1 < len(argv) {
					return setting{label: "launchctl submit", runs: "at every login, kept running", cmds: []autorunCmd{{cmd: shJoin(argv[i+1:])}}}, true
				}
			}
		}
	case "schtasks":
		if hasWinFlag(argv, "create") {
			if v, ok := winFlagValue(argv, "tr"); ok {
				return setting{label: "schtasks /create", runs: "on its schedule", cmds: []autorunCmd{{cmd: v}}}, true
			}
		}
	case "reg":
		if strings.EqualFold(argv[1], "add") && len(argv) > 2 && strings.Contains(strings.ToLower(argv[2]), `currentversion\run`) {
			if v, ok := winFlagValue(argv, "d"); ok {
				return setting{label: "reg add " + argv[2], runs: "at every Windows login", cmds: []autorunCmd{{cmd: v}}}, true
			}
		}
	}
	return setting{}, false
}

func (c *classifier) judgeSetting(s setting, dir string) {
	for _, x := range s.cmds {
		c.runDerived("setting "+s.label+" (runs "+s.runs+")", x, dir)
	}
}

func entryByID(id string) *autorunEntry {
	for i := range autorunCatalogue {
		if autorunCatalogue[i].ID == id {
			return &autorunCatalogue[i]
		}
	}
	return nil
}

// gitConfigSet: git [-C dir] [-c k=v] config [--global|--local|--system|
// --file F|--add|--replace-all|--type T] KEY VALUE, and git config set.
func gitConfigSet(args []string) (setting, bool) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" || args[i] == "--git-dir" || args[i] == "--work-tree" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != "config" {
		return setting{}, false
	}
	var pos []string
	for _, a := range args[i+1:] {
		switch {
		case a == "--file" || a == "-f" || a == "--type" || a == "--blob" || a == "--comment" || a == "--value":
			// takes a value: the next word is not a key (rare; the value
			// becomes a positional and the key check below fails safe)
		case strings.HasPrefix(a, "--get") || a == "--list" || a == "-l" || strings.HasPrefix(a, "--unset") ||
			strings.HasPrefix(a, "--show") || a == "--edit" || a == "-e" || a == "--remove-section" || a == "--rename-section":
			return setting{}, false
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 && (pos[0] == "set" || pos[0] == "get" || pos[0] == "unset" || pos[0] == "list") {
		if pos[0] != "set" {
			return setting{}, false
		}
		pos = pos[1:]
	}
	if len(pos) < 2 {
		return setting{}, false
	}
	key, val := pos[0], pos[1]
	e := entryByID("vcs.gitconfig")
	if e == nil {
		return setting{}, false
	}
	var l cmdList
	gitconfigValue(&l, e.Keys, gitKeyPath(key), false, val)
	if len(l.out) == 0 {
		return setting{}, false
	}
	return setting{label: "git config " + key, runs: e.Runs, cmds: l.out}, true
}

// gitKeyPath splits section.sub.key: the subsection may hold dots.
func gitKeyPath(key string) []string {
	k := strings.ToLower(key)
	first := strings.IndexByte(k, '.')
	last := strings.LastIndexByte(k, '.')
	switch {
	case first < 0:
		return []string{k}
	case first == last:
		return []string{k[:first], k[first+1:]}
	}
	return []string{k[:first], k[first+1 : last], k[last+1:]}
}

// npmSet: npm pkg set scripts.NAME=VALUE …, npm config set KEY VALUE or
// KEY=VALUE, npm set ….
func npmSet(args []string) (setting, bool) {
	switch {
	case len(args) >= 3 && args[0] == "pkg" && args[1] == "set":
		e := entryByID("pkg.npm-scripts")
		if e == nil {
			return setting{}, false
		}
		var cmds []autorunCmd
		for _, a := range args[2:] {
			k, v, ok := strings.Cut(a, "=")
			if ok && strings.HasPrefix(strings.ToLower(k), "scripts.") {
				cmds = append(cmds, autorunCmd{cmd: v})
			}
		}
		if len(cmds) > 0 {
			return setting{label: "npm pkg set scripts", runs: e.Runs, cmds: cmds}, true
		}
	case len(args) >= 3 && args[0] == "config" && args[1] == "set", len(args) >= 2 && args[0] == "set":
		rest := args[1:]
		if args[0] == "config" {
			rest = args[2:]
		}
		var pos []string
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				pos = append(pos, a)
			}
		}
		if len(pos) == 0 {
			return setting{}, false
		}
		k, v, ok := strings.Cut(pos[0], "=")
		if !ok && len(pos) > 1 {
			v, ok = pos[1], true
		}
		if ok {
			return keyedSetting("npm config set "+k, "pkg.npmrc", strings.ToLower(k), v)
		}
	}
	return setting{}, false
}

// keyedSetting: the value of key in entry id's file, when key is one
// of the entry's keys.
func keyedSetting(label, id, key, val string) (setting, bool) {
	e := entryByID(id)
	if e == nil {
		return setting{}, false
	}
	for _, k := range e.Keys {
		if wildMatch(strings.ToLower(k), key) {
			var l cmdList
			l.addValue(val)
			return setting{label: label, runs: e.Runs, cmds: l.out}, len(l.out) > 0
		}
	}
	return setting{}, false
}

// defaultsWrite: defaults write DOMAIN ProgramArguments -array ARGV… or
// Program -string P, where DOMAIN is a LaunchAgent or LaunchDaemon.
func defaultsWrite(args []string) (setting, bool) {
	if len(args) < 4 || args[0] != "write" || !strings.Contains(strings.ToLower(args[1]), "launch") {
		return setting{}, false
	}
	key := strings.ToLower(args[2])
	vals := args[3:]
	if len(vals) > 0 && strings.HasPrefix(vals[0], "-") {
		vals = vals[1:]
	}
	if len(vals) == 0 || key != "programarguments" && key != "program" {
		return setting{}, false
	}
	return setting{label: "defaults write " + args[1] + " " + args[2], runs: "at every login or boot", cmds: []autorunCmd{{cmd: shJoin(vals)}}}, true
}

func hasWinFlag(argv []string, name string) bool {
	for _, a := range argv {
		if strings.EqualFold(strings.TrimLeft(a, "/-"), name) && (strings.HasPrefix(a, "/") || strings.HasPrefix(a, "-")) {
			return true
		}
	}
	return false
}

func winFlagValue(argv []string, name string) (string, bool) {
	for i, a := range argv {
		if (strings.HasPrefix(a, "/") || strings.HasPrefix(a, "-")) && strings.EqualFold(strings.TrimLeft(a, "/-"), name) && i+1 < len(argv) {
			return argv[i+1], true
		}
	}
	return "", false
}
