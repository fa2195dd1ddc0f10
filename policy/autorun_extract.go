package policy

import (
	"bytes"
	"github.com/agentairlock/airlock/policy/shell"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
	"gopkg.in/yaml.v3"
)

// The per-format extractors: from the text written into a file that runs
// by itself, the command lines it would run. None of them runs, opens or
// trusts anything; each is bounded (maxAutorunCmds commands,
// maxAutorunBytes bytes of them) and a text it cannot read yields what a
// line-by-line reading finds, never an error.

const (
	maxAutorunCmds  = 256
	maxAutorunBytes = 256 << 10
	maxAutorunText  = 1 << 20 // longer content is read as its first MiB
)

// autorunCmd is one command the content would run.
type autorunCmd struct {
	cmd   string
	value bool // a setting's value that names a program or a file, not a shell line
}

type cmdList struct {
	out   []autorunCmd
	bytes int
}

func (l *cmdList) add(cmd string, value bool) {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" || len(l.out) >= maxAutorunCmds || l.bytes+len(cmd) > maxAutorunBytes {
		return
	}
	l.bytes += len(cmd)
	l.out = append(l.out, autorunCmd{cmd: cmd, value: value})
}

// addValue adds a setting's value: a single word is a program or a path.
func (l *cmdList) addValue(v string) {
	v = strings.TrimSpace(v)
	l.add(v, v != "" && !strings.ContainsAny(v, " \t"))
}

func (l *cmdList) full() bool { return len(l.out) >= maxAutorunCmds || l.bytes >= maxAutorunBytes }

// extractAutorun returns the commands text would run in a file of entry
// e's format. fragment says text is a piece of the file (an Edit's new
// text), so a structured format falls back to reading it line by line.
func extractAutorun(e *autorunEntry, text string, fragment bool) []autorunCmd {
	if len(text) > maxAutorunText {
		text = text[:maxAutorunText]
	}
	var l cmdList
	keys, settings := splitSettingKeys(e.Keys)
	switch e.Format {
	case "shell":
		l.add(text, false)
	case "pwsh":
		l.add("pwsh -c "+shQuote(text), false)
	case "python", "ruby", "lua", "node", "r", "julia", "groovy":
		interpCode(&l, e.Format, text)
	case "pth":
		for _, line := range lines(text) {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import\t") {
				interpCode(&l, "python", t)
			}
		}
	case "vim":
		vimCommands(&l, text)
	case "elisp":
		elispCommands(&l, text)
	case "lines":
		prefixedLines(&l, text, keys)
	case "json-keys":
		jsonCommands(&l, text, keys)
	case "yaml-keys":
		yamlCommands(&l, text, keys)
	case "toml-keys":
		tomlCommands(&l, text, keys)
	case "ini-keys":
		iniCommands(&l, text, keys)
	case "xml-options":
		xmlOptions(&l, text, keys)
	case "gitconfig":
		gitconfigCommands(&l, text, keys)
	case "env-file":
		envFile(&l, text)
	case "ssh-config":
		sshConfig(&l, text)
	case "authorized-keys":
		authorizedKeys(&l, text)
	case "desktop":
		desktopExec(&l, text)
	case "systemd":
		systemdExec(&l, text)
	case "plist":
		plistProgram(&l, text)
	case "crontab":
		crontabCommands(&l, text, keys)
	case "any-exec":
		anyExec(&l, text)
	case "gitattributes":
		// the drivers it names are git config's: nothing of its own runs
	case "lockfile":
		lockfileSources(&l, text, keys)
	case "makefile":
		makefileCommands(&l, text) // autorun_make.go
	}
	settingCommands(&l, text, settings)
	return l.out
}

// lockfileSources reads a lockfile's pinned download URLs: each one whose
// host is not a public registry is what the next install fetches and runs,
// so it becomes the install command in keys[0] ("npm install") with that
// URL, judged as that install would be; a "{}" in keys[0] is where the URL
// goes ("curl -fsSL {} | sh": a wrapper that downloads a distribution and
// runs it). Java .properties escape the colon (https\://).
func lockfileSources(l *cmdList, text string, keys []string) {
	if len(keys) == 0 {
		return
	}
	text = strings.ReplaceAll(text, `\:`, ":")
	for i := 0; i < len(text) && !l.full(); {
		j := strings.Index(text[i:], "://")
		if j < 0 {
			return
		}
		j += i
		start := j
		for start > 0 && lockSchemeByte(text[start-1]) {
			start--
		}
		end := j + 3
		for end < len(text) && !strings.ContainsRune(" \t\r\n\"'<>,)}]", rune(text[end])) {
			end++
		}
		i = end
		u := text[start:end]
		if (strings.HasPrefix(u, "http") || strings.HasPrefix(u, "git")) && shell.ForeignPackageSource(u) {
			if pre, post, ok := strings.Cut(keys[0], "{}"); ok {
				l.add(pre+shQuote(u)+post, false)
			} else {
				l.add(keys[0]+" "+shQuote(u), false)
			}
		}
	}
}

func lockSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '+'
}

func lines(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// shQuote quotes s as one shell word.
func shQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shQuote(a))
	}
	return b.String()
}

var interpCmd = map[string]string{"python": "python3 -c ", "ruby": "ruby -e ", "lua": "lua -e ", "node": "node -e ", "r": "Rscript -e ", "julia": "julia -e ", "perl": "perl -e ", "groovy": "groovy -e "}

// interpCode hands code to its interpreter as the shell package reads
// `python3 -c CODE`, and adds the shell commands its process calls name.
func interpCode(l *cmdList, lang, code string) {
	if p, ok := interpCmd[lang]; ok {
		l.add(p+shQuote(code), false)
	}
	execLiterals(l, code)
}

// execNames are the calls of scripting languages whose string argument is
// a shell command (or a program and its arguments).
var execNames = []string{
	"system", "systemlist", "exec", "execsync", "execfilesync", "execfile", "execute", "popen", "popen2", "popen3", "spawn", "spawnsync",
	"check_output", "check_call", "getoutput", "getstatusoutput", "run", "call", "shell-command", "async-shell-command",
	"call-process-shell-command", "start-process-shell-command", "shell-command-to-string", "jobstart", "termopen",
	"capture2", "capture2e", "capture3", "pipeline", "shell", "sh", "qx", "io.popen", "os.execute", "start-process", "call-process",
}

// execLiterals finds NAME( "…" ) and `…` in code and adds the literals.
func execLiterals(l *cmdList, code string) {
	for i := 0; i < len(code) && !l.full(); i++ {
		ch := code[i]
		if ch == '`' {
			j := strings.IndexByte(code[i+1:], '`')
			if j < 0 {
				return
			}
			if lit := code[i+1 : i+1+j]; strings.ContainsAny(lit, " |;/") {
				l.add(lit, false)
			}
			i += j + 1
			continue
		}
		if ch != '(' && ch != ' ' {
			continue
		}
		name := identBefore(code, i)
		if name == "" || !isExecName(name) {
			continue
		}
		from := i + 1
		if ch == '(' && strings.HasPrefix(code[i+1:], name) {
			from += len(name) // (shell-command "…"): the literals follow the name
		}
		lits, isArray := literalsAfter(code, from)
		if len(lits) == 0 {
			continue
		}
		switch {
		case name == "start-process":
			if len(lits) > 1 {
				l.add(shJoin(lits[1:]), false)
			}
		case isArray || name == "call-process" || name == "spawn" || name == "execfile" || name == "execfilesync" || len(lits) > 1 && !strings.ContainsAny(lits[0], " |;&"):
			l.add(shJoin(lits), false)
		default:
			l.add(lits[0], false)
		}
	}
}

func isExecName(name string) bool {
	n := strings.ToLower(name)
	if i := strings.LastIndexAny(n, ".:"); i >= 0 && n != "io.popen" && n != "os.execute" {
		n = n[i+1:]
	}
	for _, e := range execNames {
		if n == e {
			return true
		}
	}
	return false
}

// identBefore returns the identifier (letters, digits, _ - . :) that ends
// just before code[i], or, for "(name …" (lisp), the one just after it.
func identBefore(code string, i int) string {
	if code[i] == '(' {
		j := i
		for j > 0 && isIdentByte(code[j-1]) {
			j--
		}
		if j < i {
			return code[j:i]
		}
		// (shell-command "…"): the name follows the paren
		k := i + 1
		for k < len(code) && isIdentByte(code[k]) {
			k++
		}
		if k > i+1 && k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			return code[i+1 : k]
		}
		return ""
	}
	// NAME "…" (ruby's system "…", perl's qx): a space after the name
	j := i
	for j > 0 && isIdentByte(code[j-1]) {
		j--
	}
	if j < i && (j == 0 || code[j-1] != '(') {
		return code[j:i]
	}
	return ""
}

func isIdentByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.' || b == ':'
}

