package shell

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// argVal is one expanded word.
type argVal struct {
	s    string
	dyn  bool // holds text that could not be expanded statically ($VAR, $(…))
	dl   bool // holds the output of a download (a substitution or a tainted variable)
	proc bool // holds a process substitution <(…) / >(…)
}

const (
	maxWord         = 1 << 20  // bytes of one expanded word; the rest is dropped (and the word marked dyn)
	maxVar          = 64 << 10 // longer variable values are forgotten
	fieldSep        = '\x00'   // marks a field boundary inside a word being built
	substHolder     = "$(…)"
	arithHolder     = "$((…))"
	maxBraceResults = 64
)

// wordBuilder accumulates one word's expansion.
type wordBuilder struct {
	w      *walker
	sc     *scope
	buf    []byte
	a      argVal
	split  bool // buf holds fieldSep bytes
	quoted bool // a quoted part was seen: an empty result is still a field
	drop   bool // "$@" with no parameters: an otherwise empty word vanishes
	fields bool // field splitting applies (command arguments)
	assign bool // assignment value: tilde after = and :
	hdoc   bool // here-document body: backslash escapes only $ ` \ newline
	quiet  bool // do not walk substitutions (second brace-expansion result)
}

// room trims s to what still fits in the word.
func (b *wordBuilder) room(s string) string {
	if len(b.buf)+len(s) > maxWord {
		b.a.dyn = true
		return s[:max(0, maxWord-len(b.buf))]
	}
	return s
}

func (b *wordBuilder) str(s string) {
	s = b.room(s)
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	b.buf = append(b.buf, s...)
}

// expanded writes the unquoted result of an expansion: whitespace splits
// fields when field splitting applies.
func (b *wordBuilder) expanded(s string, quoted bool) {
	if quoted || !b.fields {
		b.str(s)
		return
	}
	s = b.room(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n':
			b.buf = append(b.buf, fieldSep)
			b.split = true
		case 0:
		default:
			b.buf = append(b.buf, c)
		}
	}
}

// simpleLit reports a literal that expands to itself.
func simpleLit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '{', '~', 0:
			return false
		}
	}
	return true
}

// evalWord appends the fields a command argument expands to.
func (w *walker) evalWord(word *syntax.Word, sc *scope, dst []argVal) []argVal {
	if word == nil || len(word.Parts) == 0 {
		return dst
	}
	if len(word.Parts) == 1 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && simpleLit(lit.Value) {
			if lit.Value == "" {
				return dst
			}
			return append(dst, argVal{s: lit.Value})
		}
	}
	if hasBraceLit(word) {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), word.Parts...)}
		if syntax.SplitBraces(cp) {
			var words []*syntax.Word
			ok := true
			for bw, err := range expand.BracesSeq(nil, cp) {
				if err != nil || len(words) >= maxBraceResults {
					ok = false
					break
				}
				words = append(words, bw)
			}
			if ok && len(words) > 0 {
				for i, bw := range words {
					b := wordBuilder{w: w, sc: sc, fields: true, quiet: i > 0}
					b.parts(bw.Parts, false)
					dst = b.finish(dst)
				}
				return dst
			}
		}
	}
	b := wordBuilder{w: w, sc: sc, fields: true}
	b.parts(word.Parts, false)
	return b.finish(dst)
}

