package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (w *walker) walkCommand(cmd syntax.Command, sc *scope, in flow, st *syntax.Stmt) flow {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return w.walkCall(c, sc, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			fx := w.walkStmt(c.X, w.sub(sc), in)
			fy := w.walkStmt(c.Y, w.sub(sc), flow{bits: fx.bits & flowTaint, text: fx.text, hasText: fx.hasText, names: fx.names})
			all := fx.bits | fy.bits
			if all&flowConnector != 0 && all&flowShellSink != 0 {
				w.signal(SignalReverseShell, sc.detail())
			}
			return flow{bits: fy.bits&flowTaint | all&^flowTaint, text: fy.text, hasText: fy.hasText, names: fy.names}
		default:
			fx := w.walkStmt(c.X, sc, in)
			fy := w.walkStmt(c.Y, sc, in)
			out := flow{bits: fx.bits | fy.bits}
			if fx.hasText && fy.hasText && c.Op == syntax.AndStmt && len(fx.text)+len(fy.text) <= maxWord {
				out.text, out.hasText = fx.text+fy.text, true
			}
			return out
		}
	case *syntax.Subshell:
		return w.walkStmts(c.Stmts, w.sub(sc), in)
	case *syntax.Block:
		return w.walkStmts(c.Stmts, sc, in)
	case *syntax.IfClause:
		var out flow
		for cl := c; cl != nil; cl = cl.Else {
			out.bits |= w.walkStmts(cl.Cond, sc, in).bits
			out.bits |= w.walkStmts(cl.Then, sc, in).bits
		}
		return out
	case *syntax.WhileClause:
		f := w.walkStmts(c.Cond, sc, in)
		f.bits |= w.walkStmts(c.Do, sc, in).bits
		return flow{bits: f.bits}
	case *syntax.ForClause:
		return w.walkFor(c, sc, in)
	case *syntax.CaseClause:
		w.evalJoined(c.Word, sc)
		var out flow
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				w.walkNested(p, sc)
			}
			out.bits |= w.walkStmts(it.Stmts, sc, in).bits
		}
		return out
	case *syntax.FuncDecl:
		w.checkForkBomb(c, sc)
		if c.Body != nil {
			fs := w.sub(sc)
			fs.inFunc = true
			w.walkStmt(c.Body, fs, flow{})
			if w.funcs == nil {
				w.funcs = make(map[string]funcDef, 2)
			}
			if c.Name != nil {
				w.funcs[c.Name.Value] = funcDef{body: c.Body, src: sc.src}
			}
			for _, n := range c.Names {
				w.funcs[n.Value] = funcDef{body: c.Body, src: sc.src}
			}
		}
		return flow{}
	case *syntax.DeclClause:
		return w.walkDecl(c, sc)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return w.walkStmt(c.Stmt, sc, in)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			return w.walkStmt(c.Stmt, w.sub(sc), in)
		}
	case *syntax.TestDecl:
		if c.Body != nil {
			return w.walkStmt(c.Body, w.sub(sc), in)
		}
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		w.walkNested(c, sc)
	}
	return flow{}
}

// walkNested walks the command and process substitutions inside a node
// whose other parts carry no facts (arithmetic, [[ ]] tests, patterns).
func (w *walker) walkNested(n syntax.Node, sc *scope) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.walkSubst(n.Stmts, sc, flow{})
			return false
		case *syntax.ProcSubst:
			w.walkSubst(n.Stmts, sc, flow{})
			return false
		}
		return true
	})
}

// walkSubst walks the program of a command or process substitution.
func (w *walker) walkSubst(stmts []*syntax.Stmt, sc *scope, in flow) flow {
	if sc.depth+1 > maxDepth {
		w.res.TooDeep = true
		return flow{}
	}
	s := w.sub(sc)
	s.depth++
	return w.walkStmts(stmts, s, in)
}

func (w *walker) walkFor(c *syntax.ForClause, sc *scope, in flow) flow {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		w.walkNested(c.Loop, sc)
		f := w.walkStmts(c.Do, sc, in)
		return flow{bits: f.bits}
	}
	var items []argVal
	for _, word := range wi.Items {
		items = w.evalWord(word, sc, items)
	}
	name := ""
	if wi.Name != nil {
		name = wi.Name.Value
	}
	literal := len(items) > 0 && len(items) <= 4
	for _, it := range items {
		if it.dyn {
			literal = false
		}
	}
	var out flow
	if !literal || name == "" {
		if name != "" {
			sc.unsetVar(name)
		}
		out.bits |= w.walkStmts(c.Do, sc, in).bits
		return out
	}
	for _, it := range items {
		sc.setVar(name, it.s)
		out.bits |= w.walkStmts(c.Do, sc, in).bits
	}
	return out
}

