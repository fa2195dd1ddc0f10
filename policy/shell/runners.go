package shell

import (
	"strings"
)

func (w *walker) xargs(c *cmdCtx) ([]argVal, flow) {
	sp := xargsOpts
	w.optPaths(c, sp, xargsAcc)
	argv := c.argv
	i, _ := skipWrapperOpts(argv, sp, 0, "", false)
	c.xargs = true
	var inner []argVal
	if i < len(argv) {
		inner = argv[i:]
	} else {
		inner = []argVal{{s: "echo"}}
	}
	if c.in.hasText {
		inner = w.xargsInput(c, inner)
	}
	return inner, flow{}
}

// xargsInput appends the words of known stdin text to the command xargs
// runs (`echo ~/.netrc | xargs cat` reads ~/.netrc); with -I the first
// input line replaces the placeholder.
func (w *walker) xargsInput(c *cmdCtx, inner []argVal) []argVal {
	repl := ""
	scanOpts(c.argv, 1, xargsOpts, func(o option) bool {
		switch o.name {
		case "":
			return false
		case "I", "replace":
			repl = o.val.s
		case "i":
			repl = "{}"
		}
		return true
	})
	taint := c.in.bits&flowDL != 0
	if repl != "" {
		line, _, _ := strings.Cut(strings.TrimLeft(c.in.text, "\n"), "\n")
		out := make([]argVal, len(inner))
		for k, a := range inner {
			out[k] = argVal{s: strings.ReplaceAll(a.s, repl, line), dyn: a.dyn, dl: a.dl || taint && strings.Contains(a.s, repl),
				glob: a.glob || c.in.names && strings.Contains(a.s, repl)}
		}
		return out
	}
	words := w.splitWords(c.in.text)
	if len(words) > maxXargsWords {
		words = words[:maxXargsWords]
	}
	out := make([]argVal, 0, len(inner)+len(words))
	out = append(out, inner...)
	for _, wd := range words {
		wd.dl = taint
		wd.glob = c.in.names // the names a find, locate or glob listed
		out = append(out, wd)
	}
	return out
}

// maxXargsWords bounds the input words xargs hands on.
const maxXargsWords = 256

// runWrapper handles `uv run CMD`, `poetry run CMD`, `bundle exec CMD` …
func (w *walker) runWrapper(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	if len(argv) < 2 {
		return nil, flow{}
	}
	sub := argv[1].s
	switch {
	case sub == "run" && c.prog != "pnpm", sub == "exec" && (c.prog == "bundle" || c.prog == "pnpm"):
	default:
		return nil, w.generic(c, 1)
	}
	sp := runWrapperOpts
	rest := argv[1:]
	k, stop := skipWrapperOpts(rest, sp, 0, "", false)
	if stop || k >= len(rest) {
		return nil, flow{}
	}
	return rest[k:], flow{}
}

func (w *walker) npx(c *cmdCtx) ([]argVal, flow) {
	argv := c.argv
	w.installsFromURL(c)
	i := 1
	for i < len(argv) {
		s := argv[i].s
		switch {
		case s == "--":
			i++
		case s == "-c" || s == "--call":
			if i+1 < len(argv) {
				if argv[i+1].dl {
					w.signal(SignalDownloadExec, c.sc.detail())
				}
				return nil, w.nestedProgram(argv[i+1].s, c.sc, nil)
			}
			return nil, flow{}
		case s == "-p" || s == "--package":
			i += 2
			continue
		case strings.HasPrefix(s, "-") && len(s) > 1:
			i++
			continue
		}
		break
	}
	if i >= len(argv) {
		return nil, flow{}
	}
	return argv[i:], flow{}
}

func (w *walker) watch(c *cmdCtx) flow {
	argv := c.argv
	sp := watchOpts
	execMode := false
	i := 1
	for i < len(argv) {
		s := argv[i].s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s == "-x" || s == "--exec" {
			execMode = true
		}
		if s[1] == '-' {
			name, _, eq := strings.Cut(s[2:], "=")
			if !eq && sp.long.has(name) {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(s); j++ {
			if s[j] == 'x' {
				execMode = true
			}
			if strings.IndexByte(sp.short, s[j]) >= 0 {
				if j+1 == len(s) {
					i++
				}
				break
			}
		}
		i++
	}
	if i >= len(argv) {
		return flow{}
	}
	if execMode {
		return w.classify(argv[i:], c.sc, flow{})
	}
	code := joinArgs(argv[i:])
	return w.nestedProgram(code.s, c.sc, nil)
}

func (w *walker) script(c *cmdCtx) flow {
	sp := scriptOpts
	var f flow
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "c", "command":
			if o.val.dl {
				w.signal(SignalDownloadExec, c.sc.detail())
			}
			f = w.nestedProgram(o.val.s, c.sc, nil)
		case "I", "O", "B", "T", "log-in", "log-out", "log-io", "log-timing":
			w.argPath(o.val, c.sc, AccessWrite, true)
		case "":
			w.argPath(o.val, c.sc, AccessWrite, true)
		}
		return true
	})
	return f
}

func (w *walker) parallel(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	valueOpts := parallelOpts
	for i < len(argv) && strings.HasPrefix(argv[i].s, "-") {
		if valueOpts.has(argv[i].s) {
			i++
		}
		i++
	}
	j := i
	for j < len(argv) && argv[j].s != ":::" && argv[j].s != "::::" && argv[j].s != ":::+" {
		j++
	}
	if j > i {
		return w.nestedProgram(joinArgs(argv[i:j]).s, c.sc, nil)
	}
	if j == len(argv) && c.in.hasText {
		// no command: each input line is a command
		return w.nestedProgram(c.in.text, c.sc, nil)
	}
	return flow{}
}

func (w *walker) at(c *cmdCtx) flow {
	sp := atOpts
	file := false
	listOnly := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "f":
			w.execPath(o.val, c.sc)
			file = true
		case "l", "r", "d", "c":
			listOnly = true
		}
		return true
	})
	if file || listOnly {
		return flow{}
	}
	return w.stdinSink(c, flowShellSink)
}

var uvxOpts = &optSpec{long: set("from", "with", "python", "index-url", "spec", "pip-args")}

var xargsOpts = &optSpec{short: "EILnPsda", optional: "eil", long: set("arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var")}

var xargsAcc = map[string]Access{"a": AccessRead, "arg-file": AccessRead}

var runWrapperOpts = &optSpec{short: "npw", long: set("with", "with-requirements", "with-editable", "python", "project", "directory",
	"package", "env-file", "extra", "group", "only-group", "index", "index-url", "extra-index-url", "find-links",
	"name", "prefix", "cwd", "filter", "dir", "gemfile", "env")}

var watchOpts = &optSpec{short: "nq", long: set("interval", "equexit")}

var scriptOpts = &optSpec{short: "cEIOBTm", long: set("command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format")}

var atOpts = &optSpec{short: "fqtM"}

var parallelOpts = set("-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "--colsep", "-N", "-n", "-L", "--joblog", "--results", "--tmpdir", "--workdir", "-E")
