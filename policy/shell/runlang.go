package shell

import (
	"strings"
)

// langRuns analyses the commands code in a program's own language runs
// (a runLang row): vim's ex commands, gdb's, SQL clients' escapes, a
// makefile fragment, a crontab, TeX's \write18, rpm macros, or an
// interpreter's literals.
func (w *walker) langRuns(lang string, v argVal, sc *scope) {
	code := v.s
	if strings.TrimSpace(code) == "" {
		return
	}
	switch lang {
	case "vim":
		for _, ex := range exCommands(code) {
			w.exRun(ex, sc)
		}
	case "gdb":
		w.gdbRun(code, sc)
	case "bang":
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "!"); ok {
				w.extracted(rest, sc)
			}
		}
	case "sql":
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
			line = strings.TrimSpace(line)
			for _, p := range []string{`\!`, "system ", ".shell ", ".system ", ".once |", ".output |", `\o |`, `\o|`} {
				if rest, ok := strings.CutPrefix(line, p); ok {
					w.extracted(rest, sc)
					break
				}
			}
		}
	case "make":
		for _, s := range makeRecipes(code) {
			w.extracted(s, sc)
		}
	case "cron":
		for _, s := range cronCommands(code) {
			w.extracted(s, sc)
		}
	case "tex":
		for _, s := range texWrites(code) {
			w.extracted(s, sc)
		}
	case "rpm":
		for i := 0; i < len(code); i++ {
			if strings.HasPrefix(code[i:], "%(") {
				if k := strings.IndexByte(code[i+2:], ')'); k >= 0 {
					w.extracted(code[i+2:i+2+k], sc)
				}
			}
			if strings.HasPrefix(code[i:], "%{lua:") {
				w.codeRunsIn("lua", code[i+6:], sc)
			}
		}
	case "keys":
		w.extracted(code, sc)
	default:
		w.codeRunsIn(lang, code, sc)
	}
}

// codeRunsIn analyses the commands interpreter code runs through literals.
func (w *walker) codeRunsIn(lang, code string, sc *scope) {
	for _, r := range codeExecs(lang, code) {
		if w.full() {
			return
		}
		if len(r.argv) > 0 {
			args := make([]argVal, len(r.argv))
			for i, a := range r.argv {
				args[i] = argVal{s: w.crudeExpand(a)}
			}
			w.classify(args, sc.nested(nil), flow{})
			continue
		}
		w.extracted(r.shell, sc)
	}
}

// extracted walks shell text read out of another language. Text that does
// not parse as shell is dropped rather than matched crudely: it was
// extracted by a heuristic, and an unparsed signal would stop benign code.
func (w *walker) extracted(src string, sc *scope) {
	src = strings.TrimSpace(src)
	if src == "" || len(src) > maxWord {
		return
	}
	if _, err := parseShellSource(src); err != nil {
		return
	}
	w.nestedProgram(src, sc, nil)
}

// exCommands splits vim/ex command text (-c, +cmd) into commands: | joins
// commands, except after ! where the rest is shell text.
func exCommands(code string) []string {
	var out []string
	rest := code
	for guard := 0; guard < 64 && rest != ""; guard++ {
		s := strings.TrimLeft(rest, ": \t")
		if strings.HasPrefix(s, "!") || bangCommand(s) {
			out = append(out, s)
			break
		}
		k := strings.IndexByte(s, '|')
		if k < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:k])
		rest = s[k+1:]
	}
	return out
}