func hasBraceLit(word *syntax.Word) bool {
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.IndexByte(lit.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// evalJoined expands a word that is never split (redirection targets, here
// strings, case subjects).
func (w *walker) evalJoined(word *syntax.Word, sc *scope) argVal {
	if word == nil {
		return argVal{}
	}
	if len(word.Parts) == 1 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && simpleLit(lit.Value) {
			return argVal{s: lit.Value}
		}
	}
	b := wordBuilder{w: w, sc: sc}
	b.parts(word.Parts, false)
	b.a.s = string(b.buf)
	return b.a
}

// evalAssign expands the value of NAME=value.
func (w *walker) evalAssign(a *syntax.Assign, sc *scope) argVal {
	var v argVal
	switch {
	case a.Array != nil:
		var parts []string
		for _, el := range a.Array.Elems {
			if el.Value != nil {
				e := w.evalJoined(el.Value, sc)
				parts = append(parts, e.s)
				v.dyn = v.dyn || e.dyn
				v.dl = v.dl || e.dl
			}
		}
		v.s = strings.Join(parts, " ")
	case a.Value != nil:
		b := wordBuilder{w: w, sc: sc, assign: true}
		b.parts(a.Value.Parts, false)
		b.a.s = string(b.buf)
		v = b.a
	}
	if a.Index != nil {
		w.walkNested(a.Index, sc)
		v.dyn = true
	}
	if a.Append && a.Name != nil {
		if old, ok := sc.vars[a.Name.Value]; ok {
			v.s = old + v.s
		} else {
			v.dyn = true
		}
	}
	return v
}

// evalHeredoc expands a here-document body.
func (w *walker) evalHeredoc(r *syntax.Redirect, sc *scope) argVal {
	quotedDelim := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch p := p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				quotedDelim = true
			case *syntax.Lit:
				if strings.IndexByte(p.Value, '\\') >= 0 {
					quotedDelim = true
				}
			}
		}
	}
	if quotedDelim {
		var sb strings.Builder
		for _, p := range r.Hdoc.Parts {
			if lit, ok := p.(*syntax.Lit); ok {
				sb.WriteString(lit.Value)
			}
		}
		return argVal{s: sb.String()}
	}
	b := wordBuilder{w: w, sc: sc, hdoc: true}
	b.parts(r.Hdoc.Parts, true)
	b.a.s = string(b.buf)
	return b.a
}

func (b *wordBuilder) finish(dst []argVal) []argVal {
	if !b.split {
		if len(b.buf) == 0 && (!b.quoted || b.drop) {
			return dst
		}
		a := b.a
		a.s = string(b.buf)
		return append(dst, a)
	}
	s := string(b.buf)
	for len(s) > 0 {
		i := strings.IndexByte(s, fieldSep)
		f := s
		if i >= 0 {
			f, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if f == "" {
			continue
		}
		a := b.a
		a.s = f
		dst = append(dst, a)
	}
	return dst
}

func (b *wordBuilder) parts(parts []syntax.WordPart, quoted bool) {
	for i, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			switch {
			case b.hdoc:
				b.quotedLit(p.Value, "$`\\")
			case quoted:
				b.quotedLit(p.Value, "$`\"\\")
			default:
				b.unquotedLit(p.Value, i == 0)
			}
		case *syntax.SglQuoted:
			b.quoted = true
			if p.Dollar {
				b.str(decodeANSIC(p.Value))
			} else {
				b.str(p.Value)
			}
		case *syntax.DblQuoted:
			b.quoted = true
			b.parts(p.Parts, true)
		case *syntax.ParamExp:
			b.param(p, quoted)
		case *syntax.CmdSubst:
			b.cmdSubst(p, quoted)
		case *syntax.ArithmExp:
			if !b.quiet {
				b.w.walkNested(p, b.sc)
			}
			b.str(arithHolder)
			b.a.dyn = true
		case *syntax.ProcSubst:
			b.procSubst(p)
		case *syntax.ExtGlob:
			b.str(p.Op.String())
			if p.Pattern != nil {
				b.str(p.Pattern.Value)
			}
			b.str(")")
		default:
			if !b.quiet {
				b.w.walkNested(part, b.sc)
			}
			b.a.dyn = true
		}
	}
}

