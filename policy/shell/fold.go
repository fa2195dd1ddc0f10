package shell

// Literal folding of interpreter code: the paths a program builds at run
// time from a home reference and literal segments (Path.home() / '.ssh',
// os.homedir() + '/.npmrc', File.join(Dir.home, ".docker"), $ENV{HOME}."/x",
// Join-Path $HOME ".aws"), and the files its reading calls name with a
// literal (open('.env'), File.read(".env")). Nothing runs: the code is
// tokenised and the few expression forms that join strings are evaluated.

import (
	"regexp"
	"strings"
	"sync"
)

// codePath is one path folded out of interpreter code.
type codePath struct {
	Path string // absolute when home-rooted, else as written (relative to the command's directory)
	Glob bool   // holds a wildcard (an unknown name joined on, a glob call)
	Tree bool   // the program walks it (os.walk, rglob, readdir …)
	Del  bool   // a recursive deleter is handed it (the home itself: shutil.rmtree(Path.home()))
}

// treeDeleters delete the tree their first argument names, across the
// languages' standard libraries (lower case, up to the open parenthesis).
var treeDeleters = []string{"rmtree(", "remove_tree(", "rm_rf(", "rm_r(", "remove_entry_secure(", "rmsync(", "rmdirsync(",
	"rimraf(", "rimraf.sync(", "removesync(", "emptydirsync(", "remove_dir_all(", "os.removeall(", "deno.remove(",
	"fs.rm(", "promises.rm(", "directory.delete(", "deletedirectory(", "unlink_r(", "file.delete_directory("}

// deletesHome says whether marked (code with home references rewritten to
// homeMark) hands the bare home to a recursive deleter.
func deletesHome(marked, lc string) bool {
	if !containsAnyStr(lc, treeDeleters) {
		return false
	}
	low := strings.ToLower(marked)
	for _, d := range treeDeleters {
		for off := 0; ; {
			j := strings.Index(low[off:], d)
			if j < 0 {
				break
			}
			rest := strings.TrimLeft(low[off+j+len(d):], " \t\n")
			off += j + len(d)
			if !strings.HasPrefix(rest, homeMark) {
				continue
			}
			rest = strings.TrimLeft(rest[len(homeMark):], " \t\n")
			rest = strings.TrimPrefix(rest, ".unwrap()")
			rest = strings.TrimPrefix(rest, ".to_s")
			if rest == "" || rest[0] == ')' || rest[0] == ',' {
				return true
			}
		}
	}
	return false
}

const homeMark = "\x01" // a home reference, after rewriting

// homeRefs are the spellings of "the user's home" across interpreters.
var homeRefs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:pathlib\.)?Path\.home\(\)` +
		`|(?:require\(\s*['"](?:node:)?os['"]\s*\)|\bos)\.homedir\(\)` +
		`|\bos\.UserHomeDir\(\)` +
		`|\b(?:os\.)?getenv\(\s*['"](?:HOME|USERPROFILE)['"]\s*\)` +
		`|\bos\.environ(?:\.get\(\s*['"]HOME['"][^)]*\)|\[\s*['"]HOME['"]\s*\])` +
		`|\bprocess\.env(?:\.HOME|\.USERPROFILE|\[\s*['"](?:HOME|USERPROFILE)['"]\s*\])` +
		`|\bDeno\.env\.get\(\s*['"]HOME['"]\s*\)|\bBun\.env\.HOME` +
		`|\$ENV\{\s*['"]?HOME['"]?\s*\}|\bENV\[\s*['"]HOME['"]\s*\]|\bENV\.fetch\(\s*['"]HOME['"]\s*\)` +
		`|\bDir\.home\b|\$_SERVER\[\s*['"]HOME['"]\s*\]|File::HomeDir->my_home` +
		`|\$env:(?:USERPROFILE|HOME)\b|\$\{HOME\}|\$HOME\b` +
		`|#\{\s*Dir\.home\s*\}|\$\{\s*(?:require\(['"](?:node:)?os['"]\)|os)\.homedir\(\)\s*\}` +
		`|os\.path\.expanduser\(\s*['"]~['"]\s*\)` +
		// a "~" the language itself expands: perl's glob, ruby's
		// expand_path, pathlib's expanduser, R's path.expand; the JVM's and
		// .NET's name for the home; Rust's dirs/home crates
		`|\b(?:bsd_)?glob\(\s*['"]~['"]\s*\)|File\.expand_path\(\s*['"]~['"]\s*\)` +
		`|Path\(\s*['"]~['"]\s*\)\.expanduser\(\)|\bpath\.expand\(\s*['"]~['"]\s*\)` +
		`|System\.getProperty\(\s*['"]user\.home['"]\s*\)|Environment\.SpecialFolder\.UserProfile\)?` +
		`|\b(?:dirs|home)::home_dir\(\)(?:\.unwrap\(\))?`)
})

