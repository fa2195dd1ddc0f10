package shell

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// cmdCtx is one simple command being classified.
type cmdCtx struct {
	prog  string
	argv  []argVal
	sc    *scope
	in    flow
	xargs bool // arguments arrive from stdin (xargs): interpreters here run piped data
}

// classify records the facts of one simple command and of every command it
// wraps.
func (w *walker) classify(argv []argVal, sc *scope, in flow) flow {
	for i := range argv {
		w.scanURLs(argv[i], sc)
	}
	strs := argStrings(argv)
	c := &cmdCtx{argv: argv, sc: sc, in: in}
	for guard := 0; guard < 64 && len(c.argv) > 0; guard++ {
		if w.full() {
			return flow{}
		}
		w.res.Commands = append(w.res.Commands, Command{Argv: strs, Dir: c.sc.dir})
		a0 := c.argv[0]
		if guard == 0 && w.aliases != nil {
			if v, ok := w.aliases[a0.s]; ok && !w.activeAlias[a0.s] {
				return w.callAlias(v, a0.s, c)
			}
		}
		if guard == 0 && w.funcs != nil {
			if fn, ok := w.funcs[a0.s]; ok && !w.activeFunc[a0.s] {
				return w.callFunc(fn, a0.s, c)
			}
		}
		if a0.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		if a0.s == "" {
			return flow{bits: in.bits & flowTaint}
		}
		if !a0.proc && strings.IndexByte(a0.s, '/') >= 0 {
			if abs, ok := w.resolve(a0.s, c.sc.dir); ok {
				w.addPathAbs(a0.s, abs, AccessExec)
				w.checkExecDownloaded(abs, c.sc)
			}
		}
		c.prog = progName(a0.s)
		prev := c.argv
		inner, f := w.dispatch(c)
		if len(inner) == 0 {
			f.bits |= in.bits & flowTaint
			return f
		}
		if len(inner) <= len(prev) && len(strs) == len(prev) && &inner[len(inner)-1] == &prev[len(prev)-1] {
			strs = strs[len(strs)-len(inner):]
		} else {
			strs = argStrings(inner)
			for i := range inner {
				w.scanURLs(inner[i], c.sc)
			}
		}
		c.argv = inner
	}
	return flow{bits: in.bits & flowTaint}
}

func argStrings(argv []argVal) []string {
	s := make([]string, len(argv))
	for i := range argv {
		s[i] = argv[i].s
	}
	return s
}

func joinArgs(argv []argVal) argVal {
	var a argVal
	parts := make([]string, len(argv))
	for i, x := range argv {
		parts[i] = x.s
		a.dyn = a.dyn || x.dyn
		a.dl = a.dl || x.dl
	}
	a.s = strings.Join(parts, " ")
	return a
}

