package shell

import (
	"path"
	"strings"
)

func (w *walker) chmod(c *cmdCtx) {
	modeSeen := false
	after := false
	for _, a := range c.argv[1:] {
		s := a.s
		if !after && s == "--" {
			after = true
			continue
		}
		if !after && strings.HasPrefix(s, "--") {
			if name, val, ok := strings.Cut(s[2:], "="); ok && name == "reference" {
				w.argPath(argVal{s: val, dyn: a.dyn}, c.sc, accR, true)
				modeSeen = true
			} else if name == "reference" {
				modeSeen = true
			}
			continue
		}
		if !after && len(s) > 1 && s[0] == '-' {
			if !modeSeen && isModeFlag(c.prog, s[1:]) {
				modeSeen = true
			}
			continue
		}
		if !modeSeen {
			modeSeen = true
			continue
		}
		w.argPath(a, c.sc, accW, true)
	}
}

// isModeFlag reports a mode that looks like an option: chmod -x, chattr -i.
func isModeFlag(prog, s string) bool {
	switch prog {
	case "chmod":
		return strings.Trim(s, "rwxXst") == "" && s != ""
	case "chattr":
		return strings.Trim(s, "aAcCdDeFijmPsStTux") == "" && s != ""
	}
	return false
}

func (w *walker) copyLike(c *cmdCtx) {
	var sp *optSpec
	srcAcc := accR
	switch c.prog {
	case "install":
		sp = installOpts
	case "mv":
		sp = mvOpts
		srcAcc = accRW
	default:
		sp = cpOpts
	}
	var ops []argVal
	var target *argVal
	dirMode := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			ops = append(ops, o.val)
		case "t", "target-directory":
			if o.hasVal {
				v := o.val
				target = &v
			}
		case "d", "directory":
			if c.prog == "install" {
				dirMode = true
			}
		}
		return true
	})
	if dirMode {
		for _, a := range ops {
			w.argPath(a, c.sc, accW, true)
		}
		return
	}
	var dst string
	srcs := ops
	switch {
	case target != nil:
		dst = w.argPath(*target, c.sc, accW, true)
	case len(ops) == 1 && (c.prog == "ln" || c.prog == "link"):
		if abs, ok := w.resolve(path.Base(ops[0].s), c.sc.dir); ok {
			w.addPathAbs(path.Base(ops[0].s), abs, accW)
		}
	case len(ops) >= 2:
		srcs = ops[:len(ops)-1]
		dst = w.argPath(ops[len(ops)-1], c.sc, accW, true)
	}
	var dlSrc []string
	tree := c.prog == "cp" && recursiveFlag(c.argv, "rRa", "recursive", "archive")
	for _, a := range srcs {
		var abs string
		if tree {
			abs = w.treePath(a, c.sc, srcAcc)
		} else {
			abs = w.argPath(a, c.sc, srcAcc, true)
		}
		if abs != "" && w.dlFiles[abs] {
			dlSrc = append(dlSrc, abs)
		}
		if dst != "" && abs != "" {
			w.copiedInto(dst, abs, len(srcs) == 1, w.dlFiles[abs])
			if len(srcs) == 1 && !tree {
				w.progLink(dst, abs)
			}
		}
	}
	if dst != "" && len(dlSrc) > 0 {
		if len(srcs) == 1 {
			w.markDownloaded(dst)
		}
		for _, s := range dlSrc {
			w.markDownloaded(path.Join(dst, path.Base(s)))
		}
	}
}

// progLink records dst as a link or copy of the program at src when src
// is in a directory of programs: GTFOBins' trick of running a program
// under another name (a copy of sh called git-x) changes nothing of what
// it does.
func (w *walker) progLink(dst, src string) {
	dir := path.Dir(src)
	switch dir {
	case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin":
	default:
		if p := w.progLinks[src]; p != "" {
			break // a link of a link
		}
		return
	}
	prog := progName(src)
	if p := w.progLinks[src]; p != "" {
		prog = p
	}
	if w.progLinks == nil {
		w.progLinks = make(map[string]string, 2)
	}
	if len(w.progLinks) < 16 {
		w.progLinks[dst] = prog
	}
}