// literalsAfter reads the string literals that follow code[i:] up to the
// closing paren or the end of the line: ("a", 'b', ["c", "d"]).
func literalsAfter(code string, i int) (lits []string, array bool) {
	depth := 0
	for i < len(code) && len(lits) < 64 {
		ch := code[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == ',':
			i++
		case ch == '[' || ch == '{':
			array = true
			depth++
			i++
		case ch == ']' || ch == '}':
			depth--
			i++
		case ch == '(' && strings.HasPrefix(code[i:], "("):
			i++
		case ch == '"' || ch == '\'' || ch == '`':
			s, n := readLiteral(code[i:])
			if n == 0 {
				return lits, array
			}
			lits = append(lits, s)
			i += n
		case ch == ')' || ch == '\n' || ch == ';':
			return lits, array
		case isIdentByte(ch):
			// a name between literals (nil, t, shell=True, *args): skip it
			// unless it starts another call
			j := i
			for j < len(code) && (isIdentByte(code[j]) || code[j] == '=') {
				j++
			}
			if len(lits) == 0 && depth == 0 && j-i > 0 && code[i:j] != "nil" && code[i:j] != "t" {
				return lits, array
			}
			i = j
		default:
			return lits, array
		}
	}
	return lits, array
}

// readLiteral reads a quoted literal at the start of s; n is 0 when it
// does not close.
func readLiteral(s string) (string, int) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && q != '`' {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		if c == q {
			return b.String(), i + 1
		}
		b.WriteByte(c)
	}
	return "", 0
}

// vimCommands: ex commands that run the shell (:!cmd, :r !cmd, :w !cmd,
// with silent and autocmd in front), `set shell=`, and the calls of
// vimscript and Lua that run one (system(), jobstart(), os.execute …).
func vimCommands(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimLeft(line, " \t:")
		for {
			w, rest := firstWord(t)
			switch strings.TrimSuffix(w, "!") {
			case "silent", "sil", "noautocmd", "keepalt", "unsilent":
				t = rest
				continue
			case "autocmd", "au":
				// autocmd [group] EVENTS PATTERN [++once] CMD
				ws := strings.Fields(rest)
				skip := 2
				if len(ws) > 2 && !strings.ContainsAny(ws[0], ",") && isVimEvent(ws[1]) {
					skip = 3
				}
				for skip < len(ws) && strings.HasPrefix(ws[skip], "++") {
					skip++
				}
				t = restAfterFields(rest, skip)
				continue
			case "r", "read", "w", "write":
				if strings.HasPrefix(strings.TrimSpace(rest), "!") {
					t = strings.TrimSpace(rest)
				}
			case "set", "se", "let":
				if v, ok := strings.CutPrefix(strings.TrimSpace(rest), "shell="); ok {
					l.addValue(strings.Fields(v + " ")[0])
				}
			}
			break
		}
		if strings.HasPrefix(t, "!") {
			l.add(strings.TrimPrefix(t, "!"), false)
		}
	}
	execLiterals(l, text)
}

func isVimEvent(w string) bool {
	return len(w) > 0 && w[0] >= 'A' && w[0] <= 'Z'
}

func firstWord(s string) (string, string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

func restAfterFields(s string, n int) string {
	for k := 0; k < n; k++ {
		_, s = firstWord(s)
	}
	return strings.TrimLeft(s, " \t")
}

// elispCommands: (shell-command "…"), (call-process "prog" nil nil nil
// "arg" …), (start-process "name" buf "prog" …) and their kin.
func elispCommands(l *cmdList, text string) {
	execLiterals(l, text)
}

// prefixedLines: lines that start with one of the prefixes are commands
// (gdb's "shell CMD", psql's "\! CMD", tmux's run-shell "CMD", i3's exec).
func prefixedLines(l *cmdList, text string, prefixes []string) {
	for _, line := range lines(text) {
		t := strings.TrimLeft(line, " \t")
		for _, p := range prefixes {
			rest, ok := strings.CutPrefix(t, p)
			if !ok {
				continue
			}
			rest = strings.TrimSpace(rest)
			// options first (run-shell -b, exec --no-startup-id, if-shell -F)
			for strings.HasPrefix(rest, "-") {
				w, r := firstWord(rest)
				rest = strings.TrimSpace(r)
				if w == "-t" || w == "-c" || w == "-d" {
					_, r = firstWord(rest)
					rest = strings.TrimSpace(r)
				}
			}
			if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
				for rest != "" && (rest[0] == '"' || rest[0] == '\'') {
					s, n := readLiteral(rest)
					if n == 0 {
						l.add(rest, false)
						break
					}
					l.add(s, false)
					rest = strings.TrimSpace(rest[n:])
				}
			} else {
				l.add(rest, false)
			}
			break
		}
	}
}

