package shell

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// stdinSink is a shell or interpreter reading its program from stdin.
func (w *walker) stdinSink(c *cmdCtx, kind flowBits) flow {
	in := c.in
	if in.bits&flowDL != 0 {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	if in.bits&flowDecoded != 0 {
		w.signal(SignalObfuscatedExec, c.sc.detail())
	}
	if in.bits&flowNet != 0 {
		w.signal(SignalReverseShell, c.sc.detail())
	}
	var f flow
	if in.hasText && !c.xargs {
		if kind == flowShellSink {
			f = w.nestedProgram(in.text, c.sc, nil)
		} else if strings.TrimSpace(in.text) != "" {
			f.bits |= w.embedded(argVal{s: in.text, dl: in.bits&flowDL != 0}, c.sc)
			w.codeRunsIn(codeLang(c.prog), in.text, c.sc)
		}
	}
	f.bits |= kind
	return flow{bits: f.bits}
}

// shell handles sh/bash/zsh … : -c STRING, a script file, or stdin.
func (w *walker) shell(c *cmdCtx) flow {
	argv := c.argv
	if obfWord(argv[1:]) {
		// decoded text anywhere in a shell's words (the code, an option
		// the decoded text turned into, a script name): obfuscated_more.go
		w.signal(SignalObfuscatedExec, c.sc.detail())
	}
	i := 1
	cflag, sflag := false, false
	for i < len(argv) {
		s := argv[i].s
		if s == "--" || s == "-" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' && s[0] != '+' {
			break
		}
		if strings.HasPrefix(s, "--") {
			switch name, _, eq := strings.Cut(s[2:], "="); name {
			case "rcfile", "init-file", "init-command":
				if !eq && i+1 < len(argv) {
					i++
					if name == "init-command" {
						w.nestedProgram(argv[i].s, c.sc, nil)
					} else {
						w.execPath(argv[i], c.sc)
					}
				}
			case "command":
				cflag = true
			}
			i++
			continue
		}
		consumed := 0
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				cflag = true
			case 's':
				sflag = true
			case 'o', 'O':
				consumed++
			case 'C':
				if c.prog == "fish" {
					consumed++
				}
			}
		}
		i += 1 + consumed
	}
	if cflag {
		if i >= len(argv) {
			return flow{}
		}
		code := argv[i]
		if code.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		if code.obf || c.xargs && c.in.bits&flowDecoded != 0 {
			w.signal(SignalObfuscatedExec, c.sc.detail())
		}
		if c.xargs && c.in.bits&flowDL != 0 {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		var pos []string
		if i+1 < len(argv) {
			pos = argStrings(argv[i+1:])
		}
		f := w.nestedProgram(code.s, c.sc, pos)
		c.modelled = true // the string was walked as a program
		return flow{bits: f.bits &^ (flowShellSink | flowInterpSink), text: f.text, hasText: f.hasText}
	}
	if i < len(argv) && !sflag {
		return w.runScript(c, argv[i])
	}
	c.modelled = true // the program is stdin, walked when known
	return w.stdinSink(c, flowShellSink)
}

// runScript is an interpreter running a script file.
func (w *walker) runScript(c *cmdCtx, file argVal) flow {
	if file.dl {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	if file.obf {
		w.signal(SignalObfuscatedExec, c.sc.detail())
	}
	if c.xargs && c.in.bits&flowDL != 0 {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	switch file.s {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		return w.stdinSink(c, flowShellSink)
	}
	w.execPath(file, c.sc)
	return flow{}
}

// execPath records a file that is run, and checks it against downloads.
func (w *walker) execPath(a argVal, sc *scope) {
	if a.proc || a.s == "<(…)" {
		w.runProcTexts(sc)
		return
	}
	if a.s == "" || a.s == "-" {
		return
	}
	if isURL(a.s) {
		return
	}
	abs, ok := w.resolve(a.s, sc.dir)
	if !ok {
		return
	}
	w.addPathAbs(a.s, abs, AccessExec)
	w.checkExecDownloaded(abs, sc)
}

func (w *walker) source(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	if i < len(argv) && argv[i].s == "--" {
		i++
	}
	if i >= len(argv) {
		return flow{}
	}
	return w.runScript(c, argv[i])
}

func (w *walker) powershell(c *cmdCtx) flow {
	argv := c.argv
	valueOpts := pwshOpts
	var f flow
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if len(s) > 1 && (s[0] == '-' || s[0] == '/') {
			name := strings.ToLower(strings.TrimLeft(s, "-/"))
			name, val, hasVal := strings.Cut(name, ":")
			switch {
			case name == "c" || len(name) >= 1 && strings.HasPrefix("command", name):
				code := joinArgs(argv[i+1:])
				if hasVal {
					code.s = val
				}
				if code.s == "-" {
					return w.stdinSink(c, flowInterpSink)
				}
				bits, whole := w.pwshCode(code, c.sc)
				f.bits |= bits
				c.modelled = whole
				return f
			case name == "e" || name == "ec" || len(name) >= 2 && strings.HasPrefix("encodedcommand", name):
				if i+1 < len(argv) {
					code := argv[i+1]
					if dec, ok := decodePSBase64(code.s); ok {
						code.s = dec
					}
					bits, whole := w.pwshCode(code, c.sc)
					f.bits |= bits
					c.modelled = whole
				}
				return f
			case name == "f" || len(name) >= 2 && strings.HasPrefix("file", name):
				if i+1 < len(argv) {
					f.bits |= w.runScript(c, argv[i+1]).bits
				}
				return f
			case name == "wd" || len(name) >= 2 && strings.HasPrefix("workingdirectory", name):
				i++
			default:
				for _, v := range valueOpts {
					if name == v {
						i++
						break
					}
				}
			}
			continue
		}
		if strings.HasSuffix(strings.ToLower(s), ".ps1") {
			return w.runScript(c, argv[i])
		}
		bits, whole := w.pwshCode(joinArgs(argv[i:]), c.sc)
		f.bits |= bits
		c.modelled = whole
		return f
	}
	return w.stdinSink(c, flowInterpSink)
}

func decodePSBase64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

func (w *walker) awk(c *cmdCtx) flow {
	sp := awkOpts
	var f flow
	haveProg := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "f", "file", "E", "exec", "i", "include":
			if o.hasVal {
				w.argPath(o.val, c.sc, AccessRead|AccessExec, true)
				haveProg = true
			}
		case "e", "source":
			if o.hasVal {
				f.bits |= w.awkProgram(o.val, c)
				haveProg = true
			}
		case "":
			if !haveProg {
				haveProg = true
				f.bits |= w.awkProgram(o.val, c)
				return true
			}
			if _, _, ok := assignWord(o.val.s); ok {
				return true
			}
			w.argPath(o.val, c.sc, AccessRead, true)
		}
		return true
	})
	return f
}

