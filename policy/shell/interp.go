package shell

import (
	"strings"
	"sync"
)

// interpArgs is what an interpreter's command line says it runs.
type interpArgs struct {
	code    []argVal // inline program text (-c, -e …)
	script  *argVal  // the script file it runs
	rest    int      // first argument after the program text or script; -1 when none
	inplace bool     // the file arguments are edited in place (perl -i)
	stdin   bool     // the program comes from stdin
	module  bool     // a module runs (python -m), not a script file
	modName argVal   // the module python -m runs
}

// interp is how one interpreter reads its arguments: an option table
// (opts, and which options' values are code or a script file) for those
// getopt describes, or a reader of its own for the rest.
type interp struct {
	opts      *optSpec
	code      *nameSet // options whose value is program text
	file      *nameSet // options whose value is a script file
	dashStdin bool     // an operand "-" is the program on stdin, and ends the scan
	read      func(c *cmdCtx) interpArgs
	bare      bool // with inline code, a bare-name argument is a file (perl -ne … FILE)
	own       bool // the walker reads it whole (powershell, awk)
	generic   bool // only its path arguments are read, as any program's
}

// interps is every interpreter dispatch hands to interpreter, each with
// what it does with its arguments. Built on the first shell command, like
// fileProgs.
var interps = sync.OnceValue(func() map[string]*interp {
	perl := &interp{read: perlArgs, bare: true}
	node := &interp{read: nodeArgs}
	evalFlag := &interp{read: evalFlagArgs}
	generic := &interp{generic: true}
	return map[string]*interp{
		"python":    {read: pythonArgs},                               // -c CODE | -m MODULE | SCRIPT ARGS…; - is stdin
		"perl":      perl,                                             // -e/-E CODE | SCRIPT; -i edits the files in place
		"ruby":      perl,                                             // as perl (-e CODE), with -r/-I/-C/-E taking a value
		"node":      node,                                             // -e/-p CODE | SCRIPT ARGS…
		"deno":      node,                                             // as node, and eval CODE, run SCRIPT
		"bun":       node,                                             // as node, and eval CODE, run/x SCRIPT
		"php":       {opts: phpOpts, code: phpCode, file: phpFile},    // -r/-B/-R/-E CODE | -f FILE | SCRIPT ARGS…
		"lua":       {opts: luaOpts, code: set("e"), dashStdin: true}, // -e CODE, then SCRIPT ARGS… or - for stdin
		"osascript": {opts: osascriptOpts, code: set("e")},            // -e CODE | SCRIPT ARGS…
		"pwsh":      {own: true},                                      // -c/-enc CODE | -f FILE: read by powershell
		"awk":       {own: true},                                      // PROGRAM | -f FILE, then input files: read by awk
		"rscript":   evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"julia":     evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"expect":    evalFlag,                                         // -c CODE | SCRIPT ARGS…
		"tclsh":     evalFlag,                                         // SCRIPT ARGS…
		"wish":      evalFlag,                                         // SCRIPT ARGS…
		"groovy":    evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"scala":     evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"kotlin":    evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"swift":     evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"elixir":    evalFlag,                                         // -e/--eval CODE | SCRIPT ARGS…
		"erl":       evalFlag,                                         // -eval CODE | SCRIPT ARGS…
		"irb":       evalFlag,                                         // -e CODE | SCRIPT ARGS…
		"jshell":    generic,                                          // its arguments are read as any program's
		"ghci":      generic,                                          // its arguments are read as any program's
	}
})

var (
	phpCode = set("r", "B", "R", "E", "run", "process-begin", "process-code", "process-end")
	phpFile = set("f", "F", "file", "process-file")
)