// keyPattern is one key path of a *-keys format.
type keyPattern struct {
	segs []string
	args bool // +args: the sibling "args" array follows the command
	env  bool // =env: an object of NAME: value assignments
	list bool // []: a list of commands, not one argv
}

func parseKeyPatterns(keys []string) []keyPattern {
	ps := make([]keyPattern, 0, len(keys))
	for _, k := range keys {
		var p keyPattern
		if s, ok := strings.CutSuffix(k, "+args"); ok {
			k, p.args = s, true
		}
		if s, ok := strings.CutSuffix(k, "=env"); ok {
			k, p.env = s, true
		}
		if s, ok := strings.CutSuffix(k, "[]"); ok {
			k, p.list = s, true
		}
		p.segs = strings.Split(k, "/")
		ps = append(ps, p)
	}
	return ps
}

func (p *keyPattern) match(path []string) bool {
	if len(path) != len(p.segs) {
		return false
	}
	for i, s := range p.segs {
		if !wildMatch(s, path[i]) {
			return false
		}
	}
	return true
}

// matchLast: a fragment knows only the last key.
func (p *keyPattern) matchLast(key string) bool {
	return wildMatch(p.segs[len(p.segs)-1], key)
}

// treeNode is a parsed JSON, YAML or TOML document, reduced to what the
// key walk needs.
type treeWalker struct {
	l    *cmdList
	ps   []keyPattern
	path []string
}

// visit is called at each object member: key (lower-case) and its value.
func (tw *treeWalker) member(key string, val any, sibling func(string) any) {
	if tw.l.full() || len(tw.path) > 32 {
		return
	}
	tw.path = append(tw.path, strings.ToLower(key))
	defer func() { tw.path = tw.path[:len(tw.path)-1] }()
	for i := range tw.ps {
		p := &tw.ps[i]
		if !p.match(tw.path) {
			continue
		}
		if p.env {
			if m, ok := val.(map[string]any); ok {
				names := make([]string, 0, len(m))
				for k := range m {
					names = append(names, k)
				}
				sort.Strings(names)
				for _, k := range names {
					if s, ok := m[k].(string); ok {
						tw.l.add("export "+k+"="+shQuote(s), false)
					}
				}
			}
			continue
		}
		if items, ok := val.([]any); ok && p.list {
			for _, it := range items {
				if s, ok := it.(string); ok {
					tw.l.add(s, false)
				}
			}
			continue
		}
		cmd, value := commandOf(val)
		if cmd == "" {
			continue
		}
		if p.args && sibling != nil {
			if args := stringsOf(sibling("args")); len(args) > 0 {
				cmd += " " + shJoin(args)
				value = false
			}
		}
		if value {
			tw.l.addValue(cmd)
		} else {
			tw.l.add(cmd, false)
		}
	}
	tw.descend(val)
}

func (tw *treeWalker) descend(val any) {
	switch v := val.(type) {
	case map[string]any:
		// in key order: the same content gives the same facts in the same
		// order (the first is what a decision names)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tw.member(k, v[k], func(s string) any { return v[s] })
		}
	case []any:
		for _, x := range v {
			tw.descend(x)
		}
	case []map[string]any:
		for _, x := range v {
			tw.descend(x)
		}
	}
}

// commandOf is the command a value stands for: a string, or an argv array.
func commandOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []any:
		if argv := stringsOf(x); len(argv) > 0 {
			return shJoin(argv), false
		}
	}
	return "", false
}

