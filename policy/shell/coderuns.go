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
	{name: "deno.command", prog: true, langs: "node"},                      // new Deno.Command(prog, {args})
	{name: "bun.spawn", argv: true, langs: "node"},                         // Bun.spawn([argv])
	{name: "shell", langs: "octave"},                                       // shell text
	{name: "run", langs: "julia"},                                          // run(`cmd`)
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

// litArg is one literal argument of a call: a string, or a list of strings.
type litArg struct {
	s    string
	list []string
	isL  bool
}

// callArgs reads the literal arguments after a function name at code[i:]:
// `("a", ["b", "c"])`, `"a"`, `(`a`)`. It stops at the first argument that
// is not a literal.
func callArgs(code string, i int, lang string) []litArg {
	j := skipSpace(code, i)
	paren := j < len(code) && code[j] == '('
	if paren {
		j++
	} else if j == i && lang != "tcl" {
		return nil // `system"x"` is not a call; `system "x"` (perl, ruby, haskell) is
	}
	var args []litArg
	for len(args) < 4 {
		j = skipSpace(code, j)
		if j >= len(code) {
			break
		}
		if code[j] == '[' || code[j] == '(' || code[j] == '{' && lang == "php" {
			list, end, ok := listLit(code, j, lang)
			if !ok {
				break
			}
			args = append(args, litArg{list: list, isL: true})
			j = end
		} else {
			s, end, ok := strLit(code, j, lang)
			if !ok {
				if end, ok = homeExpr(code, j); !ok {
					break
				}
				s = "~"
			}
			args = append(args, litArg{s: s})
			j = end
		}
		j = skipSpace(code, j)
		if j >= len(code) || code[j] != ',' {
			break
		}
		j++
	}
	return args
}

// homeExprs are the expressions of the interpreters' languages that
// stand for the user's home directory.
var homeExprs = []string{"require('os').homedir()", `require("os").homedir()`, "os.homedir()", "process.env.HOME",
	"os.environ['HOME']", `os.environ["HOME"]`, "os.path.expanduser('~')", `os.path.expanduser("~")`,
	"str(Path.home())", "Path.home()", "pathlib.Path.home()", "$ENV{HOME}", "$ENV{'HOME'}", `$ENV{"HOME"}`,
	"ENV['HOME']", `ENV["HOME"]`, "Dir.home", "getenv('HOME')", `getenv("HOME")`, "os.getenv('HOME')", `os.getenv("HOME")`,
	"$_SERVER['HOME']", "homedir()"}

// homeExpr reports a home expression at s[i:] and returns the offset after it.
func homeExpr(s string, i int) (int, bool) {
	for _, h := range homeExprs {
		if strings.HasPrefix(s[i:], h) {
			return i + len(h), true
		}
	}
	return i, false
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

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// strLit reads one string literal at s[i:] in lang's syntax: '…', "…",
// `…`, python's r/b/f/u prefixes and triple quotes. Interpolations become
// shell parameters ($HOME for the home, $_ for anything else).
func strLit(s string, i int, lang string) (string, int, bool) {
	f := false
	for k := 0; k < 2 && i < len(s) && lang == "python" && strings.IndexByte("rRbBfFuU", s[i]) >= 0; k++ {
		if s[i] == 'f' || s[i] == 'F' {
			f = true
		}
		i++
	}
	if i >= len(s) {
		return "", i, false
	}
	q := s[i]
	if q != '\'' && q != '"' && q != '`' {
		return "", i, false
	}
	if q == '`' && lang != "node" && lang != "julia" && lang != "perl" && lang != "ruby" && lang != "php" {
		return "", i, false
	}
	end := string(q)
	if lang == "python" && strings.HasPrefix(s[i:], strings.Repeat(end, 3)) {
		end = strings.Repeat(end, 3)
	}
	i += len(end)
	var b strings.Builder
	for i < len(s) {
		if strings.HasPrefix(s[i:], end) {
			return interpolate(b.String(), lang, q, f), i + len(end), true
		}
		c := s[i]
		if c == '\\' && i+1 < len(s) && q != '\'' || c == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\') {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			i++
			continue
		}
		if b.Len() < maxWord {
			b.WriteByte(c)
		}
		i++
	}
	return "", i, false
}