// interpreter handles python, perl, ruby, node, php, lua, osascript,
// powershell, awk and the others in interps: inline code is Embedded, a
// script file is exec.
func (w *walker) interpreter(c *cmdCtx) flow {
	argv := c.argv
	ip := interps()[c.prog]
	switch {
	case ip == nil || ip.generic:
		return w.generic(c, 1)
	case ip.own && c.prog == "pwsh":
		return w.powershell(c)
	case ip.own && c.prog == "awk":
		return w.awk(c)
	}
	var a interpArgs
	if ip.read != nil {
		a = ip.read(c)
	} else {
		a = ip.scan(argv)
	}
	code, script, rest, inplace, stdin, module := a.code, a.script, a.rest, a.inplace, a.stdin, a.module
	var f flow
	w.envFiles(c)
	for _, cd := range code {
		f.bits |= w.embedded(cd, c.sc)
		w.codeRunsIn(codeLang(c.prog), cd.s, c.sc)
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
		bare := ip.bare
		for _, a := range argv[rest:] {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			if script != nil && acc == AccessRead {
				// a script handed a directory may read all of it
				// (firefox_decrypt.py ~/.mozilla/firefox)
				w.treePath(a, c.sc, acc)
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
	if !f.hasText && strings.HasPrefix(c.prog, "python") {
		if dir := w.pythonSiteDir(argv, code); dir != "" {
			f.text, f.hasText = dir+"\n", true
		}
	}
	return f
}

// pythonSiteDir is what a query for Python's site-packages directory
// prints (print(site.getusersitepackages()), python -m site --user-site,
// sysconfig's purelib): the directory whose .pth files run at every start.
// The version is not known; the shape (…/site-packages) is what the
// start-up forbids judge.
func (w *walker) pythonSiteDir(argv []argVal, code []argVal) string {
	for i, a := range argv {
		if a.s == "--user-site" {
			if i >= 2 && argv[i-1].s == "site" {
				return w.home + "/.local/lib/python3/site-packages"
			}
		}
	}
	for _, cd := range code {
		lc := strings.ToLower(cd.s)
		if !strings.Contains(lc, "print") {
			continue
		}
		switch {
		case strings.Contains(lc, "getusersitepackages"):
			return w.home + "/.local/lib/python3/site-packages"
		case strings.Contains(lc, "getsitepackages") || strings.Contains(lc, "purelib") || strings.Contains(lc, "platlib") || strings.Contains(lc, "get_python_lib"):
			return "/usr/local/lib/python3/site-packages"
		}
	}
	return ""
}

// pythonModuleCommand: `python -m M ARGS…` runs what M's console script
// runs (python -m pip is pip, python -m keyring is keyring), so the rest is
// the command `M ARGS…`, judged as that program. A dotted module
// (http.server, json.tool) has no program of its name and stays python's,
// and so does site, whose printed directory the interpreter models
// (pythonSiteDir).
func pythonModuleCommand(c *cmdCtx) []argVal {
	if c.prog != "python" {
		return nil
	}
	a := pythonArgs(c)
	if !a.module || a.rest > len(c.argv) {
		return nil
	}
	m := a.modName
	if m.dyn || m.s == "" || m.s == "site" || strings.ContainsAny(m.s, "./\\") || strings.HasPrefix(m.s, "-") {
		return nil
	}
	inner := make([]argVal, 0, len(c.argv)-a.rest+1)
	inner = append(inner, argVal{s: m.s})
	return append(inner, c.argv[a.rest:]...)
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

// scan reads argv with the entry's option table: the first operand is the
// script (unless code came first), its arguments follow.
func (ip *interp) scan(argv []argVal) interpArgs {
	var code []argVal
	var script *argVal
	rest := -1
	stdin := false
	scanOpts(argv, 1, ip.opts, func(o option) bool {
		switch {
		case o.name == "":
			if ip.dashStdin && o.val.s == "-" {
				stdin = true
			} else if script == nil && len(code) == 0 {
				v := o.val
				script = &v
				rest = o.idx + 1
			}
			return false
		case ip.code.has(o.name):
			code = append(code, o.val)
		case ip.file.has(o.name):
			if o.hasVal {
				v := o.val
				script = &v
			}
		}
		return true
	})
	return interpArgs{code: code, script: script, rest: rest, stdin: stdin}
}

// pythonArgs reads python's command line: options cluster, -c and -m end
// them, -W/-X/-Q take a value.
func pythonArgs(c *cmdCtx) interpArgs {
	argv := c.argv
	var code []argVal
	var script *argVal
	rest := -1
	inplace, stdin, module := false, false, false
	var modName argVal
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
					module, modName = true, v
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
	return interpArgs{code: code, script: script, rest: rest, inplace: inplace, stdin: stdin, module: module, modName: modName}
}

// perlArgs reads perl's and ruby's command line: -e (perl also -E) is
// code, -i edits in place, ruby's -r/-I/-C/-E take a value.
func perlArgs(c *cmdCtx) interpArgs {
	argv := c.argv
	var code []argVal
	var script *argVal
	rest := -1
	inplace, stdin, module := false, false, false
	var prelude strings.Builder // perl -MMOD, ruby -rLIB: the code starts with use MOD; / require 'LIB'
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
				v, n := attachedOrNext(argv, i, j)
				if ch == 'r' && prelude.Len() < maxWord {
					prelude.WriteString("require '" + v.s + "'; ")
				}
				next = n
				break cluster
			case strings.IndexByte("IMmxCdDlF0KTW", ch) >= 0:
				if (ch == 'M' || ch == 'm') && c.prog == "perl" && j+1 < len(s) && prelude.Len() < maxWord {
					mod, _, _ := strings.Cut(strings.TrimPrefix(s[j+1:], "-"), "=")
					prelude.WriteString("use " + mod + "; ")
				}
				break cluster // attached value
			}
		}
		i = next
	}
	// perl -MLWP::Simple -e 'eval get(…)' is `use LWP::Simple; eval get(…)`:
	// the modules a command line loads are part of the code it runs.
	if prelude.Len() > 0 {
		for k := range code {
			code[k].s = prelude.String() + code[k].s
		}
	}
	if len(code) == 0 && !stdin && i < len(argv) {
		script = &argv[i]
		rest = i + 1
	} else {
		rest = i
	}
	return interpArgs{code: code, script: script, rest: rest, inplace: inplace, stdin: stdin, module: module}
}

// nodeArgs reads node's, deno's and bun's command line: -e/-p is code
// and ends the options; deno and bun also take eval, run and x.
func nodeArgs(c *cmdCtx) interpArgs {
	argv := c.argv
	var code []argVal
	var script *argVal
	rest := -1
	inplace, stdin, module := false, false, false
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
	return interpArgs{code: code, script: script, rest: rest, inplace: inplace, stdin: stdin, module: module}
}

// evalFlagArgs reads the command line of an interpreter whose -e, -c,
// --eval or -eval takes code (Rscript, julia, tclsh …): any other dash
// word is skipped, the first other word is the script.
func evalFlagArgs(c *cmdCtx) interpArgs {
	argv := c.argv
	var code []argVal
	var script *argVal
	rest := -1
	inplace, stdin, module := false, false, false
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
	return interpArgs{code: code, script: script, rest: rest, inplace: inplace, stdin: stdin, module: module}
}
