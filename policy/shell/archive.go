package shell

import (
	"strings"
)

func (w *walker) tar(c *cmdCtx) {
	argv := c.argv
	mode := byte(0)
	var archives []argVal
	var cdir *argVal
	var ops []argVal
	valueLetters := "fCTXbKNVLgHFI"
	handleVal := func(letter string, v argVal) {
		switch letter {
		case "f", "file":
			archives = append(archives, v)
		case "C", "directory":
			vv := v
			cdir = &vv
		case "T", "files-from", "X", "exclude-from":
			w.argPath(v, c.sc, accR, true)
		case "I", "use-compress-program", "F", "info-script", "new-volume-script", "to-command", "rsh-command", "rmt-command":
			w.nestedProgram(v.s, c.sc, nil)
		case "checkpoint-action":
			if rest, ok := strings.CutPrefix(v.s, "exec="); ok {
				w.nestedProgram(rest, c.sc, nil)
			}
		}
	}
	setMode := func(ch byte) {
		switch ch {
		case 'x', 'c', 't', 'r', 'u', 'A', 'd':
			mode = ch
		}
	}
	i := 1
	if i < len(argv) && argv[i].s != "" && argv[i].s[0] != '-' && strings.Trim(argv[i].s, "xctruAdvzjJaZfCTXpPkmwOoSWlhBiMRGgKNVLH") == "" {
		// old-style key: tar xzf ARCHIVE
		key := argv[i].s
		i++
		for j := 0; j < len(key); j++ {
			setMode(key[j])
			if strings.IndexByte(valueLetters, key[j]) >= 0 && i < len(argv) {
				handleVal(key[j:j+1], argv[i])
				i++
			}
		}
	}
	long := tarOpts
	for ; i < len(argv); i++ {
		a := argv[i]
		s := a.s
		if s == "--" {
			ops = append(ops, argv[i+1:]...)
			break
		}
		if strings.HasPrefix(s, "--") {
			name, val, eq := strings.Cut(s[2:], "=")
			switch name {
			case "extract", "get":
				mode = 'x'
			case "create":
				mode = 'c'
			case "list":
				mode = 't'
			case "append":
				mode = 'r'
			case "update":
				mode = 'u'
			case "concatenate", "catenate":
				mode = 'A'
			case "delete", "diff", "compare":
				mode = 'd'
			}
			if long.has(name) {
				v := argVal{s: val, dyn: a.dyn}
				if !eq && i+1 < len(argv) {
					i++
					v = argv[i]
				}
				handleVal(name, v)
			}
			continue
		}
		if len(s) > 1 && s[0] == '-' {
			for j := 1; j < len(s); j++ {
				setMode(s[j])
				if strings.IndexByte(valueLetters, s[j]) >= 0 {
					v, next := attachedOrNext(argv, i, j)
					handleVal(s[j:j+1], v)
					i = next - 1
					break
				}
			}
			continue
		}
		ops = append(ops, a)
	}
	archAcc, dirAcc, opAcc := accR, accR, Access(0)
	switch mode {
	case 'c':
		archAcc, opAcc = accW, accR
	case 'r', 'u', 'A':
		archAcc, opAcc = accRW, accR
	case 'x':
		dirAcc = accW
	case 'd':
		archAcc = accRW
	}
	for _, a := range archives {
		if h, ok := scpHost(a.s); ok {
			w.addHost(h)
			continue
		}
		w.argPath(a, c.sc, archAcc, true)
	}
	sc := c.sc
	if cdir != nil {
		abs := w.argPath(*cdir, c.sc, dirAcc, true)
		if abs != "" {
			sc = w.sub(c.sc)
			sc.dir = abs
		}
	}
	if opAcc != 0 {
		defer w.withMode(modeTree)()
		for _, a := range ops {
			w.argPath(a, sc, opAcc, true)
		}
	}
}

func (w *walker) zip(c *cmdCtx) {
	argv := c.argv
	var ops []argVal
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		switch {
		case s == "-x" || s == "-i" || s == "--exclude" || s == "--include":
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1].s, "-") {
				i++
			}
		case s == "-TT" || s == "--unzip-command":
			if i+1 < len(argv) {
				i++
				w.nestedProgram(argv[i].s, c.sc, nil)
			}
		case s == "-O" || s == "--output-file":
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, accW, true)
			}
		case s == "-b" || s == "-n" || s == "-P" || s == "-t" || s == "-tt" || s == "-Z" || s == "-s" || s == "-sb" || s == "--password" || s == "--temp-path":
			i++
		case strings.HasPrefix(s, "-") && len(s) > 1:
		default:
			ops = append(ops, argv[i])
		}
	}
	tree := recursiveFlag(c.argv, "rR", "recurse-paths", "recurse-patterns")
	for k, a := range ops {
		acc := accR
		if k == 0 {
			acc = accRW
		}
		if k > 0 && tree {
			w.treePath(a, c.sc, acc)
			continue
		}
		w.argPath(a, c.sc, acc, true)
	}
}

var unzipOpts = &optSpec{short: "dPxIO"}

var gzipOpts = &optSpec{short: "SoDTLb", long: set("suffix", "output", "dict", "threads")}

var gzipAcc = map[string]Access{"o": accW, "output": accW, "D": accR}

var tarOpts = set("file", "directory", "files-from", "exclude-from", "use-compress-program", "info-script", "new-volume-script",
	"to-command", "rsh-command", "rmt-command", "checkpoint-action", "exclude", "transform", "xform", "owner", "group",
	"mode", "mtime", "newer", "newer-mtime", "label", "blocking-factor", "record-size", "tape-length", "format", "strip-components", "suffix")
