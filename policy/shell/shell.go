package shell

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Facts is what Parse derived from one shell command string.
//
// Every field is a fact about what the command would do if a shell ran it;
// nothing is executed and the file system is never read. The facts name no
// tool argument: the caller records which argument the command came from.
type Facts struct {
	// Commands holds every simple command, wrappers unwrapped (the wrapper
	// itself is reported too), nested `sh -c` strings, eval strings and
	// command substitutions parsed recursively.
	Commands []Command
	// Paths holds file targets with their access: redirections and the path
	// arguments of commands, absolute against the command's directory.
	Paths []Path
	// Hosts holds network destinations; only Raw is filled.
	Hosts []Host
	// Env holds "NAME=value" environment assignments the command makes.
	Env []string
	// Signals holds behaviours recognised from data flow.
	Signals []Raised
	// Embedded holds code strings handed to interpreters (python -c, perl -e,
	// awk programs …) for the caller to scan for paths and URLs.
	Embedded []string
	// TooDeep is set when a budget ran out (nesting deeper than
	// maxDepth, or more than maxCommands commands); the caller
	// must refuse the call.
	TooDeep bool
}

const (
	maxDepth    = 8    // sh -c inside sh -c …, eval, $(…)
	maxCommands = 4096 // simple commands per Parse call
	maxDetail   = 160  // bytes of command text kept in a Raised
)

// recoverPanics turns a panic inside Parse into an unparsed
// result. Tests and the fuzzer switch it off so bugs surface.
var recoverPanics = true

// testPanic makes Parse panic, to test the recovery.
var testPanic = false

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Parse parses a bash command string and returns the facts it implies.
// cwd is the directory the command starts in, home and user stand for ~,
// $HOME and $USER. It never executes anything, never reads the file system
// and never looks at the process environment. It is safe for concurrent use.
func Parse(src, cwd, home, user string) Facts {
	if cwd == "" {
		cwd = "/"
	} else if cwd[0] == '/' {
		cwd = path.Clean(cwd)
	}
	w := walkerPool.Get().(*walker)
	w.home, w.user = home, user
	w.res = &w.out
	ok := w.parse(src, cwd)
	res := w.out
	*w = walker{}
	if ok {
		walkerPool.Put(w)
	}
	return res
}

var walkerPool = sync.Pool{New: func() any { return new(walker) }}

// parse walks src; a panic becomes an unparsed result (ok is then false).
func (w *walker) parse(src, cwd string) (ok bool) {
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				home, user := w.home, w.user
				*w = walker{home: home, user: user, cwd: cwd}
				w.res = &w.out
				w.crude(src, &scope{dir: cwd}, fmt.Sprintf("internal error: %v", r))
				ok = false
			}
		}()
	}
	w.top = scope{dir: cwd, src: src}
	w.cwd = cwd
	if testPanic {
		panic("shell test panic")
	}
	w.runProgram(src, &w.top)
	w.finish()
	return true
}

// runProgram walks one complete shell program (the top-level command, a -c
// string, an eval string, a here-document fed to a shell).
func (w *walker) runProgram(src string, sc *scope) flow {
	if argv, ok := w.fastSplit(src, sc); ok {
		if len(argv) == 0 {
			return flow{}
		}
		return w.classify(argv, sc, flow{})
	}
	f, err := parseShellSource(src)
	if err != nil {
		w.crude(src, sc, err.Error())
		return flow{}
	}
	sc.src = src
	return w.walkStmts(f.Stmts, sc, flow{})
}

// parseShellSource parses src with a pooled parser. A panic inside the
// parser becomes an error and the parser is not reused.
func parseShellSource(src string) (f *syntax.File, err error) {
	p := parserPool.Get().(*syntax.Parser)
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("shell parser failed: %v", r)
			return
		}
		parserPool.Put(p)
	}()
	f, err = p.Parse(strings.NewReader(src), "")
	if err == nil && f == nil {
		err = fmt.Errorf("shell parser returned nothing")
	}
	return f, err
}

