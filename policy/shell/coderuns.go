package shell

import (
	"strings"
)

// execRun is one command that interpreter code runs, read from the
// literal it hands to a function that runs commands: shell text
// (os.system("…"), `…`, system "…") or a program's argv
// (subprocess.run(["cat", "x"]), execFile("cat", ["x"])).
type execRun struct {
	shell string
	argv  []string
}

// Budgets of execRuns: extraction is linear in the code and its output
// bounded, whatever the code.
const (
	maxCodeRuns = 16
	maxCodeArgv = 64
)

// runFunc is a function of an interpreter's language whose literal
// arguments are commands it runs.
type runFunc struct {
	name  string // as written in the code, lower case
	argv  bool   // a list literal is an argv; a string is shell text
	prog  bool   // the first string is a program and a following list its arguments (execFile, os.execv)
	langs string // the languages it belongs to ("" all); a space-separated list
}

// runFuncs are the functions, per language, whose literal arguments run
// as commands. Names match a suffix of a dotted call (child_process.exec,
// cp.exec, require("child_process").execSync all end in exec or execSync).
var runFuncs = []runFunc{
	{name: "os.system", langs: "python"},                                   // shell text
	{name: "os.popen", langs: "python"},                                    // shell text, output read back
	{name: "subprocess.run", argv: true, langs: "python"},                  // argv list, or a string (shell=True)
	{name: "subprocess.call", argv: true, langs: "python"},                 // as subprocess.run
	{name: "subprocess.popen", argv: true, langs: "python"},                // as subprocess.run
	{name: "subprocess.check_output", argv: true, langs: "python"},         // as subprocess.run
	{name: "subprocess.check_call", argv: true, langs: "python"},           // as subprocess.run
	{name: "subprocess.getoutput", langs: "python"},                        // shell text
	{name: "subprocess.getstatusoutput", langs: "python"},                  // shell text
	{name: "commands.getoutput", langs: "python"},                          // shell text (Python 2)
	{name: "pty.spawn", argv: true, langs: "python"},                       // a program or an argv list, on a terminal
	{name: "os.execv", prog: true, langs: "python"},                        // program, then its argv list
	{name: "os.execvp", prog: true, langs: "python"},                       // as os.execv, on PATH
	{name: "os.execl", prog: true, langs: "python"},                        // program, then its arguments
	{name: "os.execlp", prog: true, langs: "python"},                       // as os.execl, on PATH
	{name: "os.spawnl", prog: true, langs: "python"},                       // mode, program, arguments
	{name: "asyncio.create_subprocess_shell", langs: "python"},             // shell text
	{name: "system", langs: "perl ruby php awk lua octave slsh r julia c"}, // shell text
	{name: "exec", langs: "perl ruby php node tcl java"},                   // perl/ruby/php: shell text or argv; node child_process.exec: shell text
	{name: "execsync", langs: "node"},                                      // child_process.execSync: shell text
	{name: "execfile", prog: true, langs: "node"},                          // program, then its argument list
	{name: "execfilesync", prog: true, langs: "node"},                      // as execFile
	{name: "spawn", prog: true, langs: "node ruby perl"},                   // program, then its argument list
	{name: "spawnsync", prog: true, langs: "node"},                         // as spawn
	{name: "shell_exec", langs: "php"},                                     // shell text
	{name: "passthru", langs: "php"},                                       // shell text
	{name: "popen", langs: "php ruby c"},                                   // shell text
	{name: "proc_open", langs: "php"},                                      // shell text
	{name: "pcntl_exec", prog: true, langs: "php"},                         // program, then its arguments
	{name: "io.popen", langs: "lua ruby"},                                  // shell text
	{name: "os.execute", langs: "lua"},                                     // shell text
	{name: "open3.capture2", langs: "ruby"},                                // shell text
	{name: "open3.capture3", langs: "ruby"},                                // shell text
	{name: "open3.popen3", langs: "ruby"},                                  // shell text
	{name: "readpipe", langs: "perl"},                                      // shell text
	{name: "callcommand", langs: "haskell"},                                // System.Process.callCommand: shell text
	{name: "runtime.getruntime().exec", argv: true, langs: "java"},         // a command line or an argv array
	{name: "processbuilder", prog: true, langs: "java"},                    // new ProcessBuilder("prog", "arg" …) or (["prog", …])
	{name: "deno.command", prog: true, langs: "node"},                      // new Deno.Command(prog, {args})
	{name: "bun.spawn", argv: true, langs: "node"},                         // Bun.spawn([argv])
	{name: "shell", langs: "octave"},                                       // shell text
	{name: "run", langs: "julia"},                                          // run(`cmd`)
	{name: "system2", prog: true, langs: "r"},                              // system2("prog", c(args))
	{name: "do shell script", langs: "applescript"},                        // osascript: shell text
	{name: "doshellscript", langs: "applescript"},                          // JXA app.doShellScript("…")
	{name: "shell-command", langs: "elisp"},                                // (shell-command "…")
	{name: "async-shell-command", langs: "elisp"},                          // (async-shell-command "…")
	{name: "call-process", prog: true, langs: "elisp"},                     // (call-process "prog" nil nil nil "arg" …)
}

// codeLang maps an interpreter to the language names runFuncs use.
func codeLang(prog string) string {
	switch prog {
	case "python", "perl", "ruby", "php", "lua", "awk", "node", "tcl":
		return prog
	case "deno", "bun":
		return "node"
	case "tclsh", "wish", "expect":
		return "tcl"
	case "rscript":
		return "r"
	case "julia", "octave", "slsh":
		return prog
	case "osascript":
		return "applescript"
	case "emacs", "emacsclient":
		return "elisp"
	case "ghci", "ghc", "runghc":
		return "haskell"
	case "jshell", "jrunscript", "jjs", "groovy":
		return "java"
	}
	return ""
}

