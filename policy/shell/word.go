package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// argVal is one expanded word.
type argVal struct {
	s    string
	dyn  bool     // holds text that could not be expanded statically ($VAR, $(…))
	dl   bool     // holds the output of a download (a substitution or a tainted variable)
	sec  flowBits // holds secret data: the slots of flow.go
	proc bool     // holds a process substitution <(…) / >(…)
	obf  bool     // holds a decoder's output (base64 -d, xxd -r, rev, tr …): obfuscated.go
	glob bool     // holds an unquoted *, ? or [...]: a pattern the shell expands
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
			return append(dst, argVal{s: lit.Value, glob: hasGlobMeta(lit.Value)})
		}
	}
	if hasBraceLit(word) {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), word.Parts...)}
		if syntax.SplitBraces(cp) {
			if words, ok := braces(cp, maxBraceResults); ok && len(words) > 0 {
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
				v.obf = v.obf || e.obf
				v.sec |= e.sec
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
				b.a.obf = b.a.obf || spelledInEscapes(p.Value) // obfuscated_more.go
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
	if first && cmdPathForm(v) {
		// a cmd.exe path (%USERPROFILE%\.aws\credentials, C:\Users\x):
		// cmd.exe has no backslash escape, so the separators stay
		for ; i < len(v); i++ {
			if globMeta(v, i) {
				b.a.glob = true
			}
			if v[i] != 0 {
				b.buf = append(b.buf, v[i])
			}
		}
		return
	}
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
			if globMeta(v, i) {
				b.a.glob = true
			}
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

// cmdPathForm says whether an unquoted literal is spelled as a cmd.exe path:
// a leading %NAME% or drive letter and a backslash right after it. Bash
// would read those backslashes as escapes of ordinary letters, which no one
// writes on purpose; cmd.exe, where such a word is typed, reads them as
// separators.
func cmdPathForm(v string) bool {
	if len(v) >= 3 && isLetter(v[0]) && v[1] == ':' && v[2] == '\\' {
		return true
	}
	if len(v) < 4 || v[0] != '%' {
		return false
	}
	end := strings.IndexByte(v[1:], '%')
	if end < 1 || 2+end >= len(v) || v[2+end] != '\\' {
		return false
	}
	for _, r := range v[1 : 1+end] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