// bangCommand reports an ex command whose argument is !shell text
// (r !cmd, w !cmd, silent !cmd, exe "!cmd").
func bangCommand(s string) bool {
	for _, p := range []string{"r !", "r!", "read !", "w !", "write !", "sil !", "sil!", "silent !", "silent!", "exe ", "execute "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// exRun analyses one ex command.
func (w *walker) exRun(ex string, sc *scope) {
	s := strings.TrimSpace(ex)
	for _, p := range []string{"silent!", "silent", "sil!", "sil", "execute", "exe"} {
		if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" || rest[0] == ' ' || rest[0] == '!' || rest[0] == '"' || rest[0] == '\'') {
			s = strings.TrimSpace(rest)
			s = strings.Trim(s, `"'`)
			s = strings.TrimLeft(s, ":")
			break
		}
	}
	for _, p := range []string{"read", "r", "write", "w"} {
		if rest, ok := strings.CutPrefix(s, p); ok && strings.HasPrefix(strings.TrimSpace(rest), "!") {
			s = strings.TrimSpace(rest)
			break
		}
	}
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		w.extracted(rest, sc)
		return
	}
	name, arg, _ := strings.Cut(s, " ")
	switch name {
	case "py", "py3", "python", "python3", "pyx", "pythonx":
		w.codeRunsIn("python", arg, sc)
	case "lua":
		w.codeRunsIn("lua", arg, sc)
	case "perl":
		w.codeRunsIn("perl", arg, sc)
	case "ruby", "rub":
		w.codeRunsIn("ruby", arg, sc)
	case "call", "echo", "let":
		w.codeRunsIn("c", arg, sc)
	case "term", "terminal", "ter":
		w.extracted(arg, sc)
	}
}

// gdbRun analyses gdb commands: !CMD, shell CMD, pipe …|CMD, python CODE,
// call/print system("…").
func (w *walker) gdbRun(code string, sc *scope) {
	s := strings.TrimSpace(code)
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		w.extracted(rest, sc)
		return
	}
	name, arg, _ := strings.Cut(s, " ")
	switch name {
	case "shell":
		w.extracted(arg, sc)
	case "pipe", "|":
		if k := strings.IndexByte(arg, '|'); k >= 0 {
			w.extracted(arg[k+1:], sc)
		}
	case "python", "py", "python-interactive", "pi":
		w.codeRunsIn("python", arg, sc)
	case "call", "print", "p":
		w.codeRunsIn("c", arg, sc)
	}
}

// makeRecipes reads the shell a makefile fragment runs: recipe lines
// (after a tab, or after ; on a rule line) and $(shell …) calls.
func makeRecipes(code string) []string {
	var out []string
	for _, line := range strings.Split(code, "\n") {
		if len(out) >= maxCodeRuns {
			break
		}
		switch {
		case strings.HasPrefix(line, "\t"):
			out = append(out, strings.TrimLeft(line, "\t @-+"))
		default:
			if k := strings.IndexByte(line, ':'); k >= 0 && !strings.HasPrefix(line[k:], ":=") {
				if j := strings.IndexByte(line[k:], ';'); j >= 0 {
					out = append(out, strings.TrimLeft(line[k+j+1:], " @-+"))
				}
			}
		}
		for i := strings.Index(line, "$(shell "); i >= 0 && len(out) < maxCodeRuns; {
			body := line[i+len("$(shell "):]
			if k := strings.IndexByte(body, ')'); k >= 0 {
				out = append(out, body[:k])
			}
			next := strings.Index(line[i+1:], "$(shell ")
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return out
}

// cronCommands reads the commands of crontab lines: five time fields (or
// an @word) then the command; comments and NAME=VALUE lines run nothing.
func cronCommands(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || len(out) >= maxCodeRuns {
			continue
		}
		if name, _, ok := strings.Cut(line, "="); ok && isName(strings.TrimSpace(name)) {
			continue
		}
		n := 5
		if line[0] == '@' {
			n = 1
		}
		rest := line
		for k := 0; k < n && rest != ""; k++ {
			rest = strings.TrimLeft(rest, " \t")
			j := strings.IndexAny(rest, " \t")
			if j < 0 {
				rest = ""
				break
			}
			rest = rest[j:]
		}
		// system crontabs (/etc/crontab, cron.d) put a user before the command
		if s := strings.TrimSpace(rest); s != "" {
			out = append(out, strings.ReplaceAll(s, "%", "\n"))
		}
	}
	return out
}

// texWrites reads \write18{CMD} (and \immediate\write18) from TeX source.
func texWrites(code string) []string {
	var out []string
	for i := strings.Index(code, `\write18{`); i >= 0 && len(out) < maxCodeRuns; {
		body := code[i+len(`\write18{`):]
		depth, k := 1, 0
		for ; k < len(body) && depth > 0; k++ {
			switch body[k] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth == 0 {
			out = append(out, body[:k-1])
		}
		next := strings.Index(body, `\write18{`)
		if next < 0 {
			break
		}
		i += len(`\write18{`) + next
	}
	return out
}

// sedScript reads what a sed script runs and touches: the e command
// (e CMD), the e flag of s (the pattern space after substitution runs),
// w/W FILE and the w flag write, r/R FILE read.
type sedFacts struct {
	runs, reads, writes []string
	execInput           bool // a bare e runs the pattern space: the input lines are commands
}

func sedScript(script string) sedFacts {
	var f sedFacts
	cmds := splitSed(script)
	for _, c := range cmds {
		if len(f.runs)+len(f.reads)+len(f.writes) >= maxCodeRuns {
			break
		}
		s := strings.TrimLeft(c, " \t")
		s = skipSedAddress(s)
		s = strings.TrimLeft(s, " \t!")
		if s == "" {
			continue
		}
		switch s[0] {
		case 'e':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.runs = append(f.runs, arg)
			} else {
				f.execInput = true
			}
		case 'w', 'W':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.writes = append(f.writes, arg)
			}
		case 'r', 'R':
			if arg := strings.TrimSpace(s[1:]); arg != "" {
				f.reads = append(f.reads, arg)
			}
		case 's', 'y':
			if len(s) < 2 || s[0] == 'y' {
				continue
			}
			d := s[1]
			if d == '\\' || d == '\n' {
				continue
			}
			parts, end := sedParts(s[2:], d, 2)
			if len(parts) < 2 {
				continue
			}
			flags := s[2+end:]
			if k := strings.IndexByte(flags, 'w'); k >= 0 {
				if arg := strings.TrimSpace(flags[k+1:]); arg != "" {
					f.writes = append(f.writes, arg)
				}
				flags = flags[:k]
			}
			if strings.IndexByte(flags, 'e') >= 0 {
				f.runs = append(f.runs, parts[1])
			}
		}
	}
	return f
}

