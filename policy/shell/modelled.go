package shell

import (
	"strings"
	"sync"
)

// modelledProgs are programs whose every operand's role the analyzer knows
// whatever their arguments: a path spelled in their words that no handler
// recorded is data (echo ~/.ssh/id_rsa prints a name, it opens nothing).
// Programs whose modelling depends on the arguments (git's subcommands, sh
// with -c, awk without system()) set cmdCtx.modelled in their handler. Built on first use, like fileProgs.
var modelledProgs = sync.OnceValue(func() map[string]bool {
	m := set(
		// text out: operands are data
		"echo", "printf", "true", "false", ":", "yes", "seq", "expr", "date", "sleep", "basename", "dirname",
		// tests and names: operands are expressions, names, numbers
		"test", "[", "[[", "exit", "return", "shift", "let", "which", "type", "whereis", "hash", "kill", "pkill",
		"killall", "pgrep", "id", "whoami", "uname", "hostname", "unset", "set", "shopt", "ulimit", "umask", "wait",
		"jobs", "fg", "bg", "disown", "getopts", "history", "help", "apropos", "alias", "cd", "pushd", "popd",
		"export", "declare", "typeset", "local", "readonly", "setenv", "printenv",
		// handlers that record every operand (paths, patterns, filters, runs)
		"grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep", "jq", "gojq", "jaq", "tee", "uniq", "cp", "mv",
		"install", "ln", "link", "dd", "chmod", "chown", "chgrp", "chattr", "mknod", "tar", "zip", "unzip", "gzip",
		"base64", "gbase64", "xxd", "rev", "find", "eval", "trap", "source", ".", "watch", "script", "at", "batch",
		"crontab",
	).toMap()
	for name := range fileProgs() {
		m[name] = true
	}
	return m
})

// installsFromURL raises download-exec for a package manager installing
// from a URL or a VCS spec: installing runs the package's own code (setup
// scripts, lifecycle scripts, the binary npx starts) fetched from there.
func (w *walker) installsFromURL(c *cmdCtx) {
	argv := c.argv
	if len(argv) < 2 {
		return
	}
	start := 1
	switch c.prog {
	case "pip", "pip3":
		if argv[1].s != "install" {
			return
		}
		start = 2
	case "npm", "yarn", "pnpm", "bun":
		switch argv[1].s {
		case "install", "i", "add", "dlx", "exec", "x":
		default:
			return
		}
		start = 2
	}
	skip := false
	for _, a := range argv[start:] {
		s := strings.ToLower(a.s)
		if skip {
			// the value of a source option (--registry URL, --index-url
			// URL) is where packages come from, not a package: packageSource
			// judges it
			skip = false
			continue
		}
		if strings.HasPrefix(s, "-") {
			skip = sourceOpt(s) && !strings.Contains(s, "=")
			continue
		}
		if forgeInstall(c.prog, argv[1].s, s) {
			continue
		}
		for _, p := range []string{"git+", "hg+", "svn+", "bzr+", "http://", "https://", "git://", "github:", "gitlab:", "bitbucket:"} {
			if strings.HasPrefix(s, p) || strings.Contains(s, "@"+p) || strings.Contains(s, " @ "+p) {
				w.signal(SignalDownloadExec, c.sc.detail())
				return
			}
		}
	}
}

// forgeCLI handles gh, glab and hub: --body, --title, --message and the
// like are prose; --body-file FILE and -F key=@FILE read a file; other
// path-shaped operands are read as any program's.
func (w *walker) forgeCLI(c *cmdCtx) flow {
	argv := c.argv
	for k := 1; k < len(argv); k++ {
		s := argv[k].s
		name, val, eq := strings.Cut(s, "=")
		switch name {
		case "--body-file", "-F", "--field", "--input", "--description-file", "--notes-file", "-f", "--raw-field":
			if !eq {
				if k+1 >= len(argv) {
					continue
				}
				k++
				val = argv[k].s
			}
			if name == "--body-file" || name == "--input" || name == "--description-file" || name == "--notes-file" {
				w.argPath(argVal{s: val, dyn: argv[k].dyn}, c.sc, accR, true)
			} else if _, v, ok := strings.Cut(val, "=@"); ok && (name == "-F" || name == "--field") {
				w.argPath(argVal{s: v, dyn: argv[k].dyn}, c.sc, accR, true)
			}
		case "--body", "-b", "--title", "-t", "--message", "-m", "--description", "-d", "--notes", "-n", "--comment", "--subject":
			if !eq {
				k++
			}
		default:
			if !strings.HasPrefix(s, "-") {
				w.argPath(argv[k], c.sc, accR, false)
			}
		}
	}
	c.modelled = true
	return flow{}
}

// nameProgFiles records the files of programs whose operands are otherwise
// names: date -f FILE and -r FILE, hostname -F FILE (read), history -r/-n
// FILE (read) and -w/-a FILE (write).
func (w *walker) nameProgFiles(c *cmdCtx) {
	argv := c.argv
	for k := 1; k < len(argv); k++ {
		s := argv[k].s
		name, val, eq := strings.Cut(s, "=")
		acc := Access(0)
		switch {
		case c.prog == "date" && (name == "-f" || name == "--file" || name == "-r" || name == "--reference"),
			c.prog == "hostname" && (name == "-F" || name == "--file"),
			c.prog == "history" && (name == "-r" || name == "-n"):
			acc = accR
		case c.prog == "history" && (name == "-w" || name == "-a"):
			acc = accW
		case c.prog == "date" && len(s) > 2 && s[0] == '-' && s[1] != '-' && (s[1] == 'f' || s[1] == 'r'):
			w.argPath(argVal{s: s[2:], dyn: argv[k].dyn}, c.sc, accR, true)
			continue
		default:
			continue
		}
		v := argVal{s: val, dyn: argv[k].dyn}
		if !eq {
			if k+1 >= len(argv) {
				continue
			}
			k++
			v = argv[k]
		}
		w.argPath(v, c.sc, acc, true)
	}
}