func (w *walker) walkDecl(c *syntax.DeclClause, sc *scope) flow {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	argv := make([]string, 1, 1+len(c.Args))
	argv[0] = variant
	exported := variant == "export"
	unexport := false
	var dumpFlags, dumpNames []string // what declDump needs (flow.go)
	for _, a := range c.Args {
		if a.Name != nil && a.Naked {
			dumpNames = append(dumpNames, a.Name.Value)
		} else if a.Name != nil || a.Value == nil {
			dumpNames = append(dumpNames, "=")
		}
		if a.Naked && a.Name == nil && a.Value != nil {
			flag := w.evalJoined(a.Value, sc).s
			if strings.HasPrefix(flag, "-") || strings.HasPrefix(flag, "+") {
				dumpFlags = append(dumpFlags, flag)
			} else {
				dumpNames = append(dumpNames, "=")
			}
			if strings.HasPrefix(flag, "-") && strings.ContainsRune(flag, 'x') {
				exported = true
			}
			if variant == "export" && strings.HasPrefix(flag, "-") && strings.ContainsRune(flag, 'n') {
				unexport = true
			}
		}
	}
	for _, a := range c.Args {
		if a.Name == nil {
			if a.Value == nil {
				continue
			}
			v := w.evalJoined(a.Value, sc)
			argv = append(argv, v.s)
			// `export "$X"` or `export 'A=1'`: a runtime word.
			if name, val, ok := strings.Cut(v.s, "="); ok && isName(name) && exported && !unexport {
				w.addEnv(name, val, sc)
				if !v.dyn {
					sc.setVar(name, val)
				}
			}
			continue
		}
		name := a.Name.Value
		if a.Naked {
			argv = append(argv, name)
			if exported && !unexport {
				if v, ok := sc.vars[name]; ok {
					w.addEnv(name, v, sc)
				}
			}
			continue
		}
		val := w.evalAssign(a, sc)
		argv = append(argv, name+"="+val.s)
		if exported && !unexport {
			w.addEnv(name, val.s, sc)
		}
		w.setVarFrom(sc, name, val)
	}
	if !w.full() {
		w.res.Commands = append(w.res.Commands, Command{Argv: argv, Dir: sc.dir})
	}
	return w.declDump(variant, dumpNames, dumpFlags)
}

// setVarFrom records a variable assignment for later expansion.
func (w *walker) setVarFrom(sc *scope, name string, val argVal) {
	w.setSecVar(name, val.sec)
	if val.dl {
		if w.dlVars == nil {
			w.dlVars = make(map[string]bool, 2)
		}
		w.dlVars[name] = true
	} else if w.dlVars[name] {
		delete(w.dlVars, name)
	}
	w.noteObfVar(name, val.obf)
	if val.dyn {
		sc.unsetVar(name)
		return
	}
	sc.setVar(name, val.s)
}

func (w *walker) walkCall(c *syntax.CallExpr, sc *scope, in flow) flow {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			if a.Name == nil {
				continue
			}
			val := w.evalAssign(a, sc)
			// A plain assignment changes the environment when the variable
			// is already exported; report it.
			w.addEnv(a.Name.Value, val.s, sc)
			w.setVarFrom(sc, a.Name.Value, val)
		}
		return flow{}
	}
	for _, a := range c.Assigns {
		if a.Name == nil {
			continue
		}
		val := w.evalAssign(a, sc)
		w.addEnv(a.Name.Value, val.s, sc)
	}
	saveDeferred := len(w.deferred)
	var argv []argVal
	for _, word := range c.Args {
		argv = w.evalWord(word, sc, argv)
	}
	var f flow
	if len(argv) > 0 {
		f = w.classify(argv, sc, in)
	}
	f.bits |= w.flushDeferred(saveDeferred, sc, f.bits|in.bits)
	return f
}

// flushDeferred walks the output process substitutions >(…) collected since
// save; they receive what the command writes.
func (w *walker) flushDeferred(save int, sc *scope, bits flowBits) flowBits {
	if len(w.deferred) <= save {
		return 0
	}
	ps := append([]*syntax.ProcSubst(nil), w.deferred[save:]...)
	w.deferred = w.deferred[:save]
	pin := flow{bits: bits & flowTaint}
	if bits&flowDownloader != 0 {
		pin.bits |= flowDL
	}
	var out flowBits
	for _, p := range ps {
		out |= w.walkSubst(p.Stmts, sc, pin).bits &^ flowTaint
	}
	return out
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