var progs = set("sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "rbash", "fish", "tcsh", "csh", "posh", "oksh", "loksh", "pdksh", "ksh93")

// dispatch classifies c; it returns the wrapped command to classify next,
// or the command's data flow.
func (w *walker) dispatch(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	switch c.prog {
	// ---- wrappers ----
	case "sudo":
		return w.sudo(c)
	case "doas":
		k, stop := skipWrapperOpts(argv, doasOpts, 0, "L", false)
		return w.wrapped(c, k, stop)
	case "env":
		return w.env(c)
	case "nohup", "builtin", "setsid", "unbuffer", "rlwrap", "torsocks", "tsocks", "fakeroot", "dbus-run-session",
		"catchsegv", "nocache", "firejail", "ssh-agent", "sandbox", "with-contenv", "proxychains", "proxychains4":
		k, stop := skipWrapperOpts(argv, plainWrapperOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "time":
		k, stop := skipWrapperOpts(argv, timeOpts, 0, "", false)
		w.optPaths(c, timeOpts, timeAcc)
		return w.wrapped(c, k, stop)
	case "nice":
		k, stop := skipWrapperOpts(argv, niceOpts, 0, "", true)
		return w.wrapped(c, k, stop)
	case "ionice":
		k, stop := skipWrapperOpts(argv, ioniceOpts, 0, "pPu", false)
		return w.wrapped(c, k, stop)
	case "stdbuf":
		k, stop := skipWrapperOpts(argv, stdbufOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "timeout":
		k, stop := skipWrapperOpts(argv, timeoutOpts, 1, "", false)
		return w.wrapped(c, k, stop)
	case "chrt":
		k, stop := skipWrapperOpts(argv, chrtOpts, 1, "pm", false)
		return w.wrapped(c, k, stop)
	case "taskset":
		k, stop := skipWrapperOpts(argv, tasksetOpts, 1, "p", false)
		return w.wrapped(c, k, stop)
	case "chroot":
		k, stop := skipWrapperOpts(argv, chrootOpts, 1, "", false)
		if k-1 < len(argv) && k-1 >= 1 {
			w.argPath(argv[k-1], c.sc, AccessRead|AccessExec, true)
		}
		return w.wrapped(c, k, stop)
	case "command":
		k, stop := skipWrapperOpts(argv, commandOpts, 0, "vV", false)
		return w.wrapped(c, k, stop)
	case "exec":
		k, stop := skipWrapperOpts(argv, execOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "strace", "ltrace":
		sp := straceOpts
		w.optPaths(c, sp, straceAcc)
		k, stop := skipWrapperOpts(argv, sp, 0, "p", false)
		return w.wrapped(c, k, stop)
	case "pkexec":
		k, stop := skipWrapperOpts(argv, pkexecOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "caffeinate":
		k, stop := skipWrapperOpts(argv, caffeinateOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "unshare":
		k, stop := skipWrapperOpts(argv, unshareOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "nsenter":
		k, stop := skipWrapperOpts(argv, nsenterOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "systemd-run":
		k, stop := skipWrapperOpts(argv, systemdRunOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "xvfb-run":
		k, stop := skipWrapperOpts(argv, xvfbRunOpts, 0, "", false)
		return w.wrapped(c, k, stop)
	case "arch":
		k := 1
		for k < len(argv) && strings.HasPrefix(argv[k].s, "-") {
			if s := argv[k].s; s == "-arch" || s == "-d" || s == "-e" {
				k++
			}
			k++
		}
		return w.wrapped(c, k, false)
	case "sshpass":
		sp := sshpassOpts
		w.optPaths(c, sp, sshpassAcc)
		k, stop := skipWrapperOpts(argv, sp, 0, "", false)
		return w.wrapped(c, k, stop)
	case "busybox", "toybox":
		if len(argv) > 1 && !strings.HasPrefix(argv[1].s, "-") {
			return argv[1:], flow{}
		}
		return nil, flow{}
	case "xargs":
		return w.xargs(c)
	case "flock":
		return w.flock(c)
	case "uv", "poetry", "pipenv", "bundle", "pnpm", "conda", "mamba", "micromamba", "pdm", "hatch", "rye":
		return w.runWrapper(c)
	case "npx":
		return w.npx(c)
	case "uvx", "pipx":
		if c.prog == "pipx" {
			if len(argv) < 2 || argv[1].s != "run" {
				return nil, w.generic(c, 1)
			}
			argv = argv[1:]
		}
		k, stop := skipWrapperOpts(argv, uvxOpts, 0, "", false)
		if stop || k >= len(argv) {
			return nil, flow{}
		}
		return argv[k:], flow{}

	// ---- programs that run shell text ----
	case "watch":
		return nil, w.watch(c)
	case "su", "runuser":
		return w.su(c)
	case "sg":
		return nil, w.sg(c)
	case "script":
		return nil, w.script(c)
	case "parallel":
		return nil, w.parallel(c)
	case "eval":
		code := joinArgs(argv[1:])
		if code.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		return nil, w.evalProgram(code.s, c.sc)
	case "trap":
		return nil, w.trap(c)
	case "cmd":
		return nil, w.winCmd(c)
	case "at", "batch":
		return nil, w.at(c)
	case "source", ".":
		return nil, w.source(c)
	case "find":
		return nil, w.find(c)
	}
	if progs[c.prog] {
		return nil, w.shell(c)
	}
	switch c.prog {
	case "python", "perl", "ruby", "node", "deno", "bun", "php", "lua", "osascript", "pwsh", "awk",
		"rscript", "julia", "expect", "tclsh", "wish", "jshell", "groovy", "scala", "kotlin", "swift", "elixir", "erl", "ghci", "irb":
		return nil, w.interpreter(c)
	}
	return nil, w.command(c)
}

// wrapped continues with argv[k:] as the wrapped command.
func (w *walker) wrapped(c *cmdCtx, k int, stop bool) ([]argVal, flow) {
	if stop || k >= len(c.argv) {
		return nil, flow{}
	}
	return c.argv[k:], flow{}
}

// optPaths records the paths given as values of the listed options.
func (w *walker) optPaths(c *cmdCtx, sp *optSpec, acc map[string]Access) {
	scanOpts(c.argv, 1, sp, func(o option) bool {
		if o.name == "" {
			return false // wrapped command starts
		}
		if a, ok := acc[o.name]; ok && o.hasVal {
			w.argPath(o.val, c.sc, a, true)
		}
		return true
	})
}

func (w *walker) sudo(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	i := 1
	dir := ""
	edit, noCmd, shellFlag := false, false, false
	longVal := sudoOpts
	for i < len(argv) {
		s := argv[i].s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s[1] == '-' {
			name, val, eq := strings.Cut(s[2:], "=")
			if longVal[name] && !eq && i+1 < len(argv) {
				i++
				val = argv[i].s
			}
			switch name {
			case "chdir":
				dir = val
			case "edit":
				edit = true
			case "list", "validate", "version", "help", "remove-timestamp":
				noCmd = true
			case "shell", "login":
				shellFlag = true
			}
			i++
			continue
		}
		for j := 1; j < len(s); j++ {
			ch := s[j]
			switch ch {
			case 'e':
				edit = true
			case 'l', 'v', 'V', 'K':
				noCmd = true
			case 's', 'i':
				shellFlag = true
			}
			if strings.IndexByte("ugpCDrtTRUh", ch) >= 0 {
				val := s[j+1:]
				if val == "" && i+1 < len(argv) {
					i++
					val = argv[i].s
				}
				if ch == 'D' {
					dir = val
				}
				break
			}
		}
		i++
	}
	for i < len(argv) {
		name, val, ok := assignWord(argv[i].s)
		if !ok {
			break
		}
		w.addEnv(name, val)
		i++
	}
	if edit {
		for _, a := range argv[i:] {
			w.argPath(a, c.sc, AccessRead|AccessWrite, true)
		}
		return nil, flow{}
	}
	if noCmd {
		return nil, flow{}
	}
	if dir != "" {
		sc := w.sub(c.sc)
		if abs, ok := w.resolve(dir, c.sc.dir); ok {
			sc.dir = abs
		}
		c.sc = sc
	}
	if i >= len(argv) {
		if shellFlag {
			return nil, w.stdinSink(c, flowShellSink)
		}
		return nil, flow{}
	}
	return argv[i:], flow{}
}

func (w *walker) env(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	i := 1
	for i < len(argv) {
		s := argv[i].s
		switch {
		case s == "--":
			i++
		case s == "-" || s == "-i" || s == "--ignore-environment" || s == "-0" || s == "--null" || s == "-v" || s == "--debug":
			i++
			continue
		case s == "-u" || s == "--unset":
			i += 2
			continue
		case strings.HasPrefix(s, "--unset=") || strings.HasPrefix(s, "-u") && !strings.HasPrefix(s, "--"):
			i++
			continue
		case s == "-C" || s == "--chdir" || strings.HasPrefix(s, "--chdir=") || strings.HasPrefix(s, "-C") && !strings.HasPrefix(s, "--"):
			dir := ""
			switch {
			case strings.HasPrefix(s, "--chdir="):
				dir = s[len("--chdir="):]
			case len(s) > 2 && s[1] == 'C':
				dir = s[2:]
			case i+1 < len(argv):
				i++
				dir = argv[i].s
			}
			if abs, ok := w.resolve(dir, c.sc.dir); ok {
				sc := w.sub(c.sc)
				sc.dir = abs
				c.sc = sc
			}
			i++
			continue
		case s == "-S" || s == "--split-string" || strings.HasPrefix(s, "--split-string=") || strings.HasPrefix(s, "-S") && !strings.HasPrefix(s, "--"):
			str := ""
			switch {
			case strings.HasPrefix(s, "--split-string="):
				str = s[len("--split-string="):]
			case len(s) > 2 && s[1] == 'S':
				str = s[2:]
			case i+1 < len(argv):
				i++
				str = argv[i].s
			}
			rest := append(w.splitWords(str), argv[i+1:]...)
			na := make([]argVal, 0, len(rest)+1)
			na = append(na, argv[0])
			na = append(na, rest...)
			c.argv = na
			return w.env(c)
		case strings.HasPrefix(s, "--") && len(s) > 2:
			i++
			continue
		case len(s) > 1 && s[0] == '-':
			i++
			continue
		}
		break
	}
	for i < len(argv) {
		name, val, ok := assignWord(argv[i].s)
		if !ok {
			break
		}
		w.addEnv(name, val)
		i++
	}
	if i >= len(argv) {
		return nil, flow{}
	}
	return argv[i:], flow{}
}

func (w *walker) xargs(c *cmdCtx) ([]argVal, flow) {
	sp := xargsOpts
	w.optPaths(c, sp, xargsAcc)
	argv := c.argv
	i := 1
	for i < len(argv) {
		s := argv[i].s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s[1] == '-' {
			name, _, eq := strings.Cut(s[2:], "=")
			if !eq && sp.long[name] {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(s); j++ {
			if strings.IndexByte(sp.short, s[j]) >= 0 {
				if j+1 == len(s) {
					i++
				}
				break
			}
			if s[j] == 'e' || s[j] == 'i' || s[j] == 'l' {
				break // optional attached value
			}
		}
		i++
	}
	c.xargs = true
	if i >= len(argv) {
		return []argVal{{s: "echo"}}, flow{}
	}
	return argv[i:], flow{}
}

func (w *walker) flock(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	var cmd *argVal
	i := 1
	operand := -1
	for i < len(argv) {
		s := argv[i].s
		if s == "-c" || s == "--command" {
			if i+1 < len(argv) {
				cmd = &argv[i+1]
			}
			i += 2
			continue
		}
		if strings.HasPrefix(s, "--command=") {
			a := argVal{s: s[len("--command="):], dyn: argv[i].dyn, dl: argv[i].dl}
			cmd = &a
			i++
			continue
		}
		if s == "-w" || s == "-E" || s == "--timeout" || s == "--wait" || s == "--conflict-exit-code" {
			i += 2
			continue
		}
		if strings.HasPrefix(s, "-") && len(s) > 1 {
			i++
			continue
		}
		if operand < 0 {
			operand = i
			w.argPath(argv[i], c.sc, AccessRead|AccessWrite, true)
			i++
			if cmd == nil && i < len(argv) && !strings.HasPrefix(argv[i].s, "-") {
				return argv[i:], flow{}
			}
			continue
		}
		break
	}
	if cmd != nil {
		if cmd.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		return nil, w.nestedProgram(cmd.s, c.sc, nil)
	}
	return nil, flow{}
}

// runWrapper handles `uv run CMD`, `poetry run CMD`, `bundle exec CMD` …
func (w *walker) runWrapper(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	if len(argv) < 2 {
		return nil, flow{}
	}
	sub := argv[1].s
	switch {
	case sub == "run" && c.prog != "pnpm", sub == "exec" && (c.prog == "bundle" || c.prog == "pnpm"):
	default:
		return nil, w.generic(c, 1)
	}
	sp := runWrapperOpts
	rest := argv[1:]
	k, stop := skipWrapperOpts(rest, sp, 0, "", false)
	if stop || k >= len(rest) {
		return nil, flow{}
	}
	return rest[k:], flow{}
}

func (w *walker) npx(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	i := 1
	for i < len(argv) {
		s := argv[i].s
		switch {
		case s == "--":
			i++
		case s == "-c" || s == "--call":
			if i+1 < len(argv) {
				if argv[i+1].dl {
					w.signal(SignalDownloadExec, c.sc.detail())
				}
				return nil, w.nestedProgram(argv[i+1].s, c.sc, nil)
			}
			return nil, flow{}
		case s == "-p" || s == "--package":
			i += 2
			continue
		case strings.HasPrefix(s, "-") && len(s) > 1:
			i++
			continue
		}
		break
	}
	if i >= len(argv) {
		return nil, flow{}
	}
	return argv[i:], flow{}
}

// stdinSink is a shell or interpreter reading its program from stdin.
func (w *walker) stdinSink(c *cmdCtx, kind flowBits) flow {
	in := c.in
	if in.bits&flowDL != 0 {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	if in.bits&flowNet != 0 {
		w.signal(SignalReverseShell, c.sc.detail())
	}
	var f flow
	if in.hasText && !c.xargs {
		if kind == flowShellSink {
			f = w.nestedProgram(in.text, c.sc, nil)
		} else if strings.TrimSpace(in.text) != "" {
			f.bits |= w.embedded(argVal{s: in.text, dl: in.bits&flowDL != 0}, c.sc)
		}
	}
	f.bits |= kind
	return flow{bits: f.bits}
}

// shell handles sh/bash/zsh … : -c STRING, a script file, or stdin.
func (w *walker) shell(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	cflag, sflag := false, false
	for i < len(argv) {
		s := argv[i].s
		if s == "--" || s == "-" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' && s[0] != '+' {
			break
		}
		if strings.HasPrefix(s, "--") {
			switch name, _, eq := strings.Cut(s[2:], "="); name {
			case "rcfile", "init-file", "init-command":
				if !eq && i+1 < len(argv) {
					i++
					if name == "init-command" {
						w.nestedProgram(argv[i].s, c.sc, nil)
					} else {
						w.execPath(argv[i], c.sc)
					}
				}
			case "command":
				cflag = true
			}
			i++
			continue
		}
		consumed := 0
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				cflag = true
			case 's':
				sflag = true
			case 'o', 'O':
				consumed++
			case 'C':
				if c.prog == "fish" {
					consumed++
				}
			}
		}
		i += 1 + consumed
	}
	if cflag {
		if i >= len(argv) {
			return flow{}
		}
		code := argv[i]
		if code.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		if c.xargs && c.in.bits&flowDL != 0 {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		var pos []string
		if i+1 < len(argv) {
			pos = argStrings(argv[i+1:])
		}
		f := w.nestedProgram(code.s, c.sc, pos)
		return flow{bits: f.bits &^ (flowShellSink | flowInterpSink), text: f.text, hasText: f.hasText}
	}
	if i < len(argv) && !sflag {
		return w.runScript(c, argv[i])
	}
	return w.stdinSink(c, flowShellSink)
}

// runScript is an interpreter running a script file.
func (w *walker) runScript(c *cmdCtx, file argVal) flow {
	if file.dl {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	if c.xargs && c.in.bits&flowDL != 0 {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	switch file.s {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		return w.stdinSink(c, flowShellSink)
	}
	w.execPath(file, c.sc)
	return flow{}
}

// execPath records a file that is run, and checks it against downloads.
func (w *walker) execPath(a argVal, sc *scope) {
	if a.proc || a.s == "" || a.s == "-" {
		return
	}
	if isURL(a.s) {
		return
	}
	abs, ok := w.resolve(a.s, sc.dir)
	if !ok {
		return
	}
	w.addPathAbs(a.s, abs, AccessExec)
	w.checkExecDownloaded(abs, sc)
}

func (w *walker) source(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	if i < len(argv) && argv[i].s == "--" {
		i++
	}
	if i >= len(argv) {
		return flow{}
	}
	return w.runScript(c, argv[i])
}

// interpreter handles python, perl, ruby, node, php, lua, osascript,
// powershell and awk: inline code is Embedded, a script file is exec.
func (w *walker) interpreter(c *cmdCtx) flow {
	argv := c.argv
	var code []argVal
	var script *argVal
	rest := -1 // first argument after the program text / script
	inplace := false
	stdin := false
	module := false
	switch c.prog {
	case "python":
		i := 1
	py:
		for i < len(argv) {
			s := argv[i].s
			if s == "-" {
				stdin = true
				break
			}
			if s == "--" {
				i++
				break
			}
			if len(s) < 2 || s[0] != '-' {
				break
			}
			if s[1] == '-' {
				if s == "--check-hash-based-pycs" {
					i++
				}
				i++
				continue
			}
			for j := 1; j < len(s); j++ {
				switch s[j] {
				case 'c', 'm':
					v, next := attachedOrNext(argv, i, j)
					if s[j] == 'c' {
						code = append(code, v)
					} else {
						module = true
					}
					i = next
					rest = next
					break py
				case 'W', 'X', 'Q':
					_, next := attachedOrNext(argv, i, j)
					i = next - 1
					j = len(s)
				}
			}
			i++
		}
		if len(code) == 0 && !module && !stdin && i < len(argv) {
			script = &argv[i]
			rest = i + 1
		}
	case "perl", "ruby":
		i := 1
		for i < len(argv) {
			s := argv[i].s
			if s == "-" {
				stdin = true
				break
			}
			if s == "--" {
				i++
				break
			}
			if len(s) < 2 || s[0] != '-' || s[1] == '-' {
				if strings.HasPrefix(s, "--") {
					i++
					continue
				}
				break
			}
			next := i + 1
		cluster:
			for j := 1; j < len(s); j++ {
				switch ch := s[j]; {
				case ch == 'e' || ch == 'E' && c.prog == "perl":
					v, n := attachedOrNext(argv, i, j)
					code = append(code, v)
					next = n
					break cluster
				case ch == 'i':
					inplace = true
					break cluster
				case c.prog == "ruby" && strings.IndexByte("rICE", ch) >= 0:
					_, n := attachedOrNext(argv, i, j)
					next = n
					break cluster
				case strings.IndexByte("IMmxCdDlF0KTW", ch) >= 0:
					break cluster // attached value
				}
			}
			i = next
		}
		if len(code) == 0 && !stdin && i < len(argv) {
			script = &argv[i]
			rest = i + 1
		} else {
			rest = i
		}
	case "node", "deno", "bun":
		i := 1
		if c.prog != "node" && i < len(argv) {
			switch argv[i].s {
			case "eval", "-e", "--eval", "-p", "--print":
				if i+1 < len(argv) {
					code = append(code, argv[i+1])
				}
				i = len(argv)
			case "run", "x":
				i++
			}
		}
		for i < len(argv) {
			s := argv[i].s
			if s == "-" {
				stdin = true
				break
			}
			if len(s) < 2 || s[0] != '-' {
				break
			}
			name, val, eq := strings.Cut(s, "=")
			switch name {
			case "-e", "--eval", "-p", "--print":
				if eq {
					code = append(code, argVal{s: val, dyn: argv[i].dyn, dl: argv[i].dl})
				} else if i+1 < len(argv) {
					i++
					code = append(code, argv[i])
				}
				i++
				rest = i
				i = len(argv) + 1
				continue
			case "-r", "--require", "--import", "--loader", "--experimental-loader", "-c", "--check", "--input-type", "--env-file", "-A", "--allow-all":
				if !eq && name != "-A" && name != "--allow-all" {
					i++
				}
			}
			i++
		}
		if len(code) == 0 && !stdin && i < len(argv) {
			script = &argv[i]
			rest = i + 1
		}
	case "php":
		sp := phpOpts
		scanOpts(argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if script == nil && len(code) == 0 {
					script = &argv[o.idx]
					rest = o.idx + 1
				}
				return false
			case "r", "B", "R", "E", "run", "process-begin", "process-code", "process-end":
				code = append(code, o.val)
			case "f", "F", "file", "process-file":
				if o.hasVal {
					v := o.val
					script = &v
				}
			}
			return true
		})
		if script == nil && len(code) == 0 {
			stdin = true
		}
	case "lua":
		sp := luaOpts
		scanOpts(argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if o.val.s == "-" {
					stdin = true
				} else if len(code) == 0 {
					v := o.val
					script = &v
					rest = o.idx + 1
				}
				return false
			case "e":
				code = append(code, o.val)
			}
			return true
		})
	case "osascript":
		sp := osascriptOpts
		scanOpts(argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if len(code) == 0 {
					v := o.val
					script = &v
					rest = o.idx + 1
				}
				return false
			case "e":
				code = append(code, o.val)
			}
			return true
		})
	case "pwsh":
		return w.powershell(c)
	case "awk":
		return w.awk(c)
	case "rscript", "julia", "expect", "tclsh", "wish", "groovy", "scala", "kotlin", "swift", "elixir", "erl", "irb":
		i := 1
		for i < len(argv) {
			s := argv[i].s
			if s == "-e" || s == "-c" || s == "--eval" || s == "-eval" {
				if i+1 < len(argv) {
					code = append(code, argv[i+1])
				}
				i += 2
				rest = i
				continue
			}
			if strings.HasPrefix(s, "-") && len(s) > 1 {
				i++
				continue
			}
			break
		}
		if len(code) == 0 && i < len(argv) {
			script = &argv[i]
			rest = i + 1
		}
	default:
		return w.generic(c, 1)
	}
	var f flow
	for _, cd := range code {
		f.bits |= w.embedded(cd, c.sc)
	}
	if len(code) > 0 && c.xargs && c.in.bits&flowDL != 0 {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	if script != nil {
		if script.s == "-" {
			stdin = true
		} else {
			f.bits |= w.runScript(c, *script).bits
		}
	}
	if rest >= 0 && rest < len(argv) {
		acc := AccessRead
		if inplace {
			acc = AccessRead | AccessWrite
		}
		bare := c.prog == "perl" || c.prog == "ruby"
		for _, a := range argv[rest:] {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			w.argPath(a, c.sc, acc, bare && len(code) > 0)
		}
	}
	if len(code) == 0 && script == nil && !module {
		stdin = true
	}
	if stdin {
		f.bits |= w.stdinSink(c, flowInterpSink).bits
	}
	return f
}

// attachedOrNext returns the value of the option at argv[i][j]: the rest of
// the cluster or the next argument, and the index after it.
func attachedOrNext(argv []argVal, i, j int) (argVal, int) {
	s := argv[i].s
	if j+1 < len(s) {
		return argVal{s: s[j+1:], dyn: argv[i].dyn, dl: argv[i].dl}, i + 1
	}
	if i+1 < len(argv) {
		return argv[i+1], i + 2
	}
	return argVal{}, i + 1
}

func (w *walker) powershell(c *cmdCtx) flow {
	argv := c.argv
	valueOpts := pwshOpts
	var f flow
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if len(s) > 1 && (s[0] == '-' || s[0] == '/') {
			name := strings.ToLower(strings.TrimLeft(s, "-/"))
			name, val, hasVal := strings.Cut(name, ":")
			switch {
			case name == "c" || len(name) >= 1 && strings.HasPrefix("command", name):
				code := joinArgs(argv[i+1:])
				if hasVal {
					code.s = val
				}
				if code.s == "-" {
					return w.stdinSink(c, flowInterpSink)
				}
				f.bits |= w.embedded(code, c.sc)
				return f
			case name == "e" || name == "ec" || len(name) >= 2 && strings.HasPrefix("encodedcommand", name):
				if i+1 < len(argv) {
					code := argv[i+1]
					if dec, ok := decodePSBase64(code.s); ok {
						code.s = dec
					}
					f.bits |= w.embedded(code, c.sc)
				}
				return f
			case name == "f" || len(name) >= 2 && strings.HasPrefix("file", name):
				if i+1 < len(argv) {
					f.bits |= w.runScript(c, argv[i+1]).bits
				}
				return f
			case name == "wd" || len(name) >= 2 && strings.HasPrefix("workingdirectory", name):
				i++
			default:
				for _, v := range valueOpts {
					if name == v {
						i++
						break
					}
				}
			}
			continue
		}
		if strings.HasSuffix(strings.ToLower(s), ".ps1") {
			return w.runScript(c, argv[i])
		}
		f.bits |= w.embedded(joinArgs(argv[i:]), c.sc)
		return f
	}
	return w.stdinSink(c, flowInterpSink)
}

func decodePSBase64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

func (w *walker) awk(c *cmdCtx) flow {
	sp := awkOpts
	var f flow
	haveProg := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "f", "file", "E", "exec", "i", "include":
			if o.hasVal {
				w.argPath(o.val, c.sc, AccessRead|AccessExec, true)
				haveProg = true
			}
		case "e", "source":
			if o.hasVal {
				f.bits |= w.embedded(o.val, c.sc)
				haveProg = true
			}
		case "":
			if !haveProg {
				haveProg = true
				f.bits |= w.embedded(o.val, c.sc)
				return true
			}
			if _, _, ok := assignWord(o.val.s); ok {
				return true
			}
			w.argPath(o.val, c.sc, AccessRead, true)
		}
		return true
	})
	return f
}

func (w *walker) watch(c *cmdCtx) flow {
	argv := c.argv
	sp := watchOpts
	execMode := false
	i := 1
	for i < len(argv) {
		s := argv[i].s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s == "-x" || s == "--exec" {
			execMode = true
		}
		if s[1] == '-' {
			name, _, eq := strings.Cut(s[2:], "=")
			if !eq && sp.long[name] {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(s); j++ {
			if s[j] == 'x' {
				execMode = true
			}
			if strings.IndexByte(sp.short, s[j]) >= 0 {
				if j+1 == len(s) {
					i++
				}
				break
			}
		}
		i++
	}
	if i >= len(argv) {
		return flow{}
	}
	if execMode {
		return w.classify(argv[i:], c.sc, flow{})
	}
	code := joinArgs(argv[i:])
	return w.nestedProgram(code.s, c.sc, nil)
}

func (w *walker) su(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	var cmd *argVal
	i := 1
	for i < len(argv) {
		s := argv[i].s
		switch {
		case s == "-c" || s == "--command" || s == "--session-command":
			if i+1 < len(argv) {
				cmd = &argv[i+1]
			}
			i += 2
			continue
		case strings.HasPrefix(s, "--command=") || strings.HasPrefix(s, "--session-command="):
			_, v, _ := strings.Cut(s, "=")
			a := argVal{s: v, dyn: argv[i].dyn, dl: argv[i].dl}
			cmd = &a
		case s == "-u" || s == "--user":
			if c.prog == "runuser" {
				k := i + 2
				if k < len(argv) && argv[k].s == "--" {
					k++
				}
				if cmd == nil && k < len(argv) {
					return argv[k:], flow{}
				}
			}
			i++
		case s == "-s" || s == "-g" || s == "-G" || s == "-w" || s == "--shell" || s == "--group" || s == "--supp-group" || s == "--whitelist-environment":
			i++
		}
		i++
	}
	if cmd != nil {
		if cmd.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		return nil, w.nestedProgram(cmd.s, c.sc, nil)
	}
	// `su` alone reads commands from stdin when it is not a terminal.
	return nil, w.stdinSink(c, flowShellSink)
}

func (w *walker) sg(c *cmdCtx) flow {
	argv := c.argv
	if len(argv) < 3 {
		return flow{}
	}
	i := 2
	if argv[i].s == "-c" {
		i++
	}
	if i >= len(argv) {
		return flow{}
	}
	return w.nestedProgram(joinArgs(argv[i:]).s, c.sc, nil)
}

func (w *walker) script(c *cmdCtx) flow {
	sp := scriptOpts
	var f flow
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "c", "command":
			if o.val.dl {
				w.signal(SignalDownloadExec, c.sc.detail())
			}
			f = w.nestedProgram(o.val.s, c.sc, nil)
		case "I", "O", "B", "T", "log-in", "log-out", "log-io", "log-timing":
			w.argPath(o.val, c.sc, AccessWrite, true)
		case "":
			w.argPath(o.val, c.sc, AccessWrite, true)
		}
		return true
	})
	return f
}

func (w *walker) parallel(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	valueOpts := parallelOpts
	for i < len(argv) && strings.HasPrefix(argv[i].s, "-") {
		if valueOpts[argv[i].s] {
			i++
		}
		i++
	}
	j := i
	for j < len(argv) && argv[j].s != ":::" && argv[j].s != "::::" && argv[j].s != ":::+" {
		j++
	}
	if j > i {
		return w.nestedProgram(joinArgs(argv[i:j]).s, c.sc, nil)
	}
	return flow{}
}

func (w *walker) trap(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i].s, "-") {
		if argv[i].s == "--" {
			i++
			break
		}
		if argv[i].s == "-l" || argv[i].s == "-p" {
			return flow{}
		}
		i++
	}
	if i+1 >= len(argv) || argv[i].s == "" || argv[i].s == "-" {
		return flow{}
	}
	if argv[i].dl {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	w.evalProgram(argv[i].s, c.sc)
	return flow{}
}

// winCmd handles `cmd /c STRING` (best effort: parsed as a shell program).
func (w *walker) winCmd(c *cmdCtx) flow {
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := strings.ToLower(argv[i].s)
		if s == "/c" || s == "/k" || s == "/r" {
			return w.nestedProgram(joinArgs(argv[i+1:]).s, c.sc, nil)
		}
	}
	return flow{}
}

