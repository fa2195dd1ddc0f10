package shell

import "strings"

// The shapes of path facts beyond "this one file": names only, trees.

// withMode adds m to the shape of the paths recorded until the returned
// function restores the previous one.
func (w *walker) withMode(m pathMode) func() {
	old := w.mode
	w.mode |= m
	return func() { w.mode = old }
}

// namesOnly reports whether c's operands reach the output only as names
// or metadata: listings, sizes, file types, and key tools that print only
// the public half (age-keygen -y).
func namesOnly(c *cmdCtx) bool {
	switch c.prog {
	case "ls", "dir", "vdir", "stat", "du", "tree", "exa", "eza", "lsd", "lsattr", "getfacl", "namei":
		return true
	case "age-keygen":
		return hasWord(c.argv, "-y")
	}
	return false
}

func hasWord(argv []argVal, w string) bool {
	for _, a := range argv[1:] {
		if a.s == w {
			return true
		}
	}
	return false
}

// hasFlagLetter reports whether a short-option cluster holds one of letters.
func hasFlagLetter(argv []argVal, letters string) bool {
	for _, a := range argv[1:] {
		s := a.s
		if len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s[1:], letters) {
			return true
		}
	}
	return false
}

// recursiveFlag reports whether argv holds one of the short letters in a
// cluster or one of the long names: the operands are trees.
func recursiveFlag(argv []argVal, letters string, long ...string) bool {
	for _, a := range argv[1:] {
		s := a.s
		if s == "--" {
			return false
		}
		if strings.HasPrefix(s, "--") {
			name, _, _ := strings.Cut(s[2:], "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			continue
		}
		if letters != "" && len(s) > 1 && s[0] == '-' && strings.ContainsAny(s[1:], letters) {
			return true
		}
	}
	return false
}

// globMeta reports whether v[i] is an unquoted pattern character: '*',
// '?', or a '[' with a ']' after it.
func globMeta(v string, i int) bool {
	switch v[i] {
	case '*', '?':
		return true
	case '[':
		return strings.IndexByte(v[i+1:], ']') >= 0
	}
	return false
}

// hasGlobMeta reports whether the unquoted, escape-free literal v holds a
// pattern character.
func hasGlobMeta(v string) bool {
	for i := 0; i < len(v); i++ {
		if globMeta(v, i) {
			return true
		}
	}
	return false
}

// treePath records a operand whose whole tree is read (cp -r, zip -r,
// rsync -a, scp -r). It returns the absolute path, or "".
func (w *walker) treePath(a argVal, sc *scope, acc Access) string {
	defer w.withMode(modeTree)()
	return w.argPath(a, sc, acc, true)
}

// searchTrees records what a recursive search reads: every operand's tree
// (the directory it runs in when none is given), or, with --include /
// --glob patterns, only the names they select under each tree.
func (w *walker) searchTrees(ops, includes []argVal, sc *scope) {
	if len(ops) == 0 {
		ops = []argVal{{s: "."}}
	}
	for _, op := range ops {
		if len(includes) == 0 {
			w.treePath(op, sc, accR)
			continue
		}
		func() {
			// the directory itself: its names are listed, its content is
			// read only through the patterns below
			defer w.withMode(modeNames)()
			w.argPath(op, sc, accR, true)
		}()
		for _, inc := range includes {
			p := inc.s
			if !strings.Contains(p, "/") {
				p = "**/" + p
			}
			base := strings.TrimRight(op.s, "/")
			if base == "" {
				base = "/"
			}
			w.argPath(argVal{s: base + "/" + p, glob: true, dyn: op.dyn || inc.dyn}, sc, accR, true)
		}
	}
}

// foldedPaths records the paths interpreter code builds (FoldCodePaths) as
// reads from the command's directory.
func (w *walker) foldedPaths(code string, sc *scope) {
	for _, cp := range FoldCodePaths(code, w.home) {
		abs, ok := w.resolve(cp.Path, sc.dir)
		if !ok {
			continue
		}
		mode := w.mode
		if cp.Glob {
			mode |= modeGlob
		}
		if cp.Tree {
			mode |= modeTree
		}
		w.addPathMode(cp.Path, abs, AccessRead, mode)
	}
}

// envFiles records the env files a runtime loads before the program:
// node/bun/deno --env-file, and node -r dotenv/config (./.env).
func (w *walker) envFiles(c *cmdCtx) {
	switch c.prog {
	case "node", "bun", "deno":
	default:
		return
	}
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		name, val, eq := strings.Cut(s, "=")
		switch name {
		case "--env-file", "--env-file-if-exists":
			if !eq && i+1 < len(argv) {
				i++
				val = argv[i].s
			}
			w.argPath(argVal{s: val, dyn: argv[i].dyn}, c.sc, accR, true)
		case "-r", "--require", "--import":
			if !eq && i+1 < len(argv) {
				i++
				val = argv[i].s
			}
			if val == "dotenv/config" || val == "dotenv/config.js" || val == "@dotenvx/dotenvx/config" {
				w.argPath(argVal{s: ".env"}, c.sc, accR, true)
			}
		}
	}
}