// walkers make the program read a whole tree.
var walkers = []string{"os.walk(", ".rglob(", "readdirsync(", "readdir(", "os.listdir(", "os.scandir(", "walkdir(", "filepath.walk", "dir.glob(", "find.find(", "-recurse", "get-childitem", ".iterdir(", "launchpersistentcontext(", "userdatadir"}

// globbers expand their argument as a pattern.
var globbers = []string{"glob.glob(", "glob(", "glob.sync(", "dir.glob(", "dir[", ".glob("}

// literalReaders name a file their first string argument reads.
var literalReaders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\bopen|\bio\.open|readFileSync|readFile|read_text|read_bytes|File\.read|File\.open|IO\.read|file_get_contents|fopen|readfile|Get-Content|gc|cat|slurp|sqlite3\.connect|load_dotenv|dotenv_values)\s*\(?\s*$`)
})

// maxFold bounds the code one call folds and the paths it reports.
const (
	maxFoldCode  = 64 << 10
	maxFoldPaths = 32
)

type tokKind uint8

const (
	tkStr tokKind = iota
	tkIdent
	tkPunct
)

type tok struct {
	kind tokKind
	s    string
}

// FoldCodePaths returns the paths code builds from home references and
// literal segments, with home standing for the home references.
func FoldCodePaths(code, home string) []codePath {
	if len(code) > maxFoldCode {
		code = code[:maxFoldCode]
	}
	lc := strings.ToLower(code)
	tree := containsAnyStr(lc, walkers)
	glob := containsAnyStr(lc, globbers)
	marked := homeRefs().ReplaceAllString(code, homeMark)
	hasHome := marked != code || strings.Contains(code, "~/") || strings.Contains(code, "'~'") || strings.Contains(code, `"~"`)
	toks := tokenize(marked)
	f := folder{toks: toks, vars: map[string]string{}}
	var out []codePath
	add := func(v string, g bool, tr bool) {
		if len(out) >= maxFoldPaths || v == "" {
			return
		}
		v = strings.ReplaceAll(v, "\\", "/")
		if strings.HasPrefix(v, homeMark) {
			v = home + "/" + strings.TrimLeft(v[len(homeMark):], "/")
		} else if v == "~" || strings.HasPrefix(v, "~/") {
			v = home + v[1:]
		} else if !strings.HasPrefix(v, "/") {
			return
		}
		v = strings.TrimRight(v, "/")
		if v == "" {
			v = "/"
		}
		for _, o := range out {
			if o.Path == v {
				return
			}
		}
		out = append(out, codePath{Path: v, Glob: g || strings.ContainsAny(v, "*?["), Tree: tr})
	}
	if hasHome {
		for i := 0; i < len(toks) && len(out) < maxFoldPaths; i++ {
			// assignments: NAME [, NAME]* (= | :=) EXPR
			if name, at, ok := f.assignment(i); ok {
				v, g, end := f.expr(at)
				if end > at && rooted(v) {
					f.vars[name] = v
					f.globs = f.globs || g
					add(v, g, tree)
				}
				i = end - 1
				continue
			}
			v, g, end := f.expr(i)
			if end > i && rooted(v) && v != homeMark && v != "~" {
				add(v, g || glob && strings.ContainsAny(v, "*?"), tree)
				i = end - 1
			} else if end > i && rooted(v) && tree {
				add(v, false, true)
				i = end - 1
			}
		}
	}
	// a home reference followed by a bare path (PowerShell's
	// Get-Content $env:USERPROFILE\.ssh\id_rsa, perl's backticks)
	for k := strings.Index(marked, homeMark); k >= 0 && len(out) < maxFoldPaths; {
		rest := marked[k+len(homeMark):]
		if rest != "" && (rest[0] == '/' || rest[0] == '\\') {
			end := strings.IndexAny(rest, " \t\n;|&<>()'\"`,")
			if end < 0 {
				end = len(rest)
			}
			if end > 1 {
				add(homeMark+rest[:end], glob, tree)
			}
		}
		next := strings.Index(rest, homeMark)
		if next < 0 {
			break
		}
		k += len(homeMark) + next
	}
	// a home reference inside a command string: `cat $ENV{HOME}/.x`,
	// system("cat #{Dir.home}/.x")
	for _, t := range toks {
		if t.kind != tkStr {
			continue
		}
		for k := strings.Index(t.s, homeMark); k > 0 && len(out) < maxFoldPaths; {
			rest := t.s[k:]
			if end := strings.IndexAny(rest, " \t\n;|&<>()'\""); end >= 0 {
				rest = rest[:end]
			}
			add(rest, glob, tree)
			next := strings.Index(t.s[k+1:], homeMark)
			if next < 0 {
				break
			}
			k += 1 + next
		}
	}
	// literal files a reading call names: open('.env'), File.read(".env")
	for i := 1; i < len(toks) && len(out) < maxFoldPaths; i++ {
		if toks[i].kind != tkStr || toks[i].s == "" || strings.ContainsAny(toks[i].s, "\n\x01") {
			continue
		}
		j := i - 1
		if toks[j].kind == tkPunct && toks[j].s == "(" && j > 0 {
			j--
		}
		if toks[j].kind == tkIdent && literalReaders().MatchString(toks[j].s) {
			s := toks[i].s
			if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
				add(s, false, false)
			} else if !strings.Contains(s, "://") && len(s) < 256 {
				out = append(out, codePath{Path: s})
			}
		}
	}
	// loaders that read ./.env by default
	if strings.Contains(lc, "dotenv") && (strings.Contains(lc, "load_dotenv(") || strings.Contains(lc, "dotenv_values(") ||
		strings.Contains(lc, "dotenv').config(") || strings.Contains(lc, `dotenv").config(`) || strings.Contains(lc, "dotenv.config(") ||
		strings.Contains(lc, "dotenv/config") || strings.Contains(lc, "dotenv.load")) {
		out = append(out, codePath{Path: ".env"})
	}
	if hasHome && len(out) < maxFoldPaths && deletesHome(marked, lc) {
		out = append(out, codePath{Path: home, Tree: true, Del: true})
	}
	return out
}

