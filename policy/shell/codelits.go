package shell

import (
	"strings"
)

// Literal readers of the interpreter languages, for codeExecs.

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
	if q == '\'' && lang != "node" || !strings.ContainsAny(v, "${#") {
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