// codeExecs extracts the commands code in lang runs through literals: the
// string or list literal handed to a function in runFuncs, perl's and
// ruby's backticks, qx{} and %x(), perl's pipe opens, awk's pipes to and
// from commands, tcl's exec and spawn. A command built at run time yields
// only its literal parts, or nothing.
func codeExecs(lang, code string) []execRun {
	if lang == "" || len(code) > 1<<16 {
		return nil
	}
	var out []execRun
	add := func(r execRun) bool {
		if len(out) >= maxCodeRuns {
			return false
		}
		if r.shell = strings.TrimSpace(r.shell); r.shell == "" && len(r.argv) == 0 {
			return true
		}
		if len(r.shell) > maxWord {
			r.shell = r.shell[:maxWord]
		}
		out = append(out, r)
		return true
	}
	lc := asciiLower(code)
	for _, f := range runFuncs {
		if f.langs != "" && !hasWord(f.langs, lang) {
			continue
		}
		for from := 0; from < len(lc); {
			k := strings.Index(lc[from:], f.name)
			if k < 0 {
				break
			}
			k += from
			from = k + len(f.name)
			if k > 0 && isIdentByte(lc[k-1]) && !strings.Contains(f.name, ".") {
				continue // part of a longer name (ecosystem(), subsystem)
			}
			if from < len(lc) && isIdentByte(lc[from]) {
				continue
			}
			args := callArgs(code, from, lang)
			if len(args) == 0 {
				continue
			}
			r, ok := callRun(f, args)
			if ok && !add(r) {
				return out
			}
		}
	}
	switch lang {
	case "perl", "ruby", "php":
		for _, s := range quotedRuns(code, lang) {
			if !add(execRun{shell: s}) {
				return out
			}
		}
	case "awk":
		for _, s := range awkPipes(code) {
			if !add(execRun{shell: s}) {
				return out
			}
		}
	case "java":
		// Groovy (Gradle scripts, jshell-like runners): "cmd".execute() and
		// ['prog', 'arg'].execute() run what the receiver literal spells
		for _, r := range executeReceivers(code) {
			if !add(r) {
				return out
			}
		}
	case "tcl":
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' || r == '[' || r == ']' }) {
			fs := strings.Fields(line)
			if len(fs) >= 2 && (fs[0] == "exec" || fs[0] == "spawn") {
				if len(fs) > maxCodeArgv {
					fs = fs[:maxCodeArgv]
				}
				if !add(execRun{argv: fs[1:]}) {
					return out
				}
			}
		}
	}
	return out
}

func hasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func callRun(f runFunc, args []litArg) (execRun, bool) {
	a := args[0]
	switch {
	case f.prog:
		// (prog, [args]) or (prog, arg, arg …); os.spawnl(mode, prog, …)
		if a.isL {
			return execRun{argv: capArgv(a.list)}, len(a.list) > 0
		}
		argv := []string{a.s}
		for _, b := range args[1:] {
			if b.isL {
				if len(b.list) > 0 && b.list[0] == a.s || len(b.list) > 0 && strings.HasSuffix(a.s, "/"+b.list[0]) {
					argv = append(argv, b.list[1:]...) // execv(path, [argv0, …])
				} else {
					argv = append(argv, b.list...)
				}
				break
			}
			argv = append(argv, b.s)
		}
		return execRun{argv: capArgv(argv)}, a.s != ""
	case a.isL:
		return execRun{argv: capArgv(a.list)}, len(a.list) > 0
	default:
		if len(args) > 1 && args[1].isL && f.name == "exec" {
			return execRun{argv: capArgv(append([]string{a.s}, args[1].list...))}, true
		}
		if len(args) > 1 && !args[1].isL {
			// system "rm", "-rf", … (perl, ruby): a list is an argv
			argv := make([]string, 0, len(args))
			for _, b := range args {
				if b.isL {
					break
				}
				argv = append(argv, b.s)
			}
			return execRun{argv: capArgv(argv)}, true
		}
		return execRun{shell: a.s}, true
	}
}

func capArgv(a []string) []string {
	if len(a) > maxCodeArgv {
		a = a[:maxCodeArgv]
	}
	return a
}

// asciiLower lower-cases ASCII letters only, so offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// executeReceivers reads Groovy's receiver-first runs: a string literal or
// a list of string literals right before .execute().
func executeReceivers(code string) []execRun {
	var out []execRun
	for from := 0; len(out) < maxCodeRuns; {
		k := strings.Index(code[from:], ".execute(")
		if k < 0 {
			break
		}
		k += from
		from = k + len(".execute(")
		end := k
		for end > 0 && (code[end-1] == ' ' || code[end-1] == ')') {
			end--
		}
		if end == 0 {
			continue
		}
		switch q := code[end-1]; q {
		case '\'', '"':
			start := strings.LastIndexByte(code[:end-1], q)
			if start >= 0 {
				out = append(out, execRun{shell: code[start+1 : end-1]})
			}
		case ']':
			start := strings.LastIndexByte(code[:end-1], '[')
			if start < 0 {
				continue
			}
			var argv []string
			for _, part := range strings.Split(code[start+1:end-1], ",") {
				part = strings.TrimSpace(part)
				if len(part) >= 2 && (part[0] == '\'' || part[0] == '"') && part[len(part)-1] == part[0] {
					argv = append(argv, part[1:len(part)-1])
				}
			}
			if len(argv) > 0 {
				out = append(out, execRun{argv: capArgv(argv)})
			}
		}
	}
	return out
}
