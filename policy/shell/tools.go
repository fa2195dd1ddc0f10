package shell

import (
	"path"
	"strings"
)

func (w *walker) git(c *cmdCtx) {
	argv := c.argv
	i := 1
	sc := c.sc
	var dirArg *argVal
	execDir := ""
	for i < len(argv) {
		s := argv[i].s
		if len(s) < 2 || s[0] != '-' {
			break
		}
		switch {
		case s == "-C":
			if i+1 < len(argv) {
				i++
				dirArg = &argv[i]
				if abs, ok := w.resolve(argv[i].s, sc.dir); ok {
					sc = w.sub(sc)
					sc.dir = abs
				}
			}
		case s == "-c":
			if i+1 < len(argv) {
				i++
				if k, v, ok := strings.Cut(argv[i].s, "="); ok {
					w.gitConfigRun(k, argVal{s: v, dyn: argv[i].dyn, dl: argv[i].dl}, sc)
				}
			}
		case s == "--git-dir" || s == "--work-tree" || s == "--namespace":
			i++
		case strings.HasPrefix(s, "--exec-path="):
			// git runs its subcommands as DIR/git-SUB
			w.execPath(argVal{s: s[len("--exec-path="):], dyn: argv[i].dyn}, sc)
			if abs, ok := w.resolve(s[len("--exec-path="):], sc.dir); ok {
				execDir = abs
			}
		case strings.HasPrefix(s, "--git-dir=") || strings.HasPrefix(s, "--work-tree="):
			_, v, _ := strings.Cut(s, "=")
			w.argPath(argVal{s: v, dyn: argv[i].dyn}, sc, accRW, true)
		}
		i++
	}
	sub := ""
	if i < len(argv) {
		sub = argv[i].s
		i++
	}
	if dirArg != nil {
		acc := accRW
		switch sub {
		case "status", "log", "diff", "show", "grep", "blame", "ls-files", "rev-parse", "describe", "shortlog", "ls-tree", "cat-file", "branch", "remote", "config":
			acc = accR
		}
		w.argPath(*dirArg, c.sc, acc, true)
	}
	gc := &cmdCtx{prog: "git", argv: argv[i-1:], sc: sc, in: c.in}
	if sub == "" {
		return
	}
	if execDir != "" {
		// git SUB runs EXEC_PATH/git-SUB with the rest of the arguments
		// when SUB is not built in: a program linked there runs as itself
		prog := path.Join(execDir, "git-"+sub)
		if w.progLinks[prog] != "" {
			w.classify(append([]argVal{{s: prog}}, gc.argv[1:]...), sc, c.in)
			return
		}
	}
	if gitModelled.has(sub) {
		c.modelled = true
	}
	w.gitRuns(gc, sub)
	switch sub {
	case "commit":
		sp := commitOpts
		scanOpts(gc.argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				w.argPath(o.val, sc, accR, false)
			case "F", "file", "t", "template", "pathspec-from-file":
				w.argPath(o.val, sc, accR, true)
			}
			return true
		})
	case "clone":
		sp := cloneOpts
		n := 0
		remote, dest := "", ""
		scanOpts(gc.argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if n == 0 {
					w.remoteHost(o.val.s)
					remote = o.val.s
				} else {
					dest = w.argPath(o.val, sc, accW, true)
				}
				n++
			case "u", "upload-pack":
				w.nestedProgram(o.val.s, sc, nil)
			case "c", "config":
				if k, v, ok := strings.Cut(o.val.s, "="); ok {
					w.gitConfigRun(k, argVal{s: v, dyn: o.val.dyn, dl: o.val.dl}, sc)
				}
			case "template", "reference", "separate-git-dir":
				w.argPath(o.val, sc, accR, true)
			}
			return true
		})
		// the destination is filled from the remote: a file run from it
		// later in the command runs downloaded bytes
		if isRemoteRepo(remote) {
			if dest == "" {
				name := strings.TrimSuffix(path.Base(strings.TrimRight(remote, "/")), ".git")
				if name != "" && name != "." && name != "/" {
					dest = path.Join(sc.dir, name)
				}
			}
			if dest != "" {
				w.dlDirs = append(w.dlDirs, dest)
				w.sawDownload = true
			}
		}
	case "push", "pull", "fetch", "ls-remote", "remote", "submodule":
		for _, a := range gc.argv[1:] {
			if !strings.HasPrefix(a.s, "-") {
				w.remoteHost(a.s)
			}
		}
	case "clean":
		// git clean deletes untracked files and opens none: its operands
		// are pathspecs it deletes under, -e/--exclude a pattern of names
		// it keeps (git clean -fdx -e .env reads no .env)
		for k := 1; k < len(gc.argv); k++ {
			s := gc.argv[k].s
			switch {
			case s == "-e" || s == "--exclude":
				k++
			case s == "--", strings.HasPrefix(s, "-"):
			default:
				w.argPath(gc.argv[k], sc, accW, false)
			}
		}
	case "rm", "mv", "checkout", "restore":
		if sub != "rm" && sub != "mv" {
			// rm and mv change the index and the tree; the content of
			// the files they name reaches no output (git rm --cached .env)
			w.generic(&cmdCtx{prog: "git", argv: gc.argv, sc: sc}, 1)
		}
		after := false
		for _, a := range gc.argv[1:] {
			if a.s == "--" {
				after = true
				continue
			}
			if after || sub == "rm" || sub == "mv" {
				if !strings.HasPrefix(a.s, "-") {
					w.argPath(a, sc, accW, false)
				}
			}
		}
	case "grep":
		w.grep(gc)
	case "apply", "am":
		w.files(gc, &fileProg{acc: accR, opts: applyOpts})
	case "check-ignore", "check-attr":
		// the names are matched against ignore and attribute rules only
		defer w.withMode(modeNames)()
		w.generic(gc, 1)
	case "config", "branch", "tag", "log", "show", "stash", "reset", "rebase", "merge", "cherry-pick", "revert", "switch", "init", "status":
		// operands are refs, names and messages, not files
		if sub == "log" || sub == "show" || sub == "status" || sub == "init" {
			w.generic(gc, 1)
		}
		if sub == "show" || sub == "cat-file" {
			w.revPaths(gc)
		}
	default:
		w.generic(gc, 1)
	}
}