// unquotedLit writes an unquoted literal: backslashes quote the next
// character, a leading ~ expands.
func (b *wordBuilder) unquotedLit(v string, first bool) {
	i := 0
	if first {
		if strings.HasPrefix(v, "~") {
			i = b.tilde(v, 0)
		} else if !b.assign {
			// bash expands ~ after the = of an assignment-like argument
			// (dd if=~/x, make DEST=~/bin).
			if eq := strings.IndexByte(v, '='); eq > 0 && eq+1 < len(v) && v[eq+1] == '~' && isName(v[:eq]) {
				b.str(v[:eq+1])
				i = b.tilde(v, eq+1)
			}
		}
	}
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\':
			if i+1 < len(v) {
				i++
				if v[i] != '\n' && v[i] != 0 {
					b.buf = append(b.buf, v[i])
				}
			}
		case c == ':' && b.assign && i+1 < len(v) && v[i+1] == '~':
			b.buf = append(b.buf, ':')
			i = b.tilde(v, i+1) - 1
		case c == 0:
		default:
			b.buf = append(b.buf, c)
		}
	}
}

// tilde expands a tilde prefix starting at v[i] == '~' and returns the index
// after it; it returns i when the prefix does not expand.
func (b *wordBuilder) tilde(v string, i int) int {
	end := len(v)
	for j := i + 1; j < len(v); j++ {
		if v[j] == '/' || b.assign && v[j] == ':' {
			end = j
			break
		}
	}
	name := v[i+1 : end]
	switch {
	case strings.IndexByte(name, '\\') >= 0:
		return i
	case name == "" || name == b.w.user && name != "":
		if b.w.home == "" {
			return i
		}
		b.str(b.w.home)
	case name == "+":
		b.str(b.sc.dir)
	default:
		return i
	}
	return end
}

// quotedLit writes a literal in which a backslash escapes only the bytes
// in escapable and a backslash-newline joins lines: $ ` " and \ inside
// double quotes; $ ` and \ in a here-document body, where " is ordinary.
func (b *wordBuilder) quotedLit(v, escapable string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			if v[i+1] == '\n' {
				i++
				continue
			}
			if strings.IndexByte(escapable, v[i+1]) >= 0 {
				i++
				b.buf = append(b.buf, v[i])
				continue
			}
		}
		if c != 0 {
			b.buf = append(b.buf, c)
		}
	}
}

func isSubstHolder(c *syntax.CmdSubst) bool {
	if len(c.Stmts) != 1 {
		return false
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) == 1 && len(call.Assigns) == 0 && call.Args[0].Lit() == "…"
}

func (b *wordBuilder) cmdSubst(c *syntax.CmdSubst, quoted bool) {
	if b.quiet || isSubstHolder(c) {
		b.str(substHolder)
		b.a.dyn = true
		return
	}
	f := b.w.walkSubst(c.Stmts, b.sc, flow{})
	if f.bits&(flowDL|flowDownloader) != 0 {
		b.a.dl = true
	}
	if f.hasText && f.bits&(flowDL|flowNet) == 0 {
		b.expanded(strings.TrimRight(f.text, "\n"), quoted)
		return
	}
	b.str(substHolder)
	b.a.dyn = true
}

func (b *wordBuilder) procSubst(p *syntax.ProcSubst) {
	b.a.proc = true
	b.a.dyn = true
	switch {
	case p.Op == syntax.CmdOut:
		b.str(">(…)")
		if !b.quiet {
			b.w.deferred = append(b.w.deferred, p)
		}
		return
	case p.Op == syntax.CmdInTemp:
		b.str("=(…)")
	default:
		b.str("<(…)")
	}
	if b.quiet {
		return
	}
	f := b.w.walkSubst(p.Stmts, b.sc, flow{})
	if f.bits&(flowDL|flowDownloader) != 0 {
		b.a.dl = true
	}
}