// splitSed splits a script into commands at newlines and at ; outside
// s/// and y/// bodies; w, r, e, a, i, c take the rest of the line.
func splitSed(script string) []string {
	var out []string
	start := 0
	for i := 0; i < len(script) && len(out) < 256; i++ {
		switch script[i] {
		case '\n', ';':
			if script[i] == ';' {
				head := strings.TrimLeft(skipSedAddress(strings.TrimLeft(script[start:i], " \t")), " \t!")
				if head != "" && strings.IndexByte("wWrReaic", head[0]) >= 0 {
					continue // the rest of the line is the argument
				}
			}
			out = append(out, script[start:i])
			start = i + 1
		case 's', 'y':
			head := strings.TrimLeft(skipSedAddress(strings.TrimLeft(script[start:i], " \t")), " \t!")
			if head != "" || i+1 >= len(script) {
				continue
			}
			d := script[i+1]
			if d == '\n' || d == '\\' {
				continue
			}
			_, end := sedParts(script[i+2:], d, 2)
			i += 1 + end
		}
	}
	out = append(out, script[start:])
	return out
}

// sedParts reads n delimiter-ended parts from s, honouring backslash
// escapes, and returns them and the offset after the last delimiter.
func sedParts(s string, d byte, n int) ([]string, int) {
	var parts []string
	var b strings.Builder
	i := 0
	for ; i < len(s) && len(parts) < n; i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if s[i+1] != d {
				b.WriteByte(c)
			}
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if c == d {
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return parts, i
}

// skipSedAddress skips a line address: numbers, $, /regex/, \cregexc, ranges.
func skipSedAddress(s string) string {
	for guard := 0; guard < 4 && s != ""; guard++ {
		switch c := s[0]; {
		case c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
			i := 0
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+') {
				i++
			}
			s = s[i:]
		case c == '/':
			_, end := sedParts(s[1:], '/', 1)
			s = s[1+end:]
			s = strings.TrimLeft(s, "IM")
		case c == '\\' && len(s) > 1:
			_, end := sedParts(s[2:], s[1], 1)
			s = s[2+end:]
		default:
			return s
		}
		if s != "" && s[0] == ',' {
			s = s[1:]
			continue
		}
		return s
	}
	return s
}