func (w *walker) vim(c *cmdCtx) {
	argv := c.argv
	sp := vimOpts
	for _, a := range argv[1:] {
		if a.s == "-es" || a.s == "-Es" || a.s == "-e" || a.s == "-E" {
			sp = vimExOpts // in Ex mode -s is silent, not a script to read
			break
		}
	}
	scanOpts(argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			if strings.HasPrefix(o.val.s, "+") {
				if len(o.val.s) > 1 {
					v := argVal{s: o.val.s[1:], dyn: o.val.dyn, dl: o.val.dl}
					w.embedded(v, c.sc)
					w.langRuns("vim", v, c.sc)
				}
				return true
			}
			w.argPath(o.val, c.sc, accRW, true)
		case "c", "cmd":
			w.embedded(o.val, c.sc)
			w.langRuns("vim", o.val, c.sc)
		case "S", "u", "U":
			w.argPath(o.val, c.sc, accRX, true)
		case "s", "q":
			w.argPath(o.val, c.sc, accR, true)
		case "w", "W", "startuptime", "log":
			w.argPath(o.val, c.sc, accW, true)
		case "i":
			w.argPath(o.val, c.sc, accRW, true)
		}
		return true
	})
}

func (w *walker) emacs(c *cmdCtx) {
	sp := emacsOpts
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			if !strings.HasPrefix(o.val.s, "+") {
				w.argPath(o.val, c.sc, accRW, true)
			}
		case "eval", "execute":
			w.embedded(o.val, c.sc)
			w.codeRunsIn("elisp", o.val.s, c.sc)
		case "l", "load", "script":
			w.argPath(o.val, c.sc, accRX, true)
		case "file", "visit", "find-file", "insert":
			w.argPath(o.val, c.sc, accRW, true)
		}
		return true
	})
}

