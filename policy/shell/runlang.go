package shell

import (
	"regexp"
	"strings"
	"sync"
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
		for _, p := range sqlFiles(code) {
			w.argPath(argVal{s: p}, sc, AccessRead, true)
		}
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

// sqlFileRe finds the files SQL opens by name: the file functions of
// SQLite's shell, PostgreSQL, MySQL and DuckDB (readfile, pg_read_file,
// LOAD_FILE, read_text, read_csv …), ATTACH of a database file, COPY …
// FROM a file, and the clients' read commands (.read, .import, \i).
var sqlFileRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\b(?:readfile|pg_read_file|pg_read_binary_file|pg_stat_file|lo_import|load_file|read_text|read_blob|read_csv(?:_auto)?|read_json(?:_auto|_objects)?|read_ndjson|read_parquet|sqlite_scan)\s*\(\s*|\battach\s+(?:database\s+)?|\bcopy\s+[\w."]+(?:\s*\([^)]*\))?\s+from\s+)'([^']*)'|(?m)^\s*(?:\.read|\.import|\\i|\\ir)\s+(\S+)`)
})

// sqlFiles are the file names SQL code opens (sqlFileRe).
func sqlFiles(code string) []string {
	var out []string
	for _, m := range sqlFileRe().FindAllStringSubmatch(code, 16) {
		p := m[1]
		if p == "" {
			p = m[2]
		}
		if p != "" && p != ":memory:" {
			out = append(out, p)
		}
	}
	return out
}