// lookup returns a parameter's value when it is statically known.
func (b *wordBuilder) lookup(name string) (string, bool) {
	sc := b.sc
	if v, ok := sc.vars[name]; ok {
		return v, true
	}
	switch name {
	case "HOME":
		return b.w.home, b.w.home != ""
	case "USER", "LOGNAME":
		return b.w.user, b.w.user != ""
	case "PWD":
		return sc.dir, true
	case "IFS":
		return " \t\n", true
	case "0":
		if sc.inFunc {
			return "", false
		}
		if len(sc.pos) > 0 {
			return sc.pos[0], true
		}
		return "bash", true
	case "#":
		if sc.inFunc {
			return "", false
		}
		return strconv.Itoa(max(len(sc.pos)-1, 0)), true
	}
	if isDigits(name) {
		if sc.inFunc {
			return "", false
		}
		n, err := strconv.Atoi(name)
		if err == nil && n < len(sc.pos) {
			return sc.pos[n], true
		}
		return "", true
	}
	return "", false
}

func (b *wordBuilder) unknown(name string) {
	b.str("$")
	b.str(name)
	b.a.dyn = true
	if b.w.dlVars[name] {
		b.a.dl = true
	}
}

func (b *wordBuilder) param(p *syntax.ParamExp, quoted bool) {
	if p.Param == nil {
		if !b.quiet {
			b.w.walkNested(p, b.sc)
		}
		b.str("$")
		b.a.dyn = true
		return
	}
	name := p.Param.Value
	if p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil || p.Slice != nil || p.Repl != nil ||
		p.Names != 0 || p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset {
		if !b.quiet {
			b.w.walkNested(p, b.sc)
		}
		if p.Length && !p.Excl && p.Index == nil {
			if v, ok := b.lookup(name); ok && name != "@" && name != "*" {
				b.str(strconv.Itoa(utf8.RuneCountInString(v)))
				return
			}
		}
		b.unknown(name)
		return
	}
	if name == "@" || name == "*" {
		b.positionals(name, quoted)
		return
	}
	val, known := b.lookup(name)
	if b.w.dlVars[name] {
		b.a.dl = true
	}
	if p.Exp != nil {
		b.paramExp(p, name, val, known, quoted)
		return
	}
	if !known {
		b.unknown(name)
		return
	}
	b.expanded(val, quoted)
}

func (b *wordBuilder) positionals(name string, quoted bool) {
	sc := b.sc
	if sc.inFunc {
		b.unknown(name)
		return
	}
	var args []string
	if len(sc.pos) > 1 {
		args = sc.pos[1:]
	}
	if len(args) == 0 {
		b.drop = true
		return
	}
	if quoted && name == "*" || !b.fields {
		b.str(strings.Join(args, " "))
		return
	}
	for i, a := range args {
		if i > 0 {
			b.buf = append(b.buf, fieldSep)
			b.split = true
		}
		b.expanded(a, quoted)
	}
}

func (b *wordBuilder) subWord(word *syntax.Word) argVal {
	if word == nil {
		return argVal{}
	}
	sb := wordBuilder{w: b.w, sc: b.sc, quiet: b.quiet, assign: true}
	sb.parts(word.Parts, false)
	sb.a.s = string(sb.buf)
	return sb.a
}

func (b *wordBuilder) paramExp(p *syntax.ParamExp, name, val string, known, quoted bool) {
	e := p.Exp
	switch e.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if known && (val != "" || e.Op == syntax.DefaultUnset || e.Op == syntax.AssignUnset) {
			b.expanded(val, quoted)
			return
		}
		// Unknown variables are most likely unset in the agent's shell:
		// the default is what runs.
		d := b.subWord(e.Word)
		b.a.dl = b.a.dl || d.dl
		b.a.dyn = b.a.dyn || d.dyn || !known
		b.a.proc = b.a.proc || d.proc
		b.expanded(d.s, quoted)
		if !known && !d.dyn && (e.Op == syntax.AssignUnset || e.Op == syntax.AssignUnsetOrNull) && !b.quiet {
			b.sc.setVar(name, d.s)
		}
		return
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if known {
			if val != "" || e.Op == syntax.AlternateUnset {
				d := b.subWord(e.Word)
				b.a.dl = b.a.dl || d.dl
				b.a.dyn = b.a.dyn || d.dyn
				b.expanded(d.s, quoted)
			}
			return
		}
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if known {
			b.expanded(val, quoted)
			return
		}
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if known {
			pat := b.subWord(e.Word)
			if !pat.dyn {
				if r, ok := trimPattern(val, pat.s, e.Op); ok {
					b.expanded(r, quoted)
					return
				}
			}
		}
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		if known {
			switch e.Op {
			case syntax.UpperAll:
				val = strings.ToUpper(val)
			case syntax.LowerAll:
				val = strings.ToLower(val)
			case syntax.UpperFirst:
				if val != "" {
					val = strings.ToUpper(val[:1]) + val[1:]
				}
			case syntax.LowerFirst:
				if val != "" {
					val = strings.ToLower(val[:1]) + val[1:]
				}
			}
			b.expanded(val, quoted)
			return
		}
	}
	if !b.quiet && e.Word != nil {
		b.w.walkNested(e.Word, b.sc)
	}
	b.unknown(name)
}

