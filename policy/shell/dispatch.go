package shell

import (
	"strings"
)

// cmdCtx is one simple command being classified.
type cmdCtx struct {
	prog string
	argv []argVal
	// modelled: the handler knew every operand's role (see Command.Modelled)
	modelled bool
	awkSeen  bool // awk: a program text was read
	sc       *scope
	in       flow
	xargs    bool // arguments arrive from stdin (xargs): interpreters here run piped data
}

// classify records the facts of one simple command and of every command it
// wraps.
func (w *walker) classify(argv []argVal, sc *scope, in flow) flow {
	hs := len(w.cmdHosts)
	for i := range argv {
		w.scanURLs(argv[i], sc)
	}
	strs := argStrings(argv)
	c := &cmdCtx{argv: argv, sc: sc, in: in}
	w.namesCmd = false
	for guard := 0; guard < 64 && len(c.argv) > 0; guard++ {
		if w.full() {
			return flow{}
		}
		w.res.Commands = append(w.res.Commands, Command{Argv: strs, Dir: c.sc.dir})
		ci := len(w.res.Commands) - 1
		c.modelled = false
		a0 := c.argv[0]
		if guard == 0 && w.aliases != nil {
			if v, ok := w.aliases[a0.s]; ok && !w.activeAlias[a0.s] {
				f := w.callAlias(v, a0.s, c)
				w.namesCmd = false // the body's last command is not what reads stdin
				return f
			}
		}
		if guard == 0 && w.funcs != nil {
			if fn, ok := w.funcs[a0.s]; ok && !w.activeFunc[a0.s] {
				f := w.callFunc(fn, a0.s, c)
				w.namesCmd = false
				return f
			}
		}
		if a0.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		if a0.obf {
			w.signal(SignalObfuscatedExec, c.sc.detail())
		}
		if a0.s == "" {
			return flow{bits: in.bits & flowTaint}
		}
		linked := ""
		if !a0.proc && (strings.IndexByte(a0.s, '/') >= 0 || cmdPathForm(a0.s)) {
			if abs, ok := w.resolve(a0.s, c.sc.dir); ok {
				w.addPathAbs(a0.s, abs, AccessExec)
				w.checkExecDownloaded(abs, c.sc)
				linked = w.progLinks[abs]
			}
		}
		c.prog = progName(a0.s)
		if linked != "" {
			c.prog = linked // a link or copy of a program is that program
		}
		prev := c.argv
		inner, f := w.dispatch(c)
		if c.modelled || len(inner) > 0 || modelledProgs()[c.prog] {
			w.res.Commands[ci].Modelled = true
		}
		if len(inner) == 0 {
			w.namesCmd = namesOnly(c) && !c.xargs // xargs wc: stdin is names, and wc prints them
			f.bits |= in.bits&flowTaint | w.decoderOut(c)
			return w.secretFlow(c, f, hs)
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
		a.obf = a.obf || x.obf
		a.glob = a.glob || x.glob
		a.sec |= x.sec
	}
	a.s = strings.Join(parts, " ")
	return a
}

var progs = set("sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "rbash", "fish", "tcsh", "csh", "posh", "oksh", "loksh", "pdksh", "ksh93")

// dispatch classifies c; it returns the wrapped command to classify next,
// or the command's data flow.
func (w *walker) dispatch(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	w.packageSource(c)
	w.remoteRun(c)
	w.trustControls(c)
	w.effects(c)
	if c.prog == "set" || c.prog == "shift" {
		setPositionals(c)
	}
	if inner, ok := w.tableDispatch(c); ok {
		if len(inner) > 0 {
			return inner, flow{}
		}
		return nil, w.generic(c, 1)
	}
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
		if len(argv) > 2 && (argv[1].s == "-v" || argv[1].s == "-V") {
			return nil, locatedPaths(argv[2:])
		}
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
		if code.obf {
			w.signal(SignalObfuscatedExec, c.sc.detail())
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
	case "visudo", "vipw", "vigr", "sudoedit", "crontab", "systemctl":
		if w.editorRuns(c) {
			return nil, flow{}
		}
	}
	if progs.has(c.prog) {
		return nil, w.shell(c)
	}
	if interps()[c.prog] != nil {
		if inner := pythonModuleCommand(c); inner != nil {
			return inner, flow{}
		}
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