// listLit reads a list of string literals: ["a", 'b'], ('a', 'b'), {'a'}.
func listLit(s string, i int, lang string) ([]string, int, bool) {
	closer := map[byte]byte{'[': ']', '(': ')', '{': '}'}[s[i]]
	i++
	var out []string
	for {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == closer {
			return out, i + 1, true
		}
		v, end, ok := strLit(s, i, lang)
		if !ok {
			if end, ok = homeExpr(s, i); !ok {
				return out, i, len(out) > 0
			}
			v = "~"
		}
		if len(out) < maxCodeArgv {
			out = append(out, v)
		}
		i = skipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

// interpolate turns a language's interpolations in a literal into shell
// parameters, so the shell walker sees an unknown, not a literal name.
func interpolate(v, lang string, q byte, fstr bool) string {
	if q == '\'' && lang != "node" || strings.IndexAny(v, "${#") < 0 {
		return v
	}
	home := []string{"process.env.HOME", "os.homedir()", "os.environ['HOME']", `os.environ["HOME"]`, "Path.home()",
		"os.path.expanduser('~')", `os.path.expanduser("~")`, "$ENV{HOME}", "$ENV{'HOME'}", `$ENV{"HOME"}`,
		"ENV['HOME']", `ENV["HOME"]`, "Dir.home", "$_SERVER['HOME']", "getenv('HOME')", `getenv("HOME")`}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		open, closeCh := "", byte(0)
		switch {
		case (lang == "node" || lang == "julia") && strings.HasPrefix(v[i:], "${"):
			open, closeCh = "${", '}'
		case lang == "ruby" && strings.HasPrefix(v[i:], "#{"):
			open, closeCh = "#{", '}'
		case lang == "python" && fstr && v[i] == '{':
			open, closeCh = "{", '}'
		case lang == "perl" && strings.HasPrefix(v[i:], "$ENV{"):
			open, closeCh = "$ENV{", '}'
		}
		if open == "" {
			b.WriteByte(v[i])
			continue
		}
		k := strings.IndexByte(v[i+len(open):], closeCh)
		if k < 0 {
			b.WriteString(v[i:])
			break
		}
		inner := v[i+len(open) : i+len(open)+k]
		whole := inner
		if open == "$ENV{" {
			whole = "$ENV{" + inner + "}"
		}
		rep := "$_"
		for _, h := range home {
			if strings.TrimSpace(whole) == h || strings.Trim(inner, `'" `) == "HOME" {
				rep = "$HOME"
				break
			}
		}
		b.WriteString(rep)
		i += len(open) + k
	}
	return b.String()
}

// quotedRuns reads perl's, ruby's and php's command quotes: `…`, qx{…},
// %x(…), and perl's pipe opens (open(F, "cmd |"), open(F, "-|", "cmd")).
func quotedRuns(code, lang string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < maxCodeRuns; i++ {
		c := code[i]
		switch {
		case c == '`':
			k := strings.IndexByte(code[i+1:], '`')
			if k < 0 {
				return out
			}
			out = append(out, code[i+1:i+1+k])
			i += k + 1
		case lang != "php" && (strings.HasPrefix(code[i:], "qx") && lang == "perl" || strings.HasPrefix(code[i:], "%x") && lang == "ruby") &&
			(i == 0 || !isIdentByte(code[i-1])) && i+2 < len(code):
			open := code[i+2]
			closeCh := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>'}[open]
			if closeCh == 0 {
				if isIdentByte(open) || open == ' ' {
					continue
				}
				closeCh = open
			}
			k := strings.IndexByte(code[i+3:], closeCh)
			if k < 0 {
				return out
			}
			out = append(out, code[i+3:i+3+k])
			i += k + 3
		case lang == "perl" && strings.HasPrefix(code[i:], "open") && (i == 0 || !isIdentByte(code[i-1])):
			// open(FH, MODE-or-"cmd |", …): the handle is not a literal
			j := i + 4
			if k := strings.IndexByte(code[j:], ','); k >= 0 && k < 64 {
				j += k + 1
			}
			var args []litArg
			for len(args) < 3 {
				j = skipSpace(code, j)
				s, end, ok := strLit(code, j, lang)
				if !ok {
					break
				}
				args = append(args, litArg{s: s})
				j = skipSpace(code, end)
				if j >= len(code) || code[j] != ',' {
					break
				}
				j++
			}
			for k, a := range args {
				s := strings.TrimSpace(a.s)
				switch {
				case s == "-|" || s == "|-":
					if k+1 < len(args) {
						out = append(out, args[k+1].s)
					}
				case strings.HasPrefix(s, "|"):
					out = append(out, s[1:])
				case strings.HasSuffix(s, "|"):
					out = append(out, s[:len(s)-1])
				}
			}
			i += 3
		}
	}
	return out
}

// awkPipes reads awk's commands: print … | "cmd", "cmd" | getline.
func awkPipes(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < maxCodeRuns; i++ {
		if code[i] != '|' {
			continue
		}
		if i+1 < len(code) && code[i+1] == '|' {
			i++
			continue // ||
		}
		// "cmd" | getline (looked for in a bounded window: linear time)
		lo := max(0, i-maxWord)
		if j := strings.LastIndexByte(code[lo:i], '"'); j >= 0 && strings.TrimSpace(code[lo+j+1:i]) == "" {
			j += lo
			if k := strings.LastIndexByte(code[lo:j], '"'); k >= 0 && strings.HasPrefix(strings.TrimLeft(code[i+1:min(len(code), i+16)], " \t"), "getline") {
				k += lo
				out = append(out, unescapeAwk(code[k+1:j]))
				continue
			}
		}
		// print … | "cmd"
		j := skipSpace(code, i+1)
		if j < len(code) && code[j] == '"' {
			if s, _, ok := strLit(code, j, "awk"); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func unescapeAwk(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(s)
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
