package shell

import "strings"

// A small PowerShell reader. It never runs anything and never reads the
// file system: PowerShell text is tokenised into statements of commands,
// and each command the reader recognises (pwsh.go) is rewritten as the
// bash command with the same effect — Get-Content as cat, Invoke-WebRequest
// as curl, Invoke-Expression as sh — which the bash walker then judges, so
// a PowerShell call yields the same facts (paths and their access, hosts,
// download-exec and reverse-shell signals, environment dumps, programs)
// as its bash twin and meets the same forbids.

// psTok is one PowerShell token.
type psTok struct {
	kind psKind
	s    string // a word's or string's value (home variables expanded, other variables as ${NAME}); an operator's text
	sub  []psStmt
	blk  bool // a script block { … }: code, not a value
}

type psKind uint8

const (
	psWord   psKind = iota // a bare word, a string, a variable: one argument
	psOp                   // | ; & > >> 2> = , . and newlines
	psSub                  // ( … ), $( … ), @( … ), { … }: its statements in sub; s is its value when known
	psMember               // .Name or ::Name after a value: a method or property
)

// psStmt is a pipeline: commands separated by |.
type psStmt struct {
	cmds [][]psTok
}

// psLimits bound the reader: tokens per call and nesting.
const (
	psMaxToks  = 4096
	psMaxDepth = 16
)

type psLexer struct {
	src  string
	i    int
	home string
	n    int // tokens produced
}

// psParse tokenises src into statements.
func psParse(src, home string) []psStmt {
	lx := &psLexer{src: src, home: home}
	return lx.stmts(0, 0)
}

// stmts reads statements until the closing byte close (0: end of text).
func (lx *psLexer) stmts(close byte, depth int) []psStmt {
	var out []psStmt
	var cur psStmt
	var cmd []psTok
	flushCmd := func() {
		if len(cmd) > 0 {
			cur.cmds = append(cur.cmds, cmd)
			cmd = nil
		}
	}
	flushStmt := func() {
		flushCmd()
		if len(cur.cmds) > 0 {
			out = append(out, cur)
			cur = psStmt{}
		}
	}
	for lx.i < len(lx.src) && lx.n < psMaxToks {
		ch := lx.src[lx.i]
		switch {
		case ch == close && close != 0:
			lx.i++
			flushStmt()
			return out
		case ch == ' ' || ch == '\t' || ch == '\r':
			lx.i++
		case ch == '`' && lx.i+1 < len(lx.src) && (lx.src[lx.i+1] == '\n' || lx.src[lx.i+1] == '\r'):
			lx.i += 2 // line continuation
		case ch == '#':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.i++
			}
		case ch == '<' && strings.HasPrefix(lx.src[lx.i:], "<#"):
			if j := strings.Index(lx.src[lx.i:], "#>"); j >= 0 {
				lx.i += j + 2
			} else {
				lx.i = len(lx.src)
			}
		case ch == '\n' || ch == ';':
			lx.i++
			flushStmt()
		case ch == '|' && strings.HasPrefix(lx.src[lx.i:], "||"), ch == '&' && strings.HasPrefix(lx.src[lx.i:], "&&"):
			lx.i += 2
			flushStmt()
		case ch == '|':
			lx.i++
			flushCmd()
		case ch == ')' || ch == '}' || ch == ']':
			lx.i++ // unbalanced: ignored
		default:
			t, ok := lx.token(depth)
			if !ok {
				lx.i++
				continue
			}
			lx.n++
			cmd = append(cmd, t)
		}
	}
	flushStmt()
	return out
}

