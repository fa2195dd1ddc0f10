package policy

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Commands inside MCP arguments in every shape. A process server's tool
// takes a command as one string ({"command": "git log"}), as an argv array
// ({"argv": ["sh", "-c", "…"]}, {"cmd": ["crontab", "-"]}), or as a program
// and its arguments in two fields ({"command": "git", "args": ["-c", "…"]}),
// with the text handed to its stdin ({"stdin": "…"}), an environment
// object ({"env": {"PAGER": "…"}}) and a directory ({"cwd": "/tmp"}).
// mcpCommand composes these into one bash command — each argv element one
// single-quoted word, never re-split; the environment as assignments
// before the program; stdin as a quoted here-document; the directory as a
// cd — and hands it to the shell reader, so what the program runs, reads
// and writes is judged as the same command typed into Bash would be.

var (
	mcpArgvKeys  = map[string]bool{"argv": true, "cmd": true, "command": true, "commandline": true, "command_line": true}
	mcpArgsKeys  = map[string]bool{"args": true, "arguments": true, "argv": true, "params": true}
	mcpProgKeys  = map[string]bool{"command": true, "cmd": true, "program": true, "executable": true, "exe": true, "binary": true, "bin": true}
	mcpStdinKeys = map[string]bool{"stdin": true, "input": true, "stdin_data": true, "stdin_text": true, "stdin_input": true}
	mcpEnvKeys   = map[string]bool{"env": true, "environment": true, "env_vars": true, "envs": true, "environment_variables": true, "envvars": true}
	mcpCwdKeys   = map[string]bool{"cwd": true, "workdir": true, "working_directory": true, "working_dir": true, "dir": true, "directory": true}
	mcpShellKeys = map[string]bool{"shell": true, "interpreter": true, "language": true, "lang": true, "runtime": true, "kernel": true}
	mcpCodeKeys  = map[string]bool{"code": true, "source": true, "source_code": true, "snippet": true, "program_text": true}
	mcpListKeys  = map[string]bool{"commands": true, "steps": true, "scripts": true, "lines": true}
)

// mcpLangRun is how a language named beside a code field runs it: the
// interpreter and its inline-code option.
var mcpLangRun = map[string][2]string{
	"python": {"python3", "-c"}, "python3": {"python3", "-c"}, "py": {"python3", "-c"},
	"node": {"node", "-e"}, "javascript": {"node", "-e"}, "js": {"node", "-e"}, "nodejs": {"node", "-e"}, "typescript": {"node", "-e"}, "ts": {"node", "-e"},
	"ruby": {"ruby", "-e"}, "rb": {"ruby", "-e"}, "perl": {"perl", "-e"}, "php": {"php", "-r"}, "lua": {"lua", "-e"},
	"bash": {"bash", "-c"}, "sh": {"sh", "-c"}, "shell": {"sh", "-c"}, "zsh": {"zsh", "-c"},
	"powershell": {"pwsh", "-Command"}, "pwsh": {"pwsh", "-Command"}, "ps1": {"pwsh", "-Command"},
	"r": {"Rscript", "-e"}, "julia": {"julia", "-e"},
}