// walker carries the state of one Parse call.
type walker struct {
	home, user string
	res        *Facts
	out        Facts  // res points here
	top        scope  // the scope of the top-level program
	cwd        string // the directory the call starts in

	scopes  [16]scope // backing store for sub
	nScopes int

	// dlFiles are absolute paths written with downloaded bytes.
	dlFiles map[string]bool
	// dlVars are variables assigned from a download.
	dlVars      map[string]bool
	sawDownload bool

	// a fifo and a raw network client in the same program are a reverse shell.
	fifoDetail, netcatDetail string

	pathSeen map[pathKey]bool
	hostSeen map[string]bool

	// deferred output process substitutions >(…) of the word being evaluated.
	deferred []*syntax.ProcSubst

	// funcs are the functions defined so far; a call walks the body with
	// the call's arguments as positional parameters.
	funcs      map[string]funcDef
	activeFunc map[string]bool

	// aliases defined so far (Claude Code's shell may expand them).
	aliases     map[string]string
	activeAlias map[string]bool
}

type funcDef struct {
	body *syntax.Stmt
	src  string
}

type pathKey struct {
	p string
	a Access
}

// scope is the state a list of commands runs in. Subshells, pipeline
// elements and nested programs get a copy.
type scope struct {
	dir   string
	depth int
	src   string       // source text positions refer to
	stmt  *syntax.Stmt // current list-level statement, for signal details
	text  string       // detail text when there is no statement (crude, fast path)

	vars    map[string]string // variables assigned literally in this program
	ownVars bool              // vars may be written without copying

	pos    []string // positional parameters $0 $1 …; nil means none were given
	inFunc bool     // inside a function body: positional parameters unknown
	dirs   []string // pushd stack
}

// sub returns a copy of sc for a subshell or a pipeline element. The first
// copies live in the walker, so a typical command allocates none.
func (w *walker) sub(sc *scope) *scope {
	var c *scope
	if w.nScopes < len(w.scopes) {
		c = &w.scopes[w.nScopes]
		w.nScopes++
	} else {
		c = new(scope)
	}
	*c = *sc
	c.ownVars = false
	return c
}

// nested returns a scope for a program run by another shell process.
func (sc *scope) nested(pos []string) *scope {
	return &scope{dir: sc.dir, depth: sc.depth + 1, pos: pos, text: sc.detail()}
}

func (sc *scope) setVar(name, val string) {
	if len(val) > maxVar {
		sc.unsetVar(name)
		return
	}
	if !sc.ownVars {
		m := make(map[string]string, len(sc.vars)+1)
		for k, v := range sc.vars {
			m[k] = v
		}
		sc.vars = m
		sc.ownVars = true
	}
	sc.vars[name] = val
}

func (sc *scope) unsetVar(name string) {
	if _, ok := sc.vars[name]; ok {
		sc.setVar(name, "")
		delete(sc.vars, name)
	}
}

// detail is the text of the statement being walked, shortened.
func (sc *scope) detail() string {
	s := sc.text
	if sc.stmt != nil {
		s = nodeText(sc.src, sc.stmt)
	}
	return shortDetail(s)
}

func nodeText(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || start > len(src) || !n.Pos().IsValid() {
		return ""
	}
	if end > len(src) || end < start {
		end = len(src)
	}
	return src[start:end]
}