// awkProgram analyses one awk program text: the commands it runs
// (system(), pipes) are walked; a program that runs nothing, reads no
// file by name and prints only to stdout is data — a path in its text is
// not opened — and leaves the command modelled.
func (w *walker) awkProgram(prog argVal, c *cmdCtx) flowBits {
	if !prog.dyn && awkPure(prog.s) {
		if c.modelled || !c.awkSeen {
			c.modelled = true
		}
		c.awkSeen = true
		f := w.embedded(prog, c.sc)
		w.res.Inert = append(w.res.Inert, prog.s)
		return f
	}
	c.awkSeen = true
	c.modelled = false
	f := w.embedded(prog, c.sc)
	w.codeRunsIn("awk", prog.s, c.sc)
	if c.in.hasText {
		for _, r := range codeExecs("awk", prog.s) {
			if progs.has(progName(strings.TrimSpace(r.shell))) {
				// print | "sh": the lines awk prints (its input, here) are commands
				w.extracted(c.in.text, c.sc)
				break
			}
		}
	}
	return f
}

// awkPure reports an awk program with no system(), getline, pipe, or
// print/printf redirected to a file.
func awkPure(code string) bool {
	if strings.Contains(code, "system") || strings.Contains(code, "getline") || strings.Contains(code, "ENVIRON") {
		return false
	}
	for i := 0; i < len(code); i++ {
		if code[i] == '|' {
			if i+1 < len(code) && code[i+1] == '|' {
				i++
				continue
			}
			return false
		}
	}
	for i := strings.Index(code, "print"); i >= 0; {
		stmt := code[i:]
		if k := strings.IndexAny(stmt, ";}\n"); k >= 0 {
			stmt = stmt[:k]
		}
		if strings.IndexByte(stmt, '>') >= 0 {
			return false
		}
		next := strings.Index(code[i+1:], "print")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return true
}

func (w *walker) trap(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i].s, "-") {
		if argv[i].s == "--" {
			i++
			break
		}
		if argv[i].s == "-l" || argv[i].s == "-p" {
			return flow{}
		}
		i++
	}
	if i+1 >= len(argv) || argv[i].s == "" || argv[i].s == "-" {
		return flow{}
	}
	if argv[i].dl {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	w.evalProgram(argv[i].s, c.sc)
	return flow{}
}

// winCmd handles `cmd /c STRING` (best effort: parsed as a shell program).
func (w *walker) winCmd(c *cmdCtx) flow {
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := strings.ToLower(argv[i].s)
		if s == "/c" || s == "/k" || s == "/r" {
			return w.nestedProgram(joinArgs(argv[i+1:]).s, c.sc, nil)
		}
	}
	return flow{}
}

// callFunc walks a function body for a call, with the call's arguments as
// positional parameters.
func (w *walker) callFunc(fn funcDef, name string, c *cmdCtx) flow {
	if c.sc.depth+1 > maxDepth {
		w.res.TooDeep = true
		return flow{}
	}
	if w.activeFunc == nil {
		w.activeFunc = make(map[string]bool, 2)
	}
	w.activeFunc[name] = true
	fs := w.sub(c.sc)
	fs.depth++
	fs.pos = argStrings(c.argv)
	fs.inFunc = false
	fs.text = c.sc.detail()
	fs.src = fn.src
	fs.stmt = nil
	f := w.walkStmt(fn.body, fs, c.in)
	delete(w.activeFunc, name)
	return f
}

var awkOpts = &optSpec{short: "fvFeiElW", long: set("file", "assign", "field-separator", "source", "include", "load", "exec")}

var pwshOpts = []string{"executionpolicy", "ep", "ex", "windowstyle", "w", "version", "v", "inputformat", "inp", "if",
	"outputformat", "o", "of", "configurationname", "config", "settingsfile", "custompipename", "psconsolefile", "encodedarguments", "ea"}

// callAlias walks an alias's text with the call's arguments appended.
func (w *walker) callAlias(text, name string, c *cmdCtx) flow {
	if w.activeAlias == nil {
		w.activeAlias = make(map[string]bool, 2)
	}
	var sb strings.Builder
	sb.WriteString(text)
	for _, a := range c.argv[1:] {
		sb.WriteString(" '")
		sb.WriteString(strings.ReplaceAll(a.s, "'", `'\''`))
		sb.WriteString("'")
	}
	w.activeAlias[name] = true
	f := w.evalProgram(sb.String(), c.sc)
	delete(w.activeAlias, name)
	return f
}
