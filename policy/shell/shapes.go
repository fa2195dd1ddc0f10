package shell

import (
	"path"
	"strings"
	"sync"
)

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
	case "ls", "dir", "vdir", "stat", "exa", "eza", "lsd", "lsattr", "getfacl", "namei":
		return true
	case "wc", "du":
		// counts and sizes; but the names read from a --files0-from file
		// come back in the output (and in its error messages)
		return !longOpt(c.argv, "--files0-from", 3)
	case "tree":
		// --fromfile prints a listing read from the files (or stdin)
		return !longOpt(c.argv, "--fromfile", 6) && !longOpt(c.argv, "--fromtabfile", 6)
	case "age-keygen":
		return hasArg(c.argv, "-y")
	}
	return false
}

// longOpt reports whether argv holds the long option long, or an
// abbreviation of it of at least min bytes as getopt_long takes
// (--files0 for --files0-from), with or without "=value".
func longOpt(argv []argVal, long string, min int) bool {
	for _, a := range argv[1:] {
		name, _, _ := strings.Cut(a.s, "=")
		if len(name) >= min && strings.HasPrefix(long, name) {
			return true
		}
	}
	return false
}

func hasArg(argv []argVal, w string) bool {
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
		acc := AccessRead
		if cp.Del {
			acc = AccessWrite
		}
		w.addPathMode(cp.Path, abs, acc, mode)
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

// revPaths records the committed files `git show REV:PATH` prints: the
// content of PATH as of REV, read from the repository.
func (w *walker) revPaths(c *cmdCtx) {
	for _, a := range c.argv[1:] {
		s := a.s
		if strings.HasPrefix(s, "-") || strings.Contains(s, "://") {
			continue
		}
		if _, p, ok := strings.Cut(s, ":"); ok && p != "" {
			p = strings.TrimPrefix(p, "./")
			w.argPath(argVal{s: p, dyn: a.dyn}, c.sc, accR, true)
		}
	}
}

// homeVarDefaults are the documented defaults of variables that name a
// file or directory in the home, relative to it.
var homeVarDefaults = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"HISTFILE":                    "/.bash_history",
		"XDG_CONFIG_HOME":             "/.config",
		"XDG_DATA_HOME":               "/.local/share",
		"XDG_STATE_HOME":              "/.local/state",
		"APPDATA":                     "/AppData/Roaming",
		"LOCALAPPDATA":                "/AppData/Local",
		"USERPROFILE":                 "",
		"KUBECONFIG":                  "/.kube/config",
		"AWS_SHARED_CREDENTIALS_FILE": "/.aws/credentials",
		"AWS_CONFIG_FILE":             "/.aws/config",
		"GNUPGHOME":                   "/.gnupg",
		"DOCKER_CONFIG":               "/.docker",
		"CLOUDSDK_CONFIG":             "/.config/gcloud",
		"NPM_CONFIG_USERCONFIG":       "/.npmrc",
		// credential files' variables, each with the place its reader falls back to
		"GOOGLE_APPLICATION_CREDENTIALS": "/.config/gcloud/application_default_credentials.json", // https://cloud.google.com/docs/authentication/application-default-credentials
		"NETRC":                          "/.netrc",                                              // curl --netrc, git, python netrc
		"PGPASSFILE":                     "/.pgpass",                                             // https://www.postgresql.org/docs/current/libpq-pgpass.html
		"GH_CONFIG_DIR":                  "/.config/gh",                                          // https://cli.github.com/manual/gh_help_environment
		"AZURE_CONFIG_DIR":               "/.azure",                                              // https://learn.microsoft.com/en-us/cli/azure/azure-cli-configuration
		"TF_CLI_CONFIG_FILE":             "/.terraformrc",                                        // https://developer.hashicorp.com/terraform/cli/config/config-file
		"CARGO_HOME":                     "/.cargo",                                              // https://doc.rust-lang.org/cargo/guide/cargo-home.html
		"GRADLE_USER_HOME":               "/.gradle",                                             // https://docs.gradle.org/current/userguide/directory_layout.html
	}
})