func rooted(v string) bool {
	return strings.HasPrefix(v, homeMark) || v == "~" || strings.HasPrefix(v, "~/")
}

func containsAnyStr(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// tokenize splits code into string literals (quotes removed, the simple
// escapes decoded), identifiers (dotted names, $/@ sigils, the home mark)
// and punctuation.
func tokenize(code string) []tok {
	var out []tok
	for i := 0; i < len(code) && len(out) < 1<<14; {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			var b strings.Builder
			for j < len(code) && code[j] != c {
				if code[j] == '\\' && j+1 < len(code) && (code[j+1] == c || code[j+1] == '\\') {
					b.WriteByte(code[j+1])
					j += 2
					continue
				}
				b.WriteByte(code[j])
				j++
			}
			s := b.String()
			// a prefix letter (f'', r'', b'') joined the string already as an identifier
			if n := len(out); n > 0 && out[n-1].kind == tkIdent && len(out[n-1].s) <= 2 && strings.Trim(strings.ToLower(out[n-1].s), "frbu") == "" {
				out = out[:n-1]
				s = foldInterp(s)
			} else if c != '\'' {
				s = foldInterp(s)
			}
			out = append(out, tok{tkStr, s})
			i = j + 1
		case c == homeMark[0]:
			out = append(out, tok{tkIdent, homeMark})
			i++
		case foldIdentByte(c) || c == '$' || c == '@':
			j := i + 1
			for j < len(code) && (foldIdentByte(code[j]) || code[j] == '.' && j+1 < len(code) && foldIdentByte(code[j+1]) || code[j] == '-' && j+1 < len(code) && foldIdentByte(code[j+1]) && code[i] >= 'A' && code[i] <= 'Z') {
				j++
			}
			out = append(out, tok{tkIdent, code[i:j]})
			i = j
		default:
			if c == '.' && i+1 < len(code) && code[i+1] == '.' {
				out = append(out, tok{tkPunct, ".."})
				i += 2
				continue
			}
			if c == ':' && i+1 < len(code) && code[i+1] == '=' {
				out = append(out, tok{tkPunct, ":="})
				i += 2
				continue
			}
			out = append(out, tok{tkPunct, string(c)})
			i++
		}
	}
	return out
}

// foldInterp keeps the home mark of an interpolating string (f-strings,
// "…$ENV{HOME}…", `${os.homedir()}`) and drops other {…} holes' braces.
func foldInterp(s string) string {
	if !strings.Contains(s, homeMark) {
		return s
	}
	s = strings.ReplaceAll(s, "{"+homeMark+"}", homeMark)
	return s
}

func foldIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

type folder struct {
	toks  []tok
	vars  map[string]string
	globs bool
}

// assignment recognises NAME [, NAME]* (= | :=) at i and returns the name
// and the index of the value.
func (f *folder) assignment(i int) (string, int, bool) {
	t := f.toks
	j := i
	if j < len(t) && t[j].kind == tkIdent && (t[j].s == "const" || t[j].s == "let" || t[j].s == "var" || t[j].s == "my" || t[j].s == "local") {
		j++
	}
	if j >= len(t) || t[j].kind != tkIdent || t[j].s == homeMark {
		return "", 0, false
	}
	name := t[j].s
	j++
	for j+1 < len(t) && t[j].kind == tkPunct && t[j].s == "," && t[j+1].kind == tkIdent {
		j += 2
	}
	if j+1 < len(t) && t[j].kind == tkPunct && (t[j].s == "=" && !(t[j+1].kind == tkPunct && t[j+1].s == "=") || t[j].s == ":=") {
		return name, j + 1, true
	}
	return "", 0, false
}