func shortDetail(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ";&")
	s = strings.TrimSpace(s)
	if len(s) > maxDetail {
		cut := maxDetail
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// flowBits describe a statement's data flow.
type flowBits uint16

const (
	flowDL         flowBits = 1 << iota // stdout may carry downloaded bytes
	flowNet                             // stdout may carry bytes from a raw network connection
	flowShellSink                       // a shell reads its program from stdin
	flowInterpSink                      // an interpreter reads code from stdin
	flowConnector                       // a raw network client (nc, telnet, socat …) runs
	flowDownloader                      // a downloader runs

	flowTaint = flowDL | flowNet
)

// flow is the data flow out of a statement: bits, and its stdout text when
// statically known (echo, printf, base64 -d of known text).
type flow struct {
	bits    flowBits
	text    string
	hasText bool
}

func (w *walker) full() bool {
	if len(w.res.Commands) >= maxCommands {
		w.res.TooDeep = true
		return true
	}
	return false
}

func (w *walker) signal(sig Signal, detail string) {
	for _, s := range w.res.Signals {
		if s.Signal == sig {
			return // the first occurrence names the offending command
		}
	}
	detail = shortDetail(detail)
	w.res.Signals = append(w.res.Signals, Raised{Signal: sig, Detail: detail})
}

// finish raises signals that need the whole program.
func (w *walker) finish() {
	if w.fifoDetail != "" && w.netcatDetail != "" {
		d := w.fifoDetail
		if d != w.netcatDetail {
			d += " … " + w.netcatDetail
		}
		w.signal(SignalReverseShell, d)
	}
}

func (w *walker) addEnv(name, val string) {
	kv := name + "=" + val
	for _, e := range w.res.Env {
		if e == kv {
			return
		}
	}
	w.res.Env = append(w.res.Env, kv)
}

func (w *walker) addEmbedded(code string) {
	for _, e := range w.res.Embedded {
		if e == code {
			return
		}
	}
	w.res.Embedded = append(w.res.Embedded, code)
}

// addPathAbs records an absolute path fact.
func (w *walker) addPathAbs(raw, abs string, acc Access) {
	k := pathKey{abs, acc}
	if w.pathSeen != nil {
		if w.pathSeen[k] {
			return
		}
	} else {
		for _, p := range w.res.Paths {
			if p.Path == abs && p.Access == acc {
				return
			}
		}
		if len(w.res.Paths) >= 16 {
			w.pathSeen = make(map[pathKey]bool, 64)
			for _, p := range w.res.Paths {
				w.pathSeen[pathKey{p.Path, p.Access}] = true
			}
		}
	}
	if w.pathSeen != nil {
		w.pathSeen[k] = true
	}
	w.res.Paths = append(w.res.Paths, Path{Raw: raw, Path: abs, Access: acc})
}

func (w *walker) addHost(raw string) {
	if raw == "" {
		return
	}
	if w.hostSeen != nil {
		if w.hostSeen[raw] {
			return
		}
	} else {
		for _, h := range w.res.Hosts {
			if h.Raw == raw {
				return
			}
		}
		if len(w.res.Hosts) >= 16 {
			w.hostSeen = make(map[string]bool, 64)
			for _, h := range w.res.Hosts {
				w.hostSeen[h.Raw] = true
			}
		}
	}
	if w.hostSeen != nil {
		w.hostSeen[raw] = true
	}
	w.res.Hosts = append(w.res.Hosts, Host{Raw: raw})
}

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
	for _, st := range stmts {
		if w.full() {
			break
		}
		sc.stmt = st
		f := w.walkStmt(st, sc, in)
		out.bits |= f.bits
		if f.hasText && allText && text.Len()+len(f.text) <= maxWord {
			text.WriteString(f.text)
		} else {
			allText = false
		}
	}
	sc.stmt = saveStmt
	if allText && len(stmts) > 0 {
		out.text, out.hasText = text.String(), true
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
			in = flow{text: a.s, hasText: true}
			if a.dl {
				in.bits |= flowDL
			}
			stdinRedir = true
		case syntax.WordHdoc:
			if r.N != nil && r.N.Value != "0" {
				continue
			}
			a := w.evalJoined(r.Word, sc)
			in = flow{text: a.s + "\n", hasText: true}
			if a.dl {
				in.bits |= flowDL
			}
			stdinRedir = true
		case syntax.RdrIn:
			if r.N == nil || r.N.Value == "0" {
				in = flow{}
			}
		}
	}
	var f flow
	if st.Cmd != nil {
		f = w.walkCommand(st.Cmd, sc, in, st)
	}
	if st.Background && f.hasText {
		f = flow{bits: f.bits}
	}
	saveDeferred := len(w.deferred)
	for _, r := range st.Redirs {
		w.redirect(r, sc, f, stdinRedir)
	}
	f.bits |= w.flushDeferred(saveDeferred, sc, f.bits)
	return f
}

