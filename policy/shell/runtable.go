package shell

import (
	"strconv"
	"strings"
)

// The generic reader of programRuns rows.

// withRowOpts returns sp with every option a row names taking a value.
func withRowOpts(sp *optSpec, rows []runRow) *optSpec {
	out := &optSpec{}
	long := map[string]bool{}
	if sp != nil {
		out.short, out.oneDash = sp.short, sp.oneDash
		for _, k := range sp.long.list() {
			long[k] = true
		}
	}
	for _, r := range rows {
		if len(r.at) < 2 || r.at[0] != '-' || r.at == "--" || r.at == "--args" {
			continue
		}
		name := strings.TrimLeft(r.at, "-")
		switch {
		case r.at[1] != '-' && len(name) == 1:
			if out.oneDash {
				long[name] = true
			} else if strings.IndexByte(out.short, name[0]) < 0 {
				out.short += name
			}
		case r.at[1] != '-':
			out.oneDash = true
			long[name] = true
		default:
			long[name] = true
		}
	}
	if out.oneDash {
		for i := 0; i < len(out.short); i++ {
			long[out.short[i:i+1]] = true
		}
	}
	out.long = setOfMap(long)
	return out
}

// tableRuns applies rs's rows to c: each value that runs is analysed as
// what it runs. It returns the argv of a command that replaces c (a
// wrapper's command) or nil.
func (w *walker) tableRuns(c *cmdCtx, rs *runSpec) []argVal {
	var inner []argVal
	n := 0
	pending := -1 // operands to skip before an argv starts (after a @word)
	scanOpts(c.argv, 1, rs.opts, func(o option) bool {
		if o.name != "" {
			for _, r := range rs.rows {
				if r.at[0] == '-' && strings.TrimLeft(r.at, "-") == o.name && o.hasVal {
					if r.kind == runArgv {
						if o.idx > 0 {
							inner = c.argv[o.idx:]
							return false
						}
						continue
					}
					w.runValue(r, o.val, c)
				}
				if r.at == "--args" && o.name == "args" && o.idx < 0 {
					// gdb --args PROG …: the next word starts the argv
					pending = 0
				}
			}
			return true
		}
		if o.val.s == "--" {
			return true
		}
		n++
		if pending >= 0 {
			if pending == 0 {
				inner = c.argv[o.idx:]
				return false
			}
			pending--
			return true
		}
		for _, r := range rs.rows {
			switch {
			case r.at == "+":
				if len(o.val.s) > 1 && o.val.s[0] == '+' {
					w.runValue(r, argVal{s: o.val.s[1:], dyn: o.val.dyn, dl: o.val.dl}, c)
				}
			case r.at == "*":
				w.runValue(r, o.val, c)
			case r.at[0] == '@':
				if o.val.s == r.at[1:] && n <= 2 {
					pending = 0
					if r.lang == "skip1" {
						pending = 1
					}
					if r.kind != runArgv {
						pending = -1
						w.runValue(r, joinArgs(c.argv[o.idx+1:]), c)
						return false
					}
				}
			case r.at[0] >= '1' && r.at[0] <= '9':
				if k, err := strconv.Atoi(r.at); err == nil && k == n {
					if r.kind == runArgv {
						inner = c.argv[o.idx:]
						return false
					}
					w.runValue(r, o.val, c)
				}
			}
		}
		return true
	})
	if inner == nil && c.in.hasText {
		for _, r := range rs.rows {
			if r.at == "stdin" && (r.lang != "cron" || n == 0 || cronFromStdin(c)) && (r.lang != "make" || makeFromStdin(c)) {
				w.langRuns(r.lang, argVal{s: c.in.text}, c.sc)
			}
		}
	}
	return inner
}

// makeFromStdin reports make reading its makefile from stdin (-f -).
func makeFromStdin(c *cmdCtx) bool {
	for k, a := range c.argv[1:] {
		if a.s == "-f-" || a.s == "--file=-" || a.s == "--makefile=-" ||
			(a.s == "-f" || a.s == "--file" || a.s == "--makefile") && k+2 < len(c.argv) && c.argv[k+2].s == "-" {
			return true
		}
	}
	return false
}

// cronFromStdin reports crontab reading its table from stdin: an operand -
// and no -l, -r or -e.
func cronFromStdin(c *cmdCtx) bool {
	dash := false
	for _, a := range c.argv[1:] {
		switch a.s {
		case "-":
			dash = true
		case "-l", "-r", "-e", "-i":
			return false
		}
	}
	return dash
}

// tableDispatch applies the table to c: the programs whose reader lives
// in termruns.go, or the generic table reader. ok is false when dispatch
// goes on as usual (the rows only added what the program runs).
func (w *walker) tableDispatch(c *cmdCtx) ([]argVal, bool) {
	switch c.prog {
	case "npm", "yarn":
		w.installsFromURL(c)
	case "tmux":
		w.tmuxRuns(c)
		return nil, true
	case "screen":
		return w.screenRuns(c), true
	case "capsh":
		return capshRuns(c), true
	}
	rs := programRuns()[c.prog]
	if rs == nil || rs.by != "" {
		return nil, false
	}
	inner := w.tableRuns(c, rs)
	for len(inner) > 0 {
		// cmake -E env NAME=VALUE … CMD
		name, val, ok := assignWord(inner[0].s)
		if !ok {
			break
		}
		w.addEnv(name, val, c.sc)
		inner = inner[1:]
	}
	return inner, inner != nil
}

// runValue analyses one value a row says runs.
func (w *walker) runValue(r runRow, v argVal, c *cmdCtx) {
	if r.key != "" {
		rest, ok := cutKey(v.s, r.key)
		if !ok {
			return
		}
		v = argVal{s: rest, dyn: v.dyn, dl: v.dl}
	}
	if strings.TrimSpace(v.s) == "" {
		return
	}
	if v.dl {
		w.signal(SignalDownloadExec, c.sc.detail())
	}
	switch r.kind {
	case runShell:
		w.nestedProgram(v.s, c.sc, nil)
	case runWords:
		if args := w.splitWords(v.s); len(args) > 0 {
			w.classify(args, c.sc, flow{})
		}
	case runCommas:
		var args []argVal
		for _, p := range strings.Split(v.s, ",") {
			if p != "" {
				args = append(args, argVal{s: p, dyn: v.dyn})
			}
		}
		if len(args) > 0 {
			w.classify(args, c.sc, flow{})
		}
	case runFile:
		if pathLike(v.s) || r.at != "--script" || v.proc || v.s == "<(…)" {
			w.execPath(v, c.sc)
		}
	case runLang:
		w.langRuns(r.lang, v, c.sc)
	}
}

// cutKey reports whether s begins with key (case-insensitive, ASCII) and
// returns the rest, with the = or blanks after a bare key removed.
func cutKey(s, key string) (string, bool) {
	if len(s) < len(key) || !strings.EqualFold(s[:len(key)], key) {
		return "", false
	}
	rest := s[len(key):]
	last := key[len(key)-1]
	if last != '=' && last != ':' {
		rest = strings.TrimLeft(rest, ":")
		if rest == "" || rest[0] != '=' && rest[0] != ' ' && rest[0] != '\t' {
			return "", false
		}
		rest = strings.TrimLeft(rest, "= \t")
	}
	return rest, true
}