func stringsOf(v any) []string {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// jsonCommands walks a JSON (or JSONC) document; a fragment or a text
// that does not parse is read as "key": value pairs.
func jsonCommands(l *cmdList, text string, keys []string) {
	ps := parseKeyPatterns(keys)
	clean := stripJSONComments(text)
	if gjson.Valid(clean) {
		if root, ok := gjson.Parse(clean).Value().(map[string]any); ok {
			tw := treeWalker{l: l, ps: ps}
			tw.descend(root)
			return
		}
	}
	pairsFallback(l, text, ps)
}

// stripJSONComments removes // and /* */ comments and trailing commas
// outside strings (VS Code's JSONC).
func stripJSONComments(s string) string {
	if !strings.Contains(s, "//") && !strings.Contains(s, "/*") && !strings.Contains(s, ",}") && !strings.Contains(s, ",]") {
		return s
	}
	var b strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			i += j + 3
		case c == ',':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pairsFallback reads "key": "value" and "key": ["a", "b"] pairs anywhere
// in the text and keeps those whose key is the last key of a pattern.
func pairsFallback(l *cmdList, text string, ps []keyPattern) {
	for i := 0; i < len(text) && !l.full(); i++ {
		if text[i] != '"' {
			continue
		}
		key, n := readLiteral(text[i:])
		if n == 0 {
			return
		}
		j := i + n
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j >= len(text) || text[j] != ':' {
			i += n - 1
			continue
		}
		j++
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j++
		}
		lk := strings.ToLower(key)
		want := false
		for k := range ps {
			if !ps[k].env && ps[k].matchLast(lk) {
				want = true
				break
			}
		}
		if !want || j >= len(text) {
			i = j - 1
			continue
		}
		switch text[j] {
		case '"':
			v, m := readLiteral(text[j:])
			if m == 0 {
				return
			}
			l.addValue(v)
			i = j + m - 1
		case '[':
			lits, _ := literalsAfter(text, j)
			if len(lits) > 0 {
				l.add(shJoin(lits), false)
			}
			i = j
		default:
			i = j - 1
		}
	}
}

// yamlCommands walks a YAML document; one that does not parse is read
// line by line ("key: value", "- run: |" blocks).
func yamlCommands(l *cmdList, text string, keys []string) {
	ps := parseKeyPatterns(keys)
	text = ghaExpr(text)
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err == nil {
		if m, ok := normYAML(doc, 0).(map[string]any); ok {
			tw := treeWalker{l: l, ps: ps}
			tw.descend(m)
			return
		}
	}
	yamlLinesFallback(l, text, ps)
}

// ghaExpr replaces ${{ … }} expressions (GitHub Actions) with one word,
// so the shell reads the command around them.
func ghaExpr(s string) string {
	for n := 0; n < 1024; n++ {
		i := strings.Index(s, "${{")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return s
		}
		word := "GHA_EXPR"
		switch expr := strings.ToLower(strings.ReplaceAll(s[i:i+j], " ", "")); {
		case strings.Contains(expr, "tojson(secrets)") || strings.Contains(expr, "secrets.*"):
			word = "GHA_ALL_SECRETS"
		case strings.Contains(expr, "secrets"):
			word = "GHA_SECRETS"
		}
		s = s[:i] + word + s[i+j+2:]
	}
	return s
}

// normYAML turns map[any]any and nested values into map[string]any.
func normYAML(v any, depth int) any {
	if depth > 32 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normYAML(e, depth+1)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if ks, ok := k.(string); ok {
				m[ks] = normYAML(e, depth+1)
			}
		}
		return m
	case []any:
		for i := range x {
			x[i] = normYAML(x[i], depth+1)
		}
		return x
	}
	return v
}

func yamlLinesFallback(l *cmdList, text string, ps []keyPattern) {
	ls := lines(text)
	for i := 0; i < len(ls) && !l.full(); i++ {
		t := strings.TrimLeft(ls[i], " \t")
		t = strings.TrimLeft(strings.TrimPrefix(t, "- "), " ")
		key, val, ok := strings.Cut(t, ":")
		if !ok || strings.ContainsAny(key, " \"'") {
			continue
		}
		lk := strings.ToLower(key)
		want := false
		for k := range ps {
			if ps[k].matchLast(lk) {
				want = true
				break
			}
		}
		if !want {
			continue
		}
		val = strings.TrimSpace(val)
		if val == "|" || val == ">" || strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">") {
			ind := indentOf(ls[i])
			var b strings.Builder
			for i+1 < len(ls) && (strings.TrimSpace(ls[i+1]) == "" || indentOf(ls[i+1]) > ind) {
				i++
				b.WriteString(strings.TrimSpace(ls[i]))
				b.WriteByte('\n')
			}
			l.add(b.String(), false)
			continue
		}
		if len(val) > 1 && (val[0] == '"' || val[0] == '\'') {
			if s, n := readLiteral(val); n > 0 {
				val = s
			}
		}
		l.addValue(val)
	}
}

func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t-"))
}