func (w *walker) sed(c *cmdCtx) {
	argv := c.argv
	inplace, haveScript := false, false
	var files, scripts []argVal
	after := false
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if !after {
			if s == "--" {
				after = true
				continue
			}
			if s == "-i" || strings.HasPrefix(s, "--in-place") {
				inplace = true
				if s == "-i" && i+1 < len(argv) && argv[i+1].s == "" && !argv[i+1].dyn {
					i++ // BSD sed -i ''
				}
				continue
			}
			if strings.HasPrefix(s, "--") {
				name, val, eq := strings.Cut(s[2:], "=")
				switch name {
				case "expression", "file":
					haveScript = true
					if !eq && i+1 < len(argv) {
						i++
						val = argv[i].s
					}
					if name == "file" {
						w.argPath(argVal{s: val}, c.sc, accR, true)
					} else {
						scripts = append(scripts, argVal{s: val, dyn: argv[i].dyn, dl: argv[i].dl})
					}
				case "line-length":
					if !eq {
						i++
					}
				}
				continue
			}
			if len(s) > 1 && s[0] == '-' {
			cluster:
				for j := 1; j < len(s); j++ {
					switch s[j] {
					case 'i':
						inplace = true
						break cluster
					case 'e', 'f':
						haveScript = true
						v, next := attachedOrNext(argv, i, j)
						if s[j] == 'f' {
							w.argPath(v, c.sc, accR, true)
						} else {
							scripts = append(scripts, v)
						}
						i = next - 1
						break cluster
					case 'l':
						_, next := attachedOrNext(argv, i, j)
						i = next - 1
						break cluster
					}
				}
				continue
			}
		}
		if !haveScript {
			haveScript = true
			scripts = append(scripts, argv[i])
			continue
		}
		files = append(files, argv[i])
	}
	acc := accR
	if inplace {
		acc = accRW
	}
	var inserted string
	if inplace {
		texts := make([]string, len(scripts))
		for i, sc := range scripts {
			texts[i] = sc.s
		}
		inserted = sedInserted(texts)
	}
	if inplace && !sedOutputs(scripts) {
		// edited in place: the content goes back into the file, not to
		// the output (sed -i 's/3.11/3.12/' .envrc)
		defer w.withMode(modeNames)()
	}
	for _, f := range files {
		if abs := w.argPath(f, c.sc, acc, true); abs != "" && inplace {
			w.addWritten(Written{Path: abs, Text: inserted, Known: true, Append: true})
		}
	}
	c.modelled = true
	for _, sc := range scripts {
		if sc.dyn {
			c.modelled = false // a script built at run time may run anything
		}
		sf := sedScript(sc.s)
		for _, r := range sf.runs {
			if sc.dl {
				w.signal(SignalDownloadExec, c.sc.detail())
			}
			w.extracted(r, c.sc)
		}
		if sf.execInput && c.in.hasText {
			w.extracted(c.in.text, c.sc)
		}
		for _, p := range sf.reads {
			w.argPath(argVal{s: p, dyn: sc.dyn}, c.sc, accR, true)
		}
		for _, p := range sf.writes {
			w.argPath(argVal{s: p, dyn: sc.dyn}, c.sc, accW, true)
		}
	}
}