// trimPattern applies ${v#pat} and friends for literal patterns and the
// common "*x" / "x*" forms.
func trimPattern(v, pat string, op syntax.ParExpOperator) (string, bool) {
	globby := func(s string) bool { return strings.ContainsAny(s, "*?[\\") }
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix:
		if !globby(pat) {
			return strings.TrimPrefix(v, pat), true
		}
		if strings.HasPrefix(pat, "*") && !globby(pat[1:]) && pat != "*" {
			lit := pat[1:]
			var i int
			if op == syntax.RemLargePrefix {
				i = strings.LastIndex(v, lit)
			} else {
				i = strings.Index(v, lit)
			}
			if i < 0 {
				return v, true
			}
			return v[i+len(lit):], true
		}
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if !globby(pat) {
			return strings.TrimSuffix(v, pat), true
		}
		if strings.HasSuffix(pat, "*") && !globby(pat[:len(pat)-1]) && pat != "*" {
			lit := pat[:len(pat)-1]
			var i int
			if op == syntax.RemLargeSuffix {
				i = strings.Index(v, lit)
			} else {
				i = strings.LastIndex(v, lit)
			}
			if i < 0 {
				return v, true
			}
			return v[:i], true
		}
	}
	return "", false
}

// decodeANSIC decodes the body of a $'…' string.
func decodeANSIC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'e', 'E':
			out = append(out, 27)
		case 'f':
			out = append(out, 12)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, 11)
		case '\\', '\'', '"', '?':
			out = append(out, c)
		case 'c':
			if i+1 < len(s) {
				i++
				out = append(out, s[i]&0x1f)
			} else {
				out = append(out, '\\', 'c')
			}
		case 'x', 'u', 'U':
			limit := 2
			if c == 'u' {
				limit = 4
			} else if c == 'U' {
				limit = 8
			}
			n, j := 0, 0
			for ; j < limit && i+1+j < len(s) && hexVal(s[i+1+j]) >= 0; j++ {
				n = n*16 + hexVal(s[i+1+j])
			}
			if j == 0 {
				out = append(out, '\\', c)
				continue
			}
			i += j
			if c == 'x' {
				out = append(out, byte(n))
			} else {
				if n > utf8.MaxRune {
					n = utf8.RuneError
				}
				out = utf8.AppendRune(out, rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, 0
			for ; j < 3 && i+j < len(s) && s[i+j] >= '0' && s[i+j] <= '7'; j++ {
				n = n*8 + int(s[i+j]-'0')
			}
			i += j - 1
			out = append(out, byte(n))
		default:
			out = append(out, '\\', c)
		}
	}
	// bash stops at a NUL byte
	if i := strings.IndexByte(string(out), 0); i >= 0 {
		out = out[:i]
	}
	return string(out)
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// resolve makes s absolute against dir. Text that is not a path gives false.
func (w *walker) resolve(s, dir string) (string, bool) {
	if s == "" {
		return "", false
	}
	if len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
		return s, true // a Windows drive path
	}
	if s[0] == '/' {
		return path.Clean(s), true
	}
	return path.Join(dir, s), true
}