// tomlCommands reads TOML line by line: [table] and [[array]] headers,
// key = "value", key = 'value', key = ["a", "b"] (also over several
// lines), dotted keys. Not a TOML parser (the hook links none): enough
// to find the values at the entry's keys.
func tomlCommands(l *cmdList, text string, keys []string) {
	ps := parseKeyPatterns(keys)
	var table []string
	ls := lines(text)
	for i := 0; i < len(ls) && !l.full(); i++ {
		t := strings.TrimSpace(ls[i])
		if t == "" || t[0] == '#' {
			continue
		}
		if strings.HasPrefix(t, "[") {
			table = tomlKey(strings.Trim(t, "[] "))
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		path := append(append([]string(nil), table...), tomlKey(strings.TrimSpace(key))...)
		val = strings.TrimSpace(val)
		if strings.HasPrefix(val, "[") && !strings.Contains(val, "]") {
			for i+1 < len(ls) && len(val) < maxAutorunBytes {
				i++
				val += " " + strings.TrimSpace(ls[i])
				if strings.Contains(ls[i], "]") {
					break
				}
			}
		}
		for k := range ps {
			if !ps[k].match(path) && !(len(table) == 0 && len(path) == 1 && ps[k].matchLast(path[0]) && ps[k].segs[len(ps[k].segs)-1] != "*") {
				continue
			}
			switch {
			case strings.HasPrefix(val, "["):
				if lits, _ := literalsAfter(val, 0); len(lits) > 0 {
					if ps[k].list {
						for _, s := range lits {
							l.add(s, false)
						}
					} else if len(lits) == 1 {
						l.addValue(lits[0])
					} else {
						l.add(shJoin(lits), false)
					}
				}
			case strings.HasPrefix(val, `"""`) || strings.HasPrefix(val, "'''"):
				q := val[:3]
				body := strings.TrimPrefix(val, q)
				for !strings.Contains(body, q) && i+1 < len(ls) && len(body) < maxAutorunBytes {
					i++
					body += "\n" + ls[i]
				}
				body, _, _ = strings.Cut(body, q)
				l.add(body, false)
			case val != "" && (val[0] == '"' || val[0] == '\''):
				if s, n := readLiteral(val); n > 0 {
					l.addValue(s)
				}
			}
			break
		}
	}
}

// tomlKey splits a dotted TOML key, quotes off, lower-case.
func tomlKey(k string) []string {
	var out []string
	for _, s := range strings.Split(k, ".") {
		out = append(out, strings.ToLower(strings.Trim(strings.TrimSpace(s), "\"'")))
	}
	return out
}

// iniCommands: key = value lines (.npmrc, .yarnrc), sections ignored.
func iniCommands(l *cmdList, text string, keys []string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == ';' || t[0] == '#' || t[0] == '[' {
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			// .yarnrc v1 writes key "value"
			key, val, ok = strings.Cut(t, " ")
			if !ok {
				continue
			}
		}
		lk := strings.ToLower(strings.Trim(strings.TrimSpace(key), "\""))
		for _, k := range keys {
			if wildMatch(k, lk) {
				l.addValue(unquote(strings.TrimSpace(val)))
				break
			}
		}
	}
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		if s, n := readLiteral(v); n == len(v) {
			return s
		}
		return v[1 : len(v)-1]
	}
	return v
}

// xmlOptions: <option name="KEY" value="…"/> (JetBrains run configurations).
func xmlOptions(l *cmdList, text string, keys []string) {
	rest := text
	for !l.full() {
		i := strings.Index(rest, "name=\"")
		if i < 0 {
			return
		}
		rest = rest[i+6:]
		j := strings.IndexByte(rest, '"')
		if j < 0 {
			return
		}
		name := strings.ToLower(rest[:j])
		rest = rest[j+1:]
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			end = len(rest)
		}
		attrs := rest[:end]
		k := strings.Index(attrs, "value=\"")
		if k < 0 {
			continue
		}
		v := attrs[k+7:]
		if m := strings.IndexByte(v, '"'); m >= 0 {
			v = v[:m]
		}
		for _, key := range keys {
			if key == name {
				l.addValue(xmlUnescape(v))
				break
			}
		}
	}
}

func xmlUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", "\"", "&apos;", "'", "&#10;", "\n", "&#13;", "", "&#9;", "\t", "&amp;", "&")
	return r.Replace(s)
}

