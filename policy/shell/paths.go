package shell

import (
	"path"
	"strings"
)

// argPath records an operand that names a file. bare: names without a path
// shape count. It returns the absolute path, or "".
func (w *walker) argPath(a argVal, sc *scope, acc Access, bare bool) string {
	s := a.s
	if a.proc || s == "" || s == "-" || s == "{}" {
		return ""
	}
	if strings.Contains(s, "{}") {
		// xargs -I{} / find -exec: a name the other side supplies, so the
		// word is a pattern (cat ~/.ssh/{} reads ~/.ssh/*)
		s = strings.ReplaceAll(s, "{}", "*")
		a.glob = true
	}
	if isURL(s) {
		if p, ok := fileURLPath(s); ok {
			w.addPathAbs(s, p, acc)
		}
		return ""
	}
	if h, ok := cmdHomeVar(s, w.home); ok {
		s = h // %USERPROFILE%\.aws\credentials, as cmd.exe expands it
	}
	if !bare && !pathLike(s) {
		return ""
	}
	if host, ok := devTCPHost(s); ok {
		w.addHost(host)
		return ""
	}
	abs, ok := w.resolve(s, sc.dir)
	if !ok || isPseudoDevice(abs) {
		return ""
	}
	mode := w.mode
	if a.glob {
		mode |= modeGlob
	}
	w.addPathMode(w.rawPath(s, abs, sc), abs, acc, mode)
	return abs
}

// rawPath is the Raw of a path fact: the word as the shell sees it, or the
// absolute path when a relative word would resolve elsewhere from the
// caller's cwd (after cd).
func (w *walker) rawPath(s, abs string, sc *scope) string {
	if sc.dir != w.cwd && s != "" && s[0] != '/' {
		return abs
	}
	return s
}

func longOptAccess(name string) Access {
	for _, k := range []string{"out", "log", "dest", "target", "write", "save", "dump", "export"} {
		if strings.Contains(name, k) {
			return AccessWrite
		}
	}
	return AccessRead
}

// generic records path-shaped operands of a program we know nothing about.
func (w *walker) generic(c *cmdCtx, start int) flow {
	after := false
	for _, a := range c.argv[start:] {
		s := a.s
		if !after && s == "--" {
			after = true
			continue
		}
		if !after && len(s) > 1 && s[0] == '-' && !a.proc {
			if s[1] == '-' {
				if name, val, ok := strings.Cut(s[2:], "="); ok && pathLike(val) {
					w.argPath(argVal{s: val, dyn: a.dyn}, c.sc, longOptAccess(name), false)
				}
			}
			continue
		}
		if !after {
			if _, val, ok := assignWord(s); ok {
				if pathLike(val) {
					w.argPath(argVal{s: val, dyn: a.dyn}, c.sc, AccessRead, false)
				}
				continue
			}
		}
		if strings.ContainsAny(s, " \t\n") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
			continue // a phrase or a command line handed on, not a file name
		}
		w.argPath(a, c.sc, AccessRead, false)
	}
	return flow{}
}

// pagers take +COMMAND operands.
var pagers = set("less", "more", "most")

func (w *walker) files(c *cmdCtx, fp *fileProg) flow {
	n := 0
	scanOpts(c.argv, 1, fp.opts, func(o option) bool {
		if o.name == "" {
			if fp.maxFiles > 0 && n >= fp.maxFiles {
				return true
			}
			if len(o.val.s) > 1 && o.val.s[0] == '+' && pagers.has(c.prog) {
				return true // +N, +/pattern, +!cmd: a start-up command (programRuns)
			}
			n++
			w.argPath(o.val, c.sc, fp.acc, !fp.pathOnly)
			return true
		}
		if acc, ok := fp.optAcc[o.name]; ok && o.hasVal {
			w.argPath(o.val, c.sc, acc, true)
		} else if o.long && o.hasVal && o.idx < 0 && pathLike(o.val.s) {
			w.argPath(o.val, c.sc, longOptAccess(o.name), false)
		}
		return true
	})
	if fp.fifo {
		w.fifoDetail = c.sc.detail()
	}
	if fp.pass && n == 0 {
		return flow{bits: c.in.bits & flowTaint, text: c.in.text, hasText: c.in.hasText}
	}
	return flow{}
}

func (w *walker) tee(c *cmdCtx) flow {
	appendTo := false
	scanOpts(c.argv, 1, teeOpts, func(o option) bool {
		if o.name == "a" || o.name == "append" {
			appendTo = true
		}
		if o.name == "" {
			abs := w.argPath(o.val, c.sc, accW, true)
			if abs != "" && c.in.hasText {
				w.autorunWrite(abs, c.in.text, c.sc)
			}
			w.writtenByFlow(abs, c.in, appendTo)
			if abs != "" && c.in.bits&flowDL != 0 {
				w.markDownloaded(abs)
			}
		}
		return true
	})
	return flow{bits: c.in.bits & flowTaint, text: c.in.text, hasText: c.in.hasText}
}

func (w *walker) cd(c *cmdCtx) {
	sc := c.sc
	if c.prog == "popd" {
		if n := len(sc.dirs); n > 0 {
			sc.dir = sc.dirs[n-1]
			sc.dirs = sc.dirs[: n-1 : n-1]
		}
		return
	}
	var target *argVal
	for i := 1; i < len(c.argv); i++ {
		s := c.argv[i].s
		if s == "--" {
			if i+1 < len(c.argv) {
				target = &c.argv[i+1]
			}
			break
		}
		if len(s) > 1 && s[0] == '-' || c.prog == "pushd" && len(s) > 1 && s[0] == '+' {
			continue
		}
		target = &c.argv[i]
		break
	}
	dir := ""
	switch {
	case target == nil:
		if c.prog == "pushd" {
			return
		}
		dir = w.home
	case target.s == "-" || target.s == "":
		return
	default:
		dir = target.s
	}
	if dir == "" {
		return
	}
	abs, ok := w.resolve(dir, sc.dir)
	if !ok {
		return
	}
	if c.prog == "pushd" {
		sc.dirs = append(sc.dirs[:len(sc.dirs):len(sc.dirs)], sc.dir)
	}
	sc.dir = abs
}

// declare handles export/declare/typeset run as plain commands (after
// `builtin`, `command`, or where the parser did not make a DeclClause).
func (w *walker) declare(c *cmdCtx) {
	exported := c.prog == "export"
	for _, a := range c.argv[1:] {
		if strings.HasPrefix(a.s, "-") {
			if strings.ContainsRune(a.s, 'x') {
				exported = true
			}
			continue
		}
	}
	for _, a := range c.argv[1:] {
		if name, val, ok := assignWord(a.s); ok {
			if exported {
				w.addEnv(name, val, c.sc)
			}
			if !a.dyn {
				c.sc.setVar(name, val)
			}
		}
	}
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
