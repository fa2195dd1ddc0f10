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
	Signals []raised
	// Embedded holds code strings handed to interpreters (python -c, perl -e,
	// awk programs …) for the caller to scan for paths and URLs.
	Embedded []string
	// Inert holds the Embedded code the analyzer read completely and found
	// to run nothing and open no file by name (an awk program that only
	// prints): a path in it is text, not an access.
	Inert []string
	// Written holds what commands write into files (see Written).
	Written []Written
	// Flows holds secrets reaching a sink (flow.go).
	Flows []Flow
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
	w.finishFlows(w.runProgram(src, &w.top))
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

	// editor is the editor the environment names (SUDO_EDITOR, VISUAL or
	// EDITOR, the first set in that order), for the programs that hand it
	// a file (editorFile).
	editor, editorVar string

	// progLinks are paths made a link or a copy of a program (ln -s
	// /bin/sh /tmp/x, cp /bin/bash /tmp/x): run by that path, the program
	// is the one linked (progLink).
	progLinks map[string]string

	// dlFiles are absolute paths written with downloaded bytes.
	dlFiles map[string]bool
	// dlDirs are directories filled from a remote (git clone's
	// destination): a file under one holds downloaded bytes.
	dlDirs []string
	// dlVars are variables assigned from a download.
	dlVars      map[string]bool
	obfVars     map[string]bool   // variables assigned a decoder's output (obfuscated.go)
	gitEnvCfg   map[string]string // GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n seen (trust.go)
	obfFiles    map[string]bool   // absolute paths written with a decoder's output (obfuscated_more.go)
	sawDownload bool

	// fileTexts are files written in this program with statically known
	// text (printf '…' > /tmp/x): running one runs its text.
	fileTexts map[string]string
	// procTexts are the known outputs of input process substitutions
	// <(echo …): a shell sourcing one runs its text.
	procTexts []string
	// secret sources, tainted variables and the hosts commands name (flow.go)
	secSrc   []secretSource
	secVars  map[string]flowBits
	cmdHosts []string

	// a fifo and a raw network client in the same program are a reverse shell.
	fifoDetail, netcatDetail string

	pathSeen map[pathKey]bool
	mode     pathMode // shape of the paths being recorded (tree, names)
	// namesCmd: the last simple command classified reads its input only
	// for names or metadata (namesOnly): a file redirected into its
	// stdin reaches the output as a count, not as content
	namesCmd bool
	hostSeen map[string]bool

	// deferred output process substitutions >(…) of the word being evaluated.
	deferred []*syntax.ProcSubst

	// funcs are the functions defined so far; a call walks the body with
	// the call's arguments as positional parameters.
	funcs      map[string]funcDef
	activeFunc map[string]bool

	// aliases defined so far (Claude Code's shell may expand them).
	// remoteDepth > 0 while the words of a remote shell are walked (ssh HOST
	// 'cmd', ansible -a 'cmd'): remote_destroy.go judges them as that host's
	remoteDepth int
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
	m pathMode
}

// pathMode is the shape the next recorded path facts take (see Path).
type pathMode uint8

const (
	modeGlob pathMode = 1 << iota
	modeTree
	modeNames
)

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