// gitconfigCommands reads git config syntax: [section "sub"] headers and
// key = value lines. A fragment without a header matches by the key alone.
func gitconfigCommands(l *cmdList, text string, keys []string) {
	var section []string
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '[' {
			end := strings.IndexByte(t, ']')
			if end < 0 {
				continue
			}
			head := t[1:end]
			section = nil
			if name, sub, ok := strings.Cut(head, " "); ok {
				section = []string{strings.ToLower(name), strings.ToLower(unquote(strings.TrimSpace(sub)))}
			} else {
				for _, s := range strings.SplitN(head, ".", 2) {
					section = append(section, strings.ToLower(s))
				}
			}
			t = strings.TrimSpace(t[end+1:])
			if t == "" {
				continue
			}
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		path := append(append([]string(nil), section...), key)
		gitconfigValue(l, keys, path, len(section) == 0, gitValue(strings.TrimSpace(val)))
	}
}

// gitValue removes quotes and a trailing comment from a config value.
func gitValue(v string) string {
	var b strings.Builder
	inQ := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case c == '"':
			inQ = !inQ
		case (c == '#' || c == ';') && !inQ:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitconfigValue adds what the value of one git config key runs. lastOnly
// matches the key name alone (a fragment with no section header).
func gitconfigValue(l *cmdList, keys []string, path []string, lastOnly bool, val string) {
	if val == "" {
		return
	}
	match := false
	for _, k := range parseKeyPatterns(keys) {
		if k.match(path) || lastOnly && len(path) == 1 && k.matchLast(path[0]) && k.segs[len(k.segs)-1] != "*" {
			match = true
			break
		}
	}
	if !match {
		return
	}
	first, last := path[0], path[len(path)-1]
	switch {
	case first == "alias" || lastOnly && false:
		if s, ok := strings.CutPrefix(val, "!"); ok {
			l.add(s, false)
		}
	case last == "helper":
		if s, ok := strings.CutPrefix(val, "!"); ok {
			l.add(s, false)
		} else if strings.HasPrefix(val, "/") || strings.HasPrefix(val, "~") {
			l.addValue(val)
		}
	case last == "fsmonitor" && (strings.EqualFold(val, "true") || strings.EqualFold(val, "false")):
	case last == "hookspath" || last == "path":
		l.add(val, true)
	default:
		l.add(strings.TrimPrefix(val, "!"), false)
	}
}

// envFile: NAME=value lines (environment.d, /etc/environment) and pam's
// NAME DEFAULT=… OVERRIDE=….
func envFile(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
		if t == "" || t[0] == '#' {
			continue
		}
		if name, val, ok := strings.Cut(t, "="); ok && !strings.ContainsAny(name, " \t") {
			l.add("export "+name+"="+shQuote(unquote(val)), false)
			continue
		}
		name, rest := firstWord(t)
		for _, f := range strings.Fields(rest) {
			for _, pre := range []string{"DEFAULT=", "OVERRIDE="} {
				if v, ok := strings.CutPrefix(f, pre); ok {
					l.add("export "+name+"="+shQuote(unquote(v)), false)
				}
			}
		}
	}
}

// sshConfig: ProxyCommand, LocalCommand, KnownHostsCommand, Match exec.
func sshConfig(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		key, rest := firstWord(t)
		if k, v, ok := strings.Cut(key, "="); ok {
			key, rest = k, v+" "+rest
		}
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "="))
		switch strings.ToLower(key) {
		case "proxycommand", "localcommand", "knownhostscommand":
			l.add(rest, false)
		case "match":
			fs := rest
			for fs != "" {
				w, r := firstWord(fs)
				fs = strings.TrimSpace(r)
				if strings.EqualFold(w, "exec") {
					if fs != "" && (fs[0] == '"' || fs[0] == '\'') {
						if s, n := readLiteral(fs); n > 0 {
							l.add(s, false)
							fs = strings.TrimSpace(fs[n:])
							continue
						}
					}
					w2, r2 := firstWord(fs)
					l.add(w2, false)
					fs = strings.TrimSpace(r2)
				}
			}
		}
	}
}

// authorizedKeys: the command="…" option of each key line.
func authorizedKeys(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		for {
			i := strings.Index(strings.ToLower(t), "command=\"")
			if i < 0 {
				break
			}
			s, n := readLiteral(t[i+8:])
			if n == 0 {
				break
			}
			l.add(s, false)
			t = t[i+8+n:]
		}
	}
}

// desktopExec: Exec= and TryExec= without the %f %u field codes.
func desktopExec(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		for _, k := range []string{"Exec=", "TryExec="} {
			if v, ok := strings.CutPrefix(t, k); ok {
				var b strings.Builder
				for i := 0; i < len(v); i++ {
					if v[i] == '%' && i+1 < len(v) {
						i++
						if v[i] == '%' {
							b.WriteByte('%')
						}
						continue
					}
					b.WriteByte(v[i])
				}
				if k == "TryExec=" {
					l.addValue(b.String())
				} else {
					l.add(b.String(), false)
				}
			}
		}
	}
}