// redirect records the path or network target of one redirection.
func (w *walker) redirect(r *syntax.Redirect, sc *scope, f flow, stdinRedir bool) {
	var acc Access
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
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
		return
	}
	a := w.evalJoined(r.Word, sc)
	if r.Op == syntax.DplIn || r.Op == syntax.DplOut {
		if a.s == "-" || isDigits(strings.TrimSuffix(a.s, "-")) || a.dyn && !strings.Contains(a.s, "/") {
			return // fd duplication
		}
	}
	if a.proc {
		return
	}
	if host, ok := devTCPHost(a.s); ok {
		w.addHost(host)
		w.signal(SignalReverseShell, sc.detail())
		return
	}
	abs, ok := w.resolve(a.s, sc.dir)
	if !ok {
		return
	}
	if isPseudoDevice(abs) {
		return
	}
	w.addPathAbs(w.rawPath(a.s, abs, sc), abs, acc)
	if acc&AccessWrite != 0 && f.bits&flowDL != 0 && (r.N == nil || r.N.Value == "1") {
		w.markDownloaded(abs)
	}
	if acc&AccessRead != 0 && (r.N == nil || r.N.Value == "0") && f.bits&(flowShellSink|flowInterpSink) != 0 && !stdinRedir {
		w.checkExecDownloaded(abs, sc)
	}
}

func (w *walker) markDownloaded(abs string) {
	if w.dlFiles == nil {
		w.dlFiles = make(map[string]bool, 4)
	}
	w.dlFiles[abs] = true
	w.sawDownload = true
}

// checkExecDownloaded raises download-exec when abs, about to be run, holds
// downloaded bytes (or is a temp file run after a download).
func (w *walker) checkExecDownloaded(abs string, sc *scope) {
	if w.dlFiles[abs] {
		w.signal(SignalDownloadExec, sc.detail())
		return
	}
	if w.sawDownload && isTempPath(abs) {
		w.signal(SignalDownloadExec, sc.detail())
	}
}

func isTempPath(p string) bool {
	for _, d := range []string{"/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/", "/private/var/tmp/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// isPseudoDevice reports paths that are not files worth a fact.
func isPseudoDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return p != "/dev/zero" && p != "/dev/random" && p != "/dev/urandom"
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// devTCPHost extracts HOST from /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT.
func devTCPHost(s string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(s, "/dev/tcp/"):
		rest = s[len("/dev/tcp/"):]
	case strings.HasPrefix(s, "/dev/udp/"):
		rest = s[len("/dev/udp/"):]
	default:
		return "", false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

func (w *walker) walkCommand(cmd syntax.Command, sc *scope, in flow, st *syntax.Stmt) flow {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return w.walkCall(c, sc, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			fx := w.walkStmt(c.X, w.sub(sc), in)
			fy := w.walkStmt(c.Y, w.sub(sc), flow{bits: fx.bits & flowTaint, text: fx.text, hasText: fx.hasText})
			all := fx.bits | fy.bits
			if all&flowConnector != 0 && all&flowShellSink != 0 {
				w.signal(SignalReverseShell, sc.detail())
			}
			return flow{bits: fy.bits&flowTaint | all&^flowTaint, text: fy.text, hasText: fy.hasText}
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
		w.walkDecl(c, sc)
		return flow{}
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

func (w *walker) walkDecl(c *syntax.DeclClause, sc *scope) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	argv := make([]string, 1, 1+len(c.Args))
	argv[0] = variant
	exported := variant == "export"
	unexport := false
	for _, a := range c.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			flag := w.evalJoined(a.Value, sc).s
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
				w.addEnv(name, val)
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
					w.addEnv(name, v)
				}
			}
			continue
		}
		val := w.evalAssign(a, sc)
		argv = append(argv, name+"="+val.s)
		if exported && !unexport {
			w.addEnv(name, val.s)
		}
		w.setVarFrom(sc, name, val)
	}
	if !w.full() {
		w.res.Commands = append(w.res.Commands, Command{Argv: argv, Dir: sc.dir})
	}
}

// setVarFrom records a variable assignment for later expansion.
func (w *walker) setVarFrom(sc *scope, name string, val argVal) {
	if val.dl {
		if w.dlVars == nil {
			w.dlVars = make(map[string]bool, 2)
		}
		w.dlVars[name] = true
	} else if w.dlVars[name] {
		delete(w.dlVars, name)
	}
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
			w.addEnv(a.Name.Value, val.s)
			w.setVarFrom(sc, a.Name.Value, val)
		}
		return flow{}
	}
	for _, a := range c.Assigns {
		if a.Name == nil {
			continue
		}
		val := w.evalAssign(a, sc)
		w.addEnv(a.Name.Value, val.s)
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
