package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

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
	if f.bits&flowDecoded != 0 {
		b.a.obf = true
	}
	b.a.sec |= f.bits & flowSecret
	if f.hasText && f.bits&(flowDL|flowNet) == 0 {
		if f.names {
			b.a.glob = true // $(find …), $(ls -d GLOB): the names they select, as patterns
		}
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
	if f.bits&flowDecoded != 0 {
		b.a.obf = true
	}
	if f.hasText && p.Op == syntax.CmdIn && len(b.w.procTexts) < 8 {
		b.w.procTexts = append(b.w.procTexts, f.text)
	}
	b.a.sec |= f.bits & flowSecret
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
	case "HISTFILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "APPDATA", "LOCALAPPDATA", "USERPROFILE",
		"KUBECONFIG", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "GNUPGHOME", "DOCKER_CONFIG", "CLOUDSDK_CONFIG", "NPM_CONFIG_USERCONFIG",
		"GOOGLE_APPLICATION_CREDENTIALS", "NETRC", "PGPASSFILE", "GH_CONFIG_DIR", "AZURE_CONFIG_DIR", "TF_CLI_CONFIG_FILE", "CARGO_HOME", "GRADLE_USER_HOME":
		// variables that name a home file: their default, the place a
		// reader of them opens unless the user moved it
		if b.w.home == "" {
			return "", false
		}
		return b.w.home + homeVarDefaults()[name], true
	case "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STATE":
		// the runner's step files: RUNNER_TEMP/_runner_file_commands/KIND_GUID
		return runnerFileDefaults()[name], true
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
	b.a.obf = b.a.obf || b.w.obfVars[name]
	b.a.sec |= b.w.secretVar(name)
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
		save := b.a.sec
		b.unknown(name)
		switch {
		case p.Length:
			b.a.sec = save // a length is not the secret
		case p.Excl && p.Names == 0 && p.Index == nil:
			b.a.sec |= b.w.secSource("${!"+name+"} (any variable, by indirection)", sourceEnv, nil)
		}
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
	b.a.obf = b.a.obf || b.w.obfVars[name]
	if known {
		b.a.sec |= b.w.secVars[name]
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
		b.a.sec |= d.sec
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