// mcpRunsProcess reports whether an MCP tool's name says it starts a
// process on this machine (not in a container: a container's command runs
// inside it, judged by the container rules).
func mcpRunsProcess(tool string) bool {
	t := strings.ToLower(tool)
	if !strings.HasPrefix(t, "mcp__") {
		return false
	}
	for _, w := range []string{"docker", "container", "podman", "kube", "k8s", "pod"} {
		if strings.Contains(t, w) {
			return false
		}
	}
	if toolKindOf(tool) == kindShell || runsText(t) {
		return true
	}
	for _, w := range []string{"spawn", "process", "launch", "start", "invoke", "popen", "subprocess"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// mcpCommand finds a command in the top-level fields of an MCP call and
// reads it; the fields it consumed are marked so the walk takes their text
// facts only (not each argv element as a command of its own).
func (c *classifier) mcpCommand(root gjson.Result) {
	if !mcpRunsProcess(c.f.Tool) {
		return
	}
	var (
		words          []string // argv, one word each
		head           string   // shell text before words (a program string with spaces)
		headName       string
		stdin, cwd     string
		shellName      string
		env            [][2]string
		consumed       []string
		haveArr, haveP bool
		code, codeName string
		list           []string
		listName       string
		fromList       bool
	)
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		lk := strings.ToLower(key)
		switch {
		case v.IsArray() && (mcpArgvKeys[lk] || mcpArgsKeys[lk]):
			var ws []string
			v.ForEach(func(_, e gjson.Result) bool {
				if e.IsObject() || e.IsArray() {
					return true
				}
				ws = append(ws, e.String())
				return true
			})
			if mcpArgvKeys[lk] && !haveArr {
				words = append(ws, words...)
				haveArr = true
			} else {
				words = append(words, ws...)
			}
			consumed = append(consumed, key)
		case v.Type == gjson.String && mcpProgKeys[lk] && !haveP:
			head, headName, haveP = v.String(), key, true
		case v.Type == gjson.String && mcpStdinKeys[lk]:
			stdin = v.String()
			consumed = append(consumed, key)
		case v.Type == gjson.String && mcpCwdKeys[lk]:
			cwd = v.String()
		case v.Type == gjson.String && mcpShellKeys[lk]:
			shellName = strings.ToLower(v.String())
		case v.IsObject() && mcpEnvKeys[lk]:
			v.ForEach(func(ek, ev gjson.Result) bool {
				if n := ek.String(); validEnvName(n) && ev.Type != gjson.JSON {
					env = append(env, [2]string{n, ev.String()})
				}
				return true
			})
			consumed = append(consumed, key)
		case v.IsArray() && mcpEnvKeys[lk]:
			// ["PAGER=…"] (docker) or [{"name": "PAGER", "value": "…"}] (kubernetes)
			v.ForEach(func(_, e gjson.Result) bool {
				n, val := "", ""
				if e.IsObject() {
					n, val = e.Get("name").String(), e.Get("value").String()
				} else {
					n, val, _ = strings.Cut(e.String(), "=")
				}
				if validEnvName(n) {
					env = append(env, [2]string{n, val})
				}
				return true
			})
			consumed = append(consumed, key)
		case v.Type == gjson.String && mcpCodeKeys[lk]:
			code, codeName = v.String(), key
		case v.IsArray() && mcpListKeys[lk]:
			v.ForEach(func(_, e gjson.Result) bool {
				if e.Type == gjson.String {
					list = append(list, e.String())
				}
				return true
			})
			listName = key
			consumed = append(consumed, key)
		}
		return true
	})
	if len(words) == 0 && !haveP {
		if run, ok := mcpLangRun[strings.TrimSuffix(shellName, ".exe")]; ok && code != "" {
			// {"language": "python", "code": "…"}: the code is what the
			// interpreter runs
			words, headName = []string{run[0], run[1], code}, codeName
			consumed = append(consumed, codeName)
		} else if len(list) > 0 {
			// {"commands": ["cd x", "make"]}: each a shell command
			words = nil
			head, headName, haveP, fromList = strings.Join(list, "\n"), listName, true, true
		} else {
			return
		}
	}
	if haveArr && haveP && mcpArgvKeys[strings.ToLower(headName)] {
		haveP = false // {"cmd": [...], "command": "…"}: the array is the command
	}
	if !haveArr && haveP && len(words) == 0 && stdin == "" && len(env) == 0 && cwd == "" && !isPwshName(shellName) && !fromList {
		return // a command string alone: str() reads it as today
	}
	var b strings.Builder
	if cwd != "" {
		b.WriteString("cd ")
		b.WriteString(shQuoteWord(cwd))
		b.WriteString(" && ")
	}
	for _, kv := range env {
		b.WriteString(kv[0])
		b.WriteByte('=')
		b.WriteString(shQuoteWord(kv[1]))
		b.WriteByte(' ')
	}
	if haveP {
		h := strings.TrimSpace(head)
		if isPwshName(shellName) && len(words) == 0 {
			// {"shell": "powershell", "command": "Get-Content …"}
			b.WriteString("pwsh -Command ")
			b.WriteString(shQuoteWord(h))
		} else if len(words) == 0 || strings.ContainsAny(h, " \t|;&<>$`(") {
			b.WriteString(h) // shell text
		} else {
			b.WriteString(shQuoteWord(h))
		}
		consumed = append(consumed, headName)
	}
	for i, w := range words {
		if i > 0 || haveP {
			b.WriteByte(' ')
		}
		b.WriteString(shQuoteWord(w))
	}
	if stdin != "" {
		delim := "__MCP_STDIN_EOF__"
		for strings.Contains(stdin, delim) {
			delim += "_"
		}
		b.WriteString(" <<'")
		b.WriteString(delim)
		b.WriteString("'\n")
		b.WriteString(stdin)
		if !strings.HasSuffix(stdin, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(delim)
		b.WriteByte('\n')
	}
	name := headName
	if name == "" && len(consumed) > 0 {
		name = consumed[0]
	}
	if c.consumed == nil {
		c.consumed = make(map[string]bool, len(consumed))
	}
	for _, k := range consumed {
		c.consumed[k] = true
	}
	src := b.String()
	c.primary(name, src)
	c.shell(name, src)
}

// consumedArg reports whether the string at argument name is part of a
// command mcpCommand composed (a top-level field or an element of one).
func (c *classifier) consumedArg(name string) bool {
	if c.consumed == nil {
		return false
	}
	top := name
	if i := strings.IndexAny(top, ".["); i >= 0 {
		top = top[:i]
	}
	return c.consumed[top]
}

func isPwshName(s string) bool {
	s = strings.TrimSuffix(s, ".exe")
	return s == "powershell" || s == "pwsh"
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z' || i > 0 && '0' <= ch && ch <= '9') {
			return false
		}
	}
	return true
}

// shQuoteWord single-quotes s as one bash word.
func shQuoteWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pwshTool reports an MCP tool whose name says its command text is
// PowerShell (mcp__windows__powershell, mcp__pwsh__run).
func pwshTool(tool string) bool {
	if len(tool) < 5 || !strings.EqualFold(tool[:5], "mcp__") {
		return false // no allocation on the Bash path
	}
	t := strings.ToLower(tool)
	return strings.HasPrefix(t, "mcp__") && (strings.Contains(t, "powershell") || strings.Contains(t, "pwsh"))
}
