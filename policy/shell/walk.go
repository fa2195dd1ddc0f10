package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// nestedProgram parses and walks src as a program run by a new shell
// (sh -c, su -c, watch, a here-document fed to bash …).
func (w *walker) nestedProgram(src string, sc *scope, pos []string) flow {
	if sc.depth+1 > maxDepth {
		w.res.TooDeep = true
		return flow{}
	}
	if strings.TrimSpace(src) == "" || w.full() {
		return flow{}
	}
	return w.runProgram(src, sc.nested(pos))
}

// evalProgram walks src in the current shell (eval): cd and variables carry.
func (w *walker) evalProgram(src string, sc *scope) flow {
	if sc.depth+1 > maxDepth {
		w.res.TooDeep = true
		return flow{}
	}
	if strings.TrimSpace(src) == "" || w.full() {
		return flow{}
	}
	saveSrc, saveStmt, saveText := sc.src, sc.stmt, sc.text
	sc.text = sc.detail()
	sc.stmt = nil
	sc.depth++
	f := w.runProgram(src, sc)
	sc.depth--
	sc.src, sc.stmt, sc.text = saveSrc, saveStmt, saveText
	return f
}

func (w *walker) walkStmts(stmts []*syntax.Stmt, sc *scope, in flow) flow {
	saveStmt := sc.stmt
	var out flow
	allText := true
	var text strings.Builder
	names := false
	for _, st := range stmts {
		if w.full() {
			break
		}
		sc.stmt = st
		f := w.walkStmt(st, sc, in)
		out.bits |= f.bits
		names = names || f.names
		if f.hasText && allText && text.Len()+len(f.text) <= maxWord {
			text.WriteString(f.text)
		} else {
			allText = false
		}
	}
	sc.stmt = saveStmt
	if allText && len(stmts) > 0 {
		out.text, out.hasText, out.names = text.String(), true, names
	}
	return out
}

func (w *walker) walkStmt(st *syntax.Stmt, sc *scope, in flow) flow {
	// Here-documents and here-strings replace stdin; evaluate them first so
	// the command sees their text.
	stdinRedir := false
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.N != nil && r.N.Value != "0" {
				continue
			}
			if r.Hdoc == nil {
				in = flow{hasText: true}
				continue
			}
			a := w.evalHeredoc(r, sc)
			in = flow{text: a.s, hasText: true, bits: a.sec}
			if a.dl {
				in.bits |= flowDL
			}
			if a.obf {
				in.bits |= flowDecoded
			}
			stdinRedir = true
		case syntax.WordHdoc:
			if r.N != nil && r.N.Value != "0" {
				continue
			}
			a := w.evalJoined(r.Word, sc)
			in = flow{text: a.s + "\n", hasText: true, bits: a.sec}
			if a.dl {
				in.bits |= flowDL
			}
			if a.obf {
				in.bits |= flowDecoded
			}
			stdinRedir = true
		case syntax.RdrIn:
			if r.N == nil || r.N.Value == "0" {
				in = flow{}
			}
		}
	}
	var f flow
	names := false
	if st.Cmd != nil {
		w.namesCmd = false
		f = w.walkCommand(st.Cmd, sc, in, st)
		_, call := st.Cmd.(*syntax.CallExpr)
		names = call && w.namesCmd
	}
	if st.Background && f.hasText {
		f = flow{bits: f.bits}
	}
	saveDeferred := len(w.deferred)
	out := false
	for _, r := range st.Redirs {
		if names && r.Op == syntax.RdrIn && (r.N == nil || r.N.Value == "0") {
			// wc -c < FILE: the file is the input of a program that
			// prints only its size (or ignores stdin: ls, stat)
			restore := w.withMode(modeNames)
			out = w.redirect(r, sc, f, stdinRedir) || out
			restore()
			continue
		}
		out = w.redirect(r, sc, f, stdinRedir) || out
	}
	if out {
		f.bits &^= flowSecret // stdout went to a file: the file is the sink (flow.go)
	}
	f.bits |= w.flushDeferred(saveDeferred, sc, f.bits)
	return f
}

// redirect records the path or network target of one redirection; it
// reports whether stdout now goes to a file.
func (w *walker) redirect(r *syntax.Redirect, sc *scope, f flow, stdinRedir bool) (stdout bool) {
	var acc Access
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return false
	case syntax.RdrIn:
		acc = AccessRead
	case syntax.RdrInOut:
		acc = AccessRead | AccessWrite
	case syntax.DplIn, syntax.DplOut:
		acc = AccessWrite
		if r.Op == syntax.DplIn {
			acc = AccessRead
		}
	default:
		acc = AccessWrite
	}
	if r.Word == nil {
		return false
	}
	a := w.evalJoined(r.Word, sc)
	if r.Op == syntax.DplIn || r.Op == syntax.DplOut {
		if a.s == "-" || isDigits(strings.TrimSuffix(a.s, "-")) || a.dyn && !strings.Contains(a.s, "/") {
			return false // fd duplication
		}
	}
	if a.proc {
		return false
	}
	if host, ok := devTCPHost(a.s); ok {
		w.addHost(host)
		w.signal(SignalReverseShell, sc.detail())
		if f.bits&flowSecret != 0 && acc&AccessWrite != 0 {
			w.sink(f.bits, SinkHost, host, false)
			return true
		}
		return false
	}
	abs, ok := w.resolve(a.s, sc.dir)
	if !ok {
		return false
	}
	toStdout := acc&AccessWrite != 0 && r.Op != syntax.RdrInOut && (r.N == nil || r.N.Value == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll)
	if isPseudoDevice(abs) {
		return toStdout && abs == "/dev/null"
	}
	if toStdout && f.bits&flowSecret != 0 {
		w.sink(f.bits, sinkFile, abs, false)
	}
	w.addPathAbs(w.rawPath(a.s, abs, sc), abs, acc)
	if acc&AccessWrite != 0 && f.hasText && (r.N == nil || r.N.Value == "1") {
		w.autorunWrite(abs, f.text, sc)
		w.rememberText(abs, f.text, r.Op == syntax.AppOut)
	}
	if acc&AccessWrite != 0 && (r.N == nil || r.N.Value == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll) {
		w.writtenByFlow(abs, f, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
	}
	if acc&AccessWrite != 0 && f.bits&flowDL != 0 && (r.N == nil || r.N.Value == "1") {
		w.markDownloaded(abs)
	}
	if acc&AccessWrite != 0 && f.bits&flowDecoded != 0 && (r.N == nil || r.N.Value == "1") {
		w.markDecodedFile(abs)
	}
	if acc&AccessRead != 0 && (r.N == nil || r.N.Value == "0") && f.bits&(flowShellSink|flowInterpSink) != 0 && !stdinRedir {
		w.checkExecDownloaded(abs, sc)
	}
	return toStdout
}