// runnerFileDefaults are where GitHub's runner puts the files GITHUB_ENV,
// GITHUB_OUTPUT and GITHUB_STATE name (RUNNER_TEMP on a hosted runner; a
// GUID follows the kind). The shape is what the forbids judge.
var runnerFileDefaults = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"GITHUB_ENV":    "/home/runner/work/_temp/_runner_file_commands/set_env_0",
		"GITHUB_OUTPUT": "/home/runner/work/_temp/_runner_file_commands/set_output_0",
		"GITHUB_STATE":  "/home/runner/work/_temp/_runner_file_commands/save_state_0",
	}
})

// debugsProfile reports a Chromium-family browser started with a DevTools
// port or pipe: its --user-data-dir is read whole by whoever connects.
func debugsProfile(c *cmdCtx) bool {
	p := strings.ToLower(c.prog)
	if !strings.Contains(p, "chrom") && !strings.Contains(p, "edge") && !strings.Contains(p, "brave") &&
		!strings.Contains(p, "opera") && !strings.Contains(p, "vivaldi") {
		return false
	}
	for _, a := range c.argv[1:] {
		if strings.HasPrefix(a.s, "--remote-debugging-port") || strings.HasPrefix(a.s, "--remote-debugging-pipe") {
			return true
		}
	}
	return false
}

// sevenZip handles 7z's a (add) and u (update): the operands after the
// archive are trees it reads; x/e write under -o.
func (w *walker) sevenZip(c *cmdCtx) {
	var ops []argVal
	for _, a := range c.argv[1:] {
		if strings.HasPrefix(a.s, "-") {
			if o, ok := strings.CutPrefix(a.s, "-o"); ok && o != "" {
				w.argPath(argVal{s: o, dyn: a.dyn}, c.sc, accW, true)
			}
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) == 0 {
		return
	}
	cmd, ops := ops[0].s, ops[1:]
	for k, a := range ops {
		switch {
		case k == 0 && (cmd == "a" || cmd == "u" || cmd == "d"):
			w.argPath(a, c.sc, accRW, true)
		case k == 0:
			w.argPath(a, c.sc, accR, true)
		case cmd == "a" || cmd == "u":
			w.treePath(a, c.sc, accR)
		}
	}
}

// findSelection is what find selects, as patterns: START/**/NAME for each
// -name/-iname (alternatives under -o; negated ones ignored), or the tree
// under START when no name narrows it.
func findSelection(argv []argVal, starts []argVal) []argVal {
	var names []string
	neg := false
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		switch s {
		case "!", "-not":
			neg = true
			continue
		case "-name", "-iname":
			if i+1 < len(argv) && !neg {
				names = append(names, argv[i+1].s)
			}
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			for i+1 < len(argv) && argv[i+1].s != ";" && argv[i+1].s != "+" {
				i++
			}
		}
		neg = false
	}
	var out []argVal
	for _, st := range starts {
		base := strings.TrimRight(st.s, "/")
		if base == "" {
			base = "/"
		}
		if len(names) == 0 {
			out = append(out, argVal{s: strings.TrimRight(base, "/") + "/**", glob: true, dyn: st.dyn})
			continue
		}
		for _, n := range names {
			if strings.Contains(n, "/") {
				continue
			}
			out = append(out, argVal{s: strings.TrimRight(base, "/") + "/**/" + n, glob: true, dyn: st.dyn})
		}
	}
	return out
}

// findNames is find's output for the next command: the names it selects,
// as patterns (find ~ -name 'credentials*' | xargs cat reads them).
func findNames(sel []argVal) flow {
	if len(sel) == 0 {
		return flow{}
	}
	parts := make([]string, 0, len(sel))
	for _, a := range sel {
		if a.dyn {
			return flow{}
		}
		parts = append(parts, a.s)
	}
	return flow{text: strings.Join(parts, "\n") + "\n", hasText: true, names: true}
}