func (w *walker) grep(c *cmdCtx) {
	var sp *optSpec
	switch c.prog {
	case "rg":
		sp = rgOpts
	case "ag":
		sp = agOpts
	case "ack", "ack-grep":
		sp = ackOpts
	default:
		sp = grepOpts
	}
	patternGiven := false
	var ops, includes []argVal
	tree := c.prog != "grep" || recursiveFlag(c.argv, "rR", "recursive", "dereference-recursive")
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			ops = append(ops, o.val)
		case "d", "directories":
			tree = tree || o.val.s == "recurse"
		case "include", "glob", "iglob", "G", "file-search-regex":
			if o.name != "G" && o.name != "file-search-regex" && !strings.HasPrefix(o.val.s, "!") {
				includes = append(includes, o.val)
			}
		case "e", "regexp", "match":
			patternGiven = true
		case "f", "file", "exclude-from", "ignore-file", "path-to-ignore":
			if o.name == "f" || o.name == "file" {
				patternGiven = true
			}
			if c.prog != "ack" || o.name != "f" {
				w.argPath(o.val, c.sc, accR, true)
			}
		case "g":
			if c.prog == "ag" || c.prog == "ack" {
				patternGiven = true
			}
			if c.prog == "rg" && !strings.HasPrefix(o.val.s, "!") {
				includes = append(includes, o.val)
			}
		case "files", "l":
			if c.prog == "rg" && o.name == "files" {
				patternGiven = true
			}
		case "pre":
			if o.hasVal && o.val.s != "" {
				w.classify([]argVal{o.val}, c.sc, flow{})
			}
		}
		return true
	})
	if !patternGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	if tree {
		w.searchTrees(ops, includes, c.sc)
		return
	}
	for _, a := range ops {
		w.argPath(a, c.sc, accR, true)
	}
}

func (w *walker) jq(c *cmdCtx) {
	argv := c.argv
	// yq's load(), load_str() … open files its expression names
	c.modelled = c.prog != "yq" || !argsContain(argv, "load")
	filterGiven := false
	i := 1
	if (c.prog == "yq") && i < len(argv) {
		switch argv[i].s {
		case "eval", "e", "eval-all", "ea":
			i++
		}
	}
	for ; i < len(argv); i++ {
		s := argv[i].s
		switch s {
		case "--arg", "--argjson":
			i += 2
			continue
		case "--slurpfile", "--rawfile":
			if i+2 < len(argv) {
				w.argPath(argv[i+2], c.sc, accR, true)
			}
			i += 2
			continue
		case "-f", "--from-file":
			if i+1 < len(argv) {
				w.argPath(argv[i+1], c.sc, accR, true)
			}
			filterGiven = true
			i++
			continue
		case "--indent", "-L", "--output-format", "-o", "-p", "--input-format", "--front-matter", "--expression":
			i++
			continue
		case "--args", "--jsonargs":
			i = len(argv)
			continue
		}
		if len(s) > 1 && s[0] == '-' {
			continue
		}
		if !filterGiven {
			filterGiven = true
			continue
		}
		w.argPath(argv[i], c.sc, accR, true)
	}
}

var installOpts = &optSpec{short: "mogSt", long: set("mode", "owner", "group", "suffix", "target-directory", "strip-program", "backup", "context")}

var mvOpts = &optSpec{short: "tS", long: set("target-directory", "suffix")}

var cpOpts = &optSpec{short: "tS", long: set("target-directory", "suffix")}

var rgOpts = &optSpec{short: "efgtTmABCjEMrd", long: set("regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "threads", "encoding", "max-columns", "replace", "max-depth", "type-add", "type-clear", "pre", "pre-glob", "ignore-file", "path-separator", "sort", "sortr", "colors", "engine", "dfa-size-limit", "regex-size-limit", "max-filesize", "context-separator", "field-context-separator", "field-match-separator", "hostname-bin", "hyperlink-format", "color")}

var agOpts = &optSpec{short: "ABCGgmpW", long: set("ignore", "ignore-dir", "depth", "file-search-regex", "after", "before", "context", "max-count", "workers", "path-to-ignore", "pager")}

var ackOpts = &optSpec{short: "ABCmg", long: set("type", "ignore-dir", "ignore-file", "match", "output", "after-context", "before-context", "context", "max-count", "pager", "type-add", "type-set")}

var grepOpts = &optSpec{short: "efmABCdD", long: set("regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "group-separator")}

func argsContain(argv []argVal, sub string) bool {
	for _, a := range argv[1:] {
		if strings.Contains(a.s, sub) {
			return true
		}
	}
	return false
}