func (w *walker) openssl(c *cmdCtx) flow {
	if hasArg(c.argv, "-pubout") {
		// the key is opened, only its public half is printed
		defer w.withMode(modeNames)()
	}
	sp := opensslOpts
	var f flow
	sub := ""
	first := true
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			if first {
				first = false
				sub = o.val.s
				return true
			}
			if !isDigits(o.val.s) {
				w.argPath(o.val, c.sc, accR, true)
			}
		case "in", "key", "inkey", "signkey", "CAfile", "CApath", "cert", "CAkey", "certfile", "config", "extfile", "rand",
			"untrusted", "CRL", "crl", "verify", "prverify", "sign", "signature", "kfile", "keyfile", "trusted", "sess_in":
			w.argPath(o.val, c.sc, accR, true)
		case "out", "keyout", "writerand", "out_trusted", "sess_out", "keylogfile", "msgfile":
			w.argPath(o.val, c.sc, accW, true)
		case "passin", "passout", "pass", "kfile_pass":
			if p, ok := strings.CutPrefix(o.val.s, "file:"); ok {
				w.argPath(argVal{s: p, dyn: o.val.dyn}, c.sc, accR, true)
			}
		case "connect", "host", "proxy":
			if h := hostPart(o.val.s); h != "" {
				w.addHost(h)
			}
		}
		return true
	})
	if sub == "s_client" {
		f.bits |= flowConnector | flowNet
		w.netcatDetail = c.sc.detail()
	}
	return f
}

func (w *walker) sshKeygen(c *cmdCtx) {
	readOnly := false
	for _, a := range c.argv[1:] {
		s := a.s
		if k := strings.IndexByte(s, 'f'); k > 1 && s[0] == '-' && s[1] != '-' {
			s = s[:k] // -lf KEY: the letters before the valued -f
		}
		if len(s) > 1 && s[0] == '-' && strings.ContainsAny(s[1:], "ylFRBeiLQ") && !strings.ContainsAny(s[1:], "bCEfIJjKmMNnOPrsStVwYzZaD") {
			readOnly = true
		}
	}
	keyAcc := accRW
	if readOnly {
		keyAcc = accR
		if hasFlagLetter(c.argv, "ylLBeF") {
			// -y, -l, -e … print a public key, a fingerprint or a host
			// entry: the private half never reaches the output
			defer w.withMode(modeNames)()
		}
	}
	sp := sshKeygenOpts
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "f":
			w.argPath(o.val, c.sc, keyAcc, true)
		case "s":
			w.argPath(o.val, c.sc, accR, true)
		case "":
			w.argPath(o.val, c.sc, accR, false)
		}
		return true
	})
}

var findValued = set("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type",
	"-xtype", "-user", "-group", "-perm", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-maxdepth",
	"-mindepth", "-printf", "-fstype", "-inum", "-links", "-uid", "-gid", "-used", "-context", "-lname", "-ilname", "-regextype")

var findWriters = set("rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "mv", "truncate", "srm", "wipe", "dd",
	"tee", "touch", "chattr", "sed", "perl", "ruby", "cp", "install", "ln")