func (w *walker) at(c *cmdCtx) flow {
	sp := atOpts
	file := false
	listOnly := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "f":
			w.execPath(o.val, c.sc)
			file = true
		case "l", "r", "d", "c":
			listOnly = true
		}
		return true
	})
	if file || listOnly {
		return flow{}
	}
	return w.stdinSink(c, flowShellSink)
}

// callFunc walks a function body for a call, with the call's arguments as
// positional parameters.
func (w *walker) callFunc(fn funcDef, name string, c *cmdCtx) flow {
	if c.sc.depth+1 > maxDepth {
		w.res.TooDeep = true
		return flow{}
	}
	if w.activeFunc == nil {
		w.activeFunc = make(map[string]bool, 2)
	}
	w.activeFunc[name] = true
	fs := w.sub(c.sc)
	fs.depth++
	fs.pos = argStrings(c.argv)
	fs.inFunc = false
	fs.text = c.sc.detail()
	fs.src = fn.src
	fs.stmt = nil
	f := w.walkStmt(fn.body, fs, c.in)
	delete(w.activeFunc, name)
	return f
}

// Option tables, hoisted so a call allocates nothing.
var doasOpts = &optSpec{short: "uC"}
var plainWrapperOpts = &optSpec{short: "f"}
var timeOpts = &optSpec{short: "fo", long: set("format", "output")}
var timeAcc = map[string]Access{"o": AccessWrite, "output": AccessWrite}
var niceOpts = &optSpec{short: "n", long: set("adjustment")}
var ioniceOpts = &optSpec{short: "cnpPu", long: set("class", "classdata", "pid", "pgid", "uid")}
var stdbufOpts = &optSpec{short: "ioe", long: set("input", "output", "error")}
var timeoutOpts = &optSpec{short: "sk", long: set("signal", "kill-after")}
var chrtOpts = &optSpec{short: "TPD", long: set("sched-runtime", "sched-period", "sched-deadline")}
var tasksetOpts = &optSpec{}
var chrootOpts = &optSpec{long: set("userspec", "groups")}
var commandOpts = &optSpec{}
var execOpts = &optSpec{short: "a"}
var straceOpts = &optSpec{short: "abeEIoOpPsSuUXAnDFlwx", long: set("output", "expr", "attach", "user", "env", "string-limit")}
var straceAcc = map[string]Access{"o": AccessWrite, "output": AccessWrite}
var pkexecOpts = &optSpec{long: set("user")}
var caffeinateOpts = &optSpec{short: "tw"}
var unshareOpts = &optSpec{short: "SGRw", long: set("setuid", "setgid", "root", "wd", "propagation", "setgroups", "map-user", "map-group", "map-users", "map-groups")}
var nsenterOpts = &optSpec{short: "tSGrwe", long: set("target", "setuid", "setgid", "root", "wd", "env")}
var systemdRunOpts = &optSpec{short: "pEuMH", long: set("unit", "property", "description", "slice", "setenv", "working-directory", "uid", "gid", "nice", "machine", "host", "on-active", "on-boot", "on-calendar", "timer-property", "path-property", "socket-property", "service-type")}
var xvfbRunOpts = &optSpec{short: "nsfepwl", long: set("server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait")}
var sshpassOpts = &optSpec{short: "pfdeP"}
var sshpassAcc = map[string]Access{"f": AccessRead}
var uvxOpts = &optSpec{long: set("from", "with", "python", "index-url", "spec", "pip-args")}
var xargsOpts = &optSpec{short: "EILnPsda", long: set("arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var")}
var xargsAcc = map[string]Access{"a": AccessRead, "arg-file": AccessRead}
var runWrapperOpts = &optSpec{short: "npw", long: set("with", "with-requirements", "with-editable", "python", "project", "directory",
	"package", "env-file", "extra", "group", "only-group", "index", "index-url", "extra-index-url", "find-links",
	"name", "prefix", "cwd", "filter", "dir", "gemfile", "env")}