// token reads one token at lx.i.
func (lx *psLexer) token(depth int) (psTok, bool) {
	src := lx.src
	ch := src[lx.i]
	switch {
	case ch == '(' || ch == '{' || (ch == '$' || ch == '@') && lx.i+1 < len(src) && src[lx.i+1] == '(':
		if ch != '(' && ch != '{' {
			lx.i++
		}
		open := src[lx.i]
		closeB := byte(')')
		if open == '{' {
			closeB = '}'
		}
		lx.i++
		if depth >= psMaxDepth {
			lx.skipTo(closeB)
			return psTok{kind: psSub, blk: open == '{'}, true
		}
		return psTok{kind: psSub, sub: lx.stmts(closeB, depth+1), blk: open == '{'}, true
	case ch == '@' && lx.i+1 < len(src) && src[lx.i+1] == '{':
		lx.i += 2
		if depth >= psMaxDepth {
			lx.skipTo('}')
			return psTok{kind: psSub}, true
		}
		return psTok{kind: psSub, sub: lx.stmts('}', depth+1)}, true
	case ch == '\'':
		return psTok{kind: psWord, s: lx.concat(lx.single(), depth)}, true
	case ch == '"':
		return psTok{kind: psWord, s: lx.concat(lx.double(depth), depth)}, true
	case ch == '>' || ch == '2' && strings.HasPrefix(src[lx.i:], "2>") || ch == '*' && strings.HasPrefix(src[lx.i:], "*>"):
		j := lx.i
		for j < len(src) && (src[j] == '>' || src[j] == '2' || src[j] == '*' || src[j] == '&' || src[j] == '1') && j-lx.i < 4 {
			j++
		}
		op := src[lx.i:j]
		lx.i = j
		return psTok{kind: psOp, s: op}, true
	case ch == '&' || ch == ',' || ch == '=':
		lx.i++
		return psTok{kind: psOp, s: string(ch)}, true
	case ch == '.' && (lx.i+1 >= len(src) || src[lx.i+1] == ' ' || src[lx.i+1] == '\t'):
		lx.i++
		return psTok{kind: psOp, s: "."}, true
	case ch == '.' && lx.i > 0 && lx.i+1 < len(src) && isPSIdent(src[lx.i+1]) && strings.IndexByte(" \t\r\n;|(", src[lx.i-1]) < 0:
		lx.i++
		return psTok{kind: psMember, s: lx.bare()}, true
	case ch == ':' && strings.HasPrefix(src[lx.i:], "::"):
		lx.i += 2
		return psTok{kind: psMember, s: lx.bare()}, true
	case ch == '[':
		// a type literal: [IO.File], [Environment], [byte[]]
		j, d := lx.i, 0
		for j < len(src) {
			if src[j] == '[' {
				d++
			} else if src[j] == ']' {
				d--
				if d == 0 {
					break
				}
			}
			j++
		}
		if j >= len(src) {
			lx.i = len(src)
			return psTok{}, false
		}
		s := src[lx.i : j+1]
		lx.i = j + 1
		return psTok{kind: psWord, s: s}, true
	}
	w := lx.bare()
	if w == "" {
		return psTok{}, false
	}
	return psTok{kind: psWord, s: w}, true
}

// concat folds a string's concatenation with the strings and variables
// that follow it ('iw'+'r …', "~/.ss" + 'h', '~/.ss' + $rest): the value
// a command name, a path or an Invoke-Expression receives is the whole.
func (lx *psLexer) concat(s string, depth int) string {
	src := lx.src
	for {
		j := lx.i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j >= len(src) || src[j] != '+' {
			return s
		}
		j++
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j >= len(src) || src[j] != '\'' && src[j] != '"' && src[j] != '$' {
			return s
		}
		if src[j] == '$' && (j+1 >= len(src) || !isPSIdent(src[j+1]) && src[j+1] != '{') {
			return s
		}
		lx.i = j
		switch src[j] {
		case '\'':
			s += lx.single()
		case '"':
			s += lx.double(depth)
		default:
			s += lx.variable()
		}
	}
}

func (lx *psLexer) skipTo(b byte) {
	for lx.i < len(lx.src) && lx.src[lx.i] != b {
		lx.i++
	}
	if lx.i < len(lx.src) {
		lx.i++
	}
}

// bare reads an unquoted word (variables expanded) up to a delimiter.
func (lx *psLexer) bare() string {
	var b strings.Builder
	src := lx.src
	for lx.i < len(src) {
		ch := src[lx.i]
		if strings.IndexByte(" \t\r\n;|&(){}'\",=<>", ch) >= 0 && !(ch == '(' && b.Len() == 0) {
			if ch == '"' || ch == '\'' {
				if b.Len() > 0 {
					// a quoted part glued to a word: -Path:"x", C:\"a b"
					if ch == '\'' {
						b.WriteString(lx.single())
					} else {
						b.WriteString(lx.double(psMaxDepth))
					}
					continue
				}
			}
			break
		}
		if ch == '(' {
			break
		}
		if ch == ':' && strings.HasPrefix(src[lx.i:], "::") {
			break
		}
		if ch == '.' && b.Len() > 0 && lx.i+1 < len(src) && src[lx.i+1] != '.' && src[lx.i+1] != '\\' && src[lx.i+1] != '/' && lx.isMethodDot() {
			break
		}
		if ch == '`' && lx.i+1 < len(src) {
			b.WriteByte(src[lx.i+1])
			lx.i += 2
			continue
		}
		if ch == '$' {
			b.WriteString(lx.variable())
			continue
		}
		b.WriteByte(ch)
		lx.i++
	}
	return b.String()
}