// find records the start points (written when -delete or a writer runs
// under -exec) and classifies every -exec/-execdir/-ok command.
func (w *walker) find(c *cmdCtx) flow {
	argv := c.argv
	i := 1
	for i < len(argv) {
		s := argv[i].s
		if s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") {
			i++
			continue
		}
		if s == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []argVal
	for i < len(argv) {
		s := argv[i].s
		if strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == "," || s == ")" {
			break
		}
		starts = append(starts, argv[i])
		i++
	}
	if len(starts) == 0 {
		starts = []argVal{{s: "."}}
	}
	writes := false
	var inners [][]argVal
	for ; i < len(argv); i++ {
		s := argv[i].s
		switch {
		case s == "-delete":
			writes = true
		case s == "-exec" || s == "-execdir" || s == "-ok" || s == "-okdir":
			j := i + 1
			for j < len(argv) && argv[j].s != ";" && (argv[j].s != "+" || argv[j-1].s != "{}") {
				j++
			}
			if j > i+1 {
				inner := argv[i+1 : j]
				inners = append(inners, inner)
				p := progName(inner[0].s)
				if findWriters.has(p) || progs.has(p) {
					writes = writes || p != "sed" && p != "perl" && p != "ruby" || argsHavePrefix(inner, "-i")
				}
			}
			i = j
		case s == "-fprint" || s == "-fprint0" || s == "-fls" || s == "-fprintf":
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, accW, true)
			}
			if s == "-fprintf" {
				i++
			}
		case s == "-newer" || s == "-anewer" || s == "-cnewer" || s == "-samefile" || s == "-files0-from" ||
			strings.HasPrefix(s, "-newer") && len(s) == len("-newerXY"):
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, accR, true)
			}
		case findValued.has(s):
			i++
		}
	}
	acc := accR
	if writes {
		acc = accRW
	}
	for _, s := range starts {
		w.argPath(s, c.sc, acc, true)
	}
	sel := findSelection(argv, starts)
	var out flow
	for _, inner := range inners {
		if execReads(inner) {
			// the command reads every file find selects: {} is each
			for _, p := range sel {
				w.argPath(p, c.sc, accR, true)
			}
		}
		out.bits |= w.classify(inner, c.sc, flow{}).bits & flowSecret // what -exec prints, find prints (flow.go)
	}
	if len(inners) == 0 {
		names := findNames(sel)
		names.bits |= out.bits
		return names
	}
	return out
}

func argsHavePrefix(argv []argVal, prefix string) bool {
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.s, prefix) {
			return true
		}
	}
	return false
}

var commitOpts = &optSpec{short: "mFCctS", long: set("message", "file", "reuse-message", "reedit-message", "template", "author", "date", "fixup", "squash", "cleanup", "trailer", "pathspec-from-file")}

var cloneOpts = &optSpec{short: "boucj", long: set("branch", "origin", "upload-pack", "config", "depth", "reference", "reference-if-able", "template", "separate-git-dir", "filter", "jobs", "shallow-since", "shallow-exclude", "server-option", "bundle-uri", "ref-format")}

var applyOpts = &optSpec{short: "pC", long: set("directory", "exclude", "include", "whitespace")}

var vimOpts = &optSpec{short: "cSuUiTtsqwWo", long: set("cmd", "servername", "startuptime", "log")}

var vimExOpts = &optSpec{short: "cSuUiTtqwWo", long: set("cmd", "servername", "startuptime", "log")}

var emacsOpts = &optSpec{short: "lfLdt", long: set("eval", "load", "funcall", "directory", "execute", "file", "visit", "insert", "find-file", "chdir", "script", "socket-name", "server-file", "alternate-editor")}

var opensslOpts = &optSpec{oneDash: true, long: set("in", "out", "key", "inkey", "signkey", "CAfile", "CApath", "cert", "CAkey", "certfile",
	"config", "extfile", "extensions", "keyout", "passin", "passout", "pass", "connect", "servername", "host", "port", "proxy",
	"subj", "days", "newkey", "md", "k", "K", "iv", "S", "name", "set_serial", "sigopt", "pkeyopt", "keyform", "inform",
	"outform", "certform", "reqexts", "section", "rand", "writerand", "untrusted", "CRL", "verify", "prverify", "sign",
	"signature", "kdf", "kdfopt", "macopt", "mac", "nameopt", "certopt", "ext", "addext", "reqopt", "digest", "accept",
	"kfile", "keyfile", "out_trusted", "trusted", "crl", "nextprotoneg", "alpn", "starttls", "sess_out", "sess_in", "keylogfile", "msgfile")}

var sshKeygenOpts = &optSpec{short: "bCEFfIJjKmMNnOPrsStVwYzZaD"}

// isRemoteRepo reports a clone source that is another machine's: a URL
// or scp-like host:path, not a local directory.
func isRemoteRepo(s string) bool {
	if strings.Contains(s, "://") {
		return !strings.HasPrefix(s, "file://")
	}
	host, _, ok := strings.Cut(s, ":")
	// C:/repo is a drive letter, not a host
	return ok && len(host) > 1 && !strings.ContainsAny(host, "/\\") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, ".")
}
