package shell

import (
	"strings"
)

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
			if longVal.has(name) && !eq && i+1 < len(argv) {
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
		w.addEnv(name, val, c.sc)
		i++
	}
	if edit {
		for _, a := range argv[i:] {
			w.argPath(a, c.sc, AccessRead|AccessWrite, true)
		}
		w.runEditor(argv[i:], c)
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
		w.addEnv(name, val, c.sc)
		i++
	}
	if i >= len(argv) {
		return nil, flow{}
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

var sudoOpts = set("user", "group", "host", "prompt", "close-from", "role", "type", "command-timeout", "other-user", "chdir", "chroot")