// expr evaluates a string expression at i: terms joined by + . .. or /
// (pathlib). It returns the value, whether it holds a wildcard, and the
// index after it (i when nothing parsed).
func (f *folder) expr(i int) (string, bool, int) {
	v, g, j := f.term(i)
	if j == i {
		return "", false, i
	}
	for j < len(f.toks) {
		t := f.toks[j]
		if t.kind != tkPunct || (t.s != "+" && t.s != "." && t.s != ".." && t.s != "/") {
			break
		}
		w, g2, k := f.term(j + 1)
		if k == j+1 {
			break
		}
		if t.s == "/" {
			v = strings.TrimRight(v, "/") + "/" + strings.TrimLeft(w, "/")
		} else {
			v += w
		}
		g = g || g2
		j = k
	}
	return v, g, j
}

// joiners join their arguments with '/'.
func isJoiner(name string) bool {
	n := strings.ToLower(name)
	if k := strings.LastIndexByte(n, '.'); k >= 0 {
		n = n[k+1:]
	}
	switch n {
	case "join", "resolve", "expanduser", "expand_path", "path", "abspath", "realpath", "normalize", "join-path", "catfile", "absolute_path", "purepath", "posixpath":
		return true
	}
	return false
}

func (f *folder) term(i int) (string, bool, int) {
	t := f.toks
	if i >= len(t) {
		return "", false, i
	}
	var v string
	var g bool
	j := i
	switch {
	case t[i].kind == tkStr:
		v, j = t[i].s, i+1
	case t[i].kind == tkIdent && t[i].s == homeMark:
		v, j = homeMark, i+1
	case t[i].kind == tkIdent && strings.EqualFold(t[i].s, "Join-Path"):
		// PowerShell: Join-Path A B
		a, ga, k := f.term(i + 1)
		if k == i+1 {
			return "", false, i
		}
		b, gb, k2 := f.term(k)
		if k2 == k {
			return a, ga, k
		}
		return strings.TrimRight(a, "/\\") + "/" + strings.TrimLeft(b, "/\\"), ga || gb, k2
	case t[i].kind == tkIdent && i+1 < len(t) && t[i+1].kind == tkPunct && t[i+1].s == "(" && isJoiner(t[i].s):
		args, gs, k, ok := f.args(i + 2)
		if !ok || len(args) == 0 {
			return "", false, i
		}
		v = args[0]
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "/") {
				v = a
				continue
			}
			v = strings.TrimRight(v, "/") + "/" + a
		}
		g, j = gs, k
	case t[i].kind == tkPunct && t[i].s == "(":
		// a parenthesised expression
		w, gw, k := f.expr(i + 1)
		if k == i+1 || k >= len(t) || t[k].kind != tkPunct || t[k].s != ")" {
			return "", false, i
		}
		v, g, j = w, gw, k+1
	case t[i].kind == tkIdent:
		val, ok := f.vars[t[i].s]
		if !ok {
			return "", false, i
		}
		v, g, j = val, f.globs, i+1
	default:
		return "", false, i
	}
	// postfix .expanduser() / .resolve() / .absolute()
	for j+2 < len(t) && t[j].kind == tkPunct && t[j].s == "." && t[j+1].kind == tkIdent && t[j+2].kind == tkPunct && t[j+2].s == "(" {
		name := t[j+1].s
		if name != "expanduser" && name != "resolve" && name != "absolute" {
			break
		}
		k := j + 3
		if k < len(t) && t[k].kind == tkPunct && t[k].s == ")" {
			j = k + 1
			continue
		}
		break
	}
	return v, g, j
}

// args reads a call's arguments up to ')': each an expression; an
// unknown name after a home-rooted first argument is a wildcard segment
// (path.join(d, f) in a loop over readdir).
func (f *folder) args(i int) ([]string, bool, int, bool) {
	var out []string
	g := false
	j := i
	for j < len(f.toks) {
		if f.toks[j].kind == tkPunct && f.toks[j].s == ")" {
			return out, g, j + 1, true
		}
		v, gv, k := f.expr(j)
		if k == j {
			if f.toks[j].kind == tkIdent && len(out) > 0 && rooted(out[0]) {
				v, gv, k = "*", true, j+1
			} else {
				return nil, false, j, false
			}
		}
		out = append(out, v)
		g = g || gv
		j = k
		if j < len(f.toks) && f.toks[j].kind == tkPunct && f.toks[j].s == "," {
			j++
		}
	}
	return nil, false, j, false
}