// isMethodDot reports a .Name( after a variable: $c.GetStream().
func (lx *psLexer) isMethodDot() bool {
	j := lx.i + 1
	for j < len(lx.src) && (isPSIdent(lx.src[j])) {
		j++
	}
	return j < len(lx.src) && lx.src[j] == '(' && j > lx.i+1
}

func isPSIdent(ch byte) bool {
	return ch == '_' || 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9'
}

func (lx *psLexer) single() string {
	var b strings.Builder
	lx.i++
	for lx.i < len(lx.src) {
		ch := lx.src[lx.i]
		if ch == '\'' {
			if lx.i+1 < len(lx.src) && lx.src[lx.i+1] == '\'' {
				b.WriteByte('\'')
				lx.i += 2
				continue
			}
			lx.i++
			break
		}
		b.WriteByte(ch)
		lx.i++
	}
	return b.String()
}

func (lx *psLexer) double(depth int) string {
	var b strings.Builder
	lx.i++
	for lx.i < len(lx.src) {
		ch := lx.src[lx.i]
		switch {
		case ch == '"':
			if lx.i+1 < len(lx.src) && lx.src[lx.i+1] == '"' {
				b.WriteByte('"')
				lx.i += 2
				continue
			}
			lx.i++
			return b.String()
		case ch == '`' && lx.i+1 < len(lx.src):
			e := lx.src[lx.i+1]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '0':
			default:
				b.WriteByte(e)
			}
			lx.i += 2
		case ch == '$' && lx.i+1 < len(lx.src) && lx.src[lx.i+1] == '(':
			lx.i += 2
			if depth < psMaxDepth {
				sub := lx.stmts(')', depth+1)
				b.WriteString(psValueOf(sub))
			} else {
				lx.skipTo(')')
			}
		case ch == '$':
			b.WriteString(lx.variable())
		default:
			b.WriteByte(ch)
			lx.i++
		}
	}
	return b.String()
}

// variable reads $name, ${name} or $env:NAME at lx.i and returns its
// value: the home for the home variables, ${NAME} for the others.
func (lx *psLexer) variable() string {
	src := lx.src
	lx.i++
	var name string
	if lx.i < len(src) && src[lx.i] == '{' {
		j := strings.IndexByte(src[lx.i:], '}')
		if j < 0 {
			lx.i = len(src)
			return "$"
		}
		name = src[lx.i+1 : lx.i+j]
		lx.i += j + 1
	} else {
		j := lx.i
		for j < len(src) && (isPSIdent(src[j]) || src[j] == ':' && j+1 < len(src) && isPSIdent(src[j+1]) && !strings.HasPrefix(src[j:], "::")) {
			j++
		}
		name = src[lx.i:j]
		lx.i = j
	}
	if name == "" {
		return "$"
	}
	return psVarValue(name, lx.home)
}

// psVarValue is a variable's value as the reader knows it.
func psVarValue(name, home string) string {
	ln := strings.ToLower(name)
	scope, v, ok := strings.Cut(ln, ":")
	if !ok {
		v, scope = ln, ""
	}
	if scope == "env" {
		switch v {
		case "userprofile", "home", "homepath":
			return home
		case "appdata":
			return home + "/AppData/Roaming"
		case "localappdata":
			return home + "/AppData/Local"
		}
		_, orig, _ := strings.Cut(name, ":")
		return "${" + strings.ToUpper(orig) + "}"
	}
	if scope == "" && v == "home" {
		return home
	}
	if scope == "" && (v == "true" || v == "false" || v == "null") {
		return ""
	}
	return "${PS_" + strings.ToUpper(strings.ReplaceAll(v, ":", "_")) + "}"
}