// execReads reports whether a find -exec command reads the files it is
// handed, rather than removing, listing or changing them.
func execReads(inner []argVal) bool {
	if len(inner) == 0 {
		return false
	}
	p := progName(inner[0].s)
	switch p {
	case "rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "touch", "ls", "stat", "du", "file", "echo", "printf", "test", "[", "basename", "dirname", "realpath", "readlink", "mv", "ln", "true":
		return false
	}
	return true
}

// locateNames is locate's output: every indexed path holding one of its
// patterns (locate id_ed25519 | xargs cat).
func locateNames(c *cmdCtx) flow {
	var parts []string
	for _, a := range c.argv[1:] {
		s := a.s
		if strings.HasPrefix(s, "-") || s == "" || a.dyn {
			continue
		}
		if !strings.ContainsAny(s, "*?[") {
			s = "*" + s + "*"
		}
		if !strings.HasPrefix(s, "/") {
			s = "/**/" + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return flow{}
	}
	return flow{text: strings.Join(parts, "\n") + "\n", hasText: true, names: true}
}

// globNames is the output of ls given patterns: the names they expand to,
// as patterns (cat $(ls -d ~/.a*)/credentials).
func globNames(c *cmdCtx) flow {
	var parts []string
	for _, a := range c.argv[1:] {
		if a.glob && !a.dyn && !strings.HasPrefix(a.s, "-") {
			abs := a.s
			if !strings.HasPrefix(abs, "/") {
				abs = path.Join(c.sc.dir, abs)
			}
			parts = append(parts, abs)
		}
	}
	if len(parts) == 0 {
		return flow{}
	}
	return flow{text: strings.Join(parts, "\n") + "\n", hasText: true, names: true}
}

// backupTrees: backup tools (restic backup, borg create, duplicity,
// kopia snapshot create …) read the trees they are given and send them
// to a repository.
func (w *walker) backupTrees(c *cmdCtx) {
	for _, a := range c.argv[1:] {
		s := a.s
		if strings.HasPrefix(s, "-") || strings.Contains(s, "::") || strings.Contains(s, "://") {
			continue
		}
		switch s {
		case "backup", "create", "snapshot", "incremental", "full", "init", "copy":
			continue
		}
		if pathLike(s) || s == "~" || s == "." {
			w.treePath(a, c.sc, accR)
		}
	}
}

// stdinNames: archivers that take the names of the files to read on
// stdin (find ~/.ssh | cpio -o) read what the names flow holds.
func (w *walker) stdinNames(c *cmdCtx) {
	out := false
	for _, a := range c.argv[1:] {
		s := a.s
		if s == "-o" || s == "--create" || s == "-w" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s, "ow") {
			out = true
		}
	}
	if !out || !c.in.hasText || !c.in.names {
		return
	}
	for _, l := range strings.Split(c.in.text, "\n") {
		if l != "" {
			w.argPath(argVal{s: l, glob: true}, c.sc, accR, true)
		}
	}
}

// cmdHomeVar expands a leading cmd.exe home variable (%USERPROFILE%,
// %HOMEPATH%, %APPDATA%, %LOCALAPPDATA%) to its default under home.
func cmdHomeVar(s, home string) (string, bool) {
	if home == "" || len(s) < 3 || s[0] != '%' {
		return "", false
	}
	end := strings.IndexByte(s[1:], '%')
	if end < 0 {
		return "", false
	}
	name := strings.ToUpper(s[1 : 1+end])
	rest := strings.ReplaceAll(s[2+end:], "\\", "/")
	switch name {
	case "USERPROFILE", "HOMEPATH", "HOME":
		return home + rest, true
	case "APPDATA":
		return home + "/AppData/Roaming" + rest, true
	case "LOCALAPPDATA":
		return home + "/AppData/Local" + rest, true
	}
	return "", false
}

// goRun: `go run FILE.go …` runs the named source files (a program written
// by this command is judged by its text, like a script).
func (w *walker) goRun(c *cmdCtx) {
	if len(c.argv) < 3 || c.argv[1].s != "run" {
		return
	}
	for _, a := range c.argv[2:] {
		if strings.HasSuffix(a.s, ".go") && !strings.HasPrefix(a.s, "-") {
			w.execPath(a, c.sc)
		}
	}
}

// sedOutputs reports whether a sed script may send file content anywhere
// but the edited file: a w/W command (a file or /dev/stdout), e (runs the
// pattern space), or a script that is not known.
func sedOutputs(scripts []argVal) bool {
	for _, s := range scripts {
		if s.dyn {
			return true
		}
		t := s.s
		for i := 0; i < len(t); i++ {
			switch t[i] {
			case 'w', 'W', 'e':
				// a command letter after a separator or an address, or a
				// flag after s///: be conservative on any of them outside
				// the pattern and replacement text
				if i == 0 || strings.IndexByte(";}/ \t\n0123456789$", t[i-1]) >= 0 {
					return true
				}
			}
		}
	}
	return false
}