var phpOpts = &optSpec{short: "rBREFfdczt", long: set("define", "php-ini", "zend-extension", "file", "run", "process-begin", "process-code", "process-end", "process-file")}
var luaOpts = &optSpec{short: "el"}
var osascriptOpts = &optSpec{short: "els"}
var awkOpts = &optSpec{short: "fvFeiElW", long: set("file", "assign", "field-separator", "source", "include", "load", "exec")}
var watchOpts = &optSpec{short: "nq", long: set("interval", "equexit")}
var scriptOpts = &optSpec{short: "cEIOBTm", long: set("command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format")}
var atOpts = &optSpec{short: "fqtM"}
var sudoOpts = set("user", "group", "host", "prompt", "close-from", "role", "type", "command-timeout", "other-user", "chdir", "chroot")
var parallelOpts = set("-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "--colsep", "-N", "-n", "-L", "--joblog", "--results", "--tmpdir", "--workdir", "-E")
var pwshOpts = []string{"executionpolicy", "ep", "ex", "windowstyle", "w", "version", "v", "inputformat", "inp", "if",
	"outputformat", "o", "of", "configurationname", "config", "settingsfile", "custompipename", "psconsolefile", "encodedarguments", "ea"}

// callAlias walks an alias's text with the call's arguments appended.
func (w *walker) callAlias(text, name string, c *cmdCtx) flow {
	if w.activeAlias == nil {
		w.activeAlias = make(map[string]bool, 2)
	}
	var sb strings.Builder
	sb.WriteString(text)
	for _, a := range c.argv[1:] {
		sb.WriteString(" '")
		sb.WriteString(strings.ReplaceAll(a.s, "'", `'\''`))
		sb.WriteString("'")
	}
	w.activeAlias[name] = true
	f := w.evalProgram(sb.String(), c.sc)
	delete(w.activeAlias, name)
	return f
}