// systemdExec: ExecStart= and the other Exec*= lines, their -@:+! prefixes
// off; Environment= assignments.
func systemdExec(l *cmdList, text string) {
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		switch {
		case strings.HasPrefix(key, "Exec"):
			l.add(strings.TrimLeft(strings.TrimSpace(val), "-@:+!|"), false)
		case key == "Environment":
			for _, f := range strings.Fields(val) {
				if n, v, ok := strings.Cut(unquote(f), "="); ok {
					l.add("export "+n+"="+shQuote(v), false)
				}
			}
		}
	}
}

// plistProgram: Program and ProgramArguments of a launchd plist (XML).
func plistProgram(l *cmdList, text string) {
	for _, key := range []string{"<key>ProgramArguments</key>", "<key>Program</key>"} {
		i := strings.Index(text, key)
		if i < 0 {
			continue
		}
		rest := strings.TrimSpace(text[i+len(key):])
		if key == "<key>Program</key>" {
			if v, ok := xmlElement(rest, "string"); ok {
				l.addValue(v)
			}
			continue
		}
		end := strings.Index(rest, "</array>")
		if !strings.HasPrefix(rest, "<array>") || end < 0 {
			continue
		}
		body := rest[len("<array>"):end]
		var argv []string
		for len(argv) < 256 {
			body = strings.TrimSpace(body)
			v, ok := xmlElement(body, "string")
			if !ok {
				break
			}
			argv = append(argv, v)
			body = body[strings.Index(body, "</string>")+len("</string>"):]
		}
		if len(argv) > 0 {
			l.add(shJoin(argv), false)
		}
	}
}

func xmlElement(s, tag string) (string, bool) {
	open, close := "<"+tag+">", "</"+tag+">"
	if !strings.HasPrefix(s, open) {
		return "", false
	}
	end := strings.Index(s, close)
	if end < 0 {
		return "", false
	}
	return xmlUnescape(s[len(open):end]), true
}

// crontabCommands: the command of each line, after the schedule (five
// fields or an @word), the user of a system table (keys: user) or
// anacron's period, delay and id (keys: anacron); NAME=value lines are the
// environment; an unescaped % ends the command.
func crontabCommands(l *cmdList, text string, keys []string) {
	system, anacron := false, false
	for _, k := range keys {
		system = system || k == "user"
		anacron = anacron || k == "anacron"
	}
	for _, line := range lines(text) {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if name, val, ok := strings.Cut(t, "="); ok && isEnvName(strings.TrimSpace(name)) {
			l.add("export "+strings.TrimSpace(name)+"="+shQuote(unquote(strings.TrimSpace(val))), false)
			continue
		}
		skip := 5
		switch {
		case anacron:
			skip = 3
		case strings.HasPrefix(t, "@"):
			skip = 1
		}
		if system {
			skip++
		}
		cmd := restAfterFields(t, skip)
		if i := unescapedPercent(cmd); i >= 0 {
			cmd = cmd[:i]
		}
		l.add(strings.ReplaceAll(cmd, `\%`, "%"), false)
	}
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func unescapedPercent(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '%' {
			return i
		}
	}
	return -1
}

// anyExec: the file is a program; its #! line says in what.
func anyExec(l *cmdList, text string) {
	if bytes.IndexByte([]byte(text[:min(len(text), 4096)]), 0) >= 0 {
		return // a binary: nothing to read
	}
	if strings.HasPrefix(text, "#!") {
		first, _, _ := strings.Cut(text, "\n")
		ws := strings.Fields(first[2:])
		prog := ""
		if len(ws) > 0 {
			prog = ws[0][strings.LastIndexByte(ws[0], '/')+1:]
			if prog == "env" && len(ws) > 1 {
				prog = ws[len(ws)-1]
			}
		}
		switch {
		case strings.HasPrefix(prog, "python"):
			interpCode(l, "python", text)
			return
		case prog == "node" || prog == "deno" || prog == "bun":
			interpCode(l, "node", text)
			return
		case strings.HasPrefix(prog, "ruby"):
			interpCode(l, "ruby", text)
			return
		case strings.HasPrefix(prog, "perl"):
			interpCode(l, "perl", text)
			return
		case prog == "pwsh" || prog == "powershell":
			l.add("pwsh -c "+shQuote(text), false)
			return
		}
	}
	l.add(text, false)
}
