package shell

import (
	"strings"
)

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

var phpOpts = &optSpec{short: "rBREFfdczt", long: set("define", "php-ini", "zend-extension", "file", "run", "process-begin", "process-code", "process-end", "process-file")}

var luaOpts = &optSpec{short: "el"}

var osascriptOpts = &optSpec{short: "els"}
