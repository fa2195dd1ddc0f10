package shell

import (
	"path"
	"strings"
	"sync"
)

// fileProg describes a program whose operands are files.
type fileProg struct {
	acc      Access
	opts     *optSpec
	optAcc   map[string]Access // option values that are paths
	maxFiles int               // operands after this many are not files (0: all are)
	pathOnly bool              // only path-shaped operands are files (mkfs, fdisk …)
	pass     bool              // copies stdin to stdout when given no file
	fifo     bool              // creates a fifo
}

var (
	accR  = AccessRead
	accW  = AccessWrite
	accRW = AccessRead | AccessWrite
	accRX = AccessRead | AccessExec
)

// fileProgs is built on the first shell command, not at start-up: a
// hook process deciding a Read never pays for it.
var fileProgs = sync.OnceValue(func() map[string]*fileProg {
	return map[string]*fileProg{
		"cat":        {acc: accR, pass: true, opts: &optSpec{}},
		"tac":        {acc: accR, pass: true, opts: &optSpec{short: "s", long: set("separator")}},
		"zcat":       {acc: accR, opts: &optSpec{}},
		"less":       {acc: accR, opts: &optSpec{short: "bhjkoOpPtTxyz#", long: set("log-file", "LOG-FILE", "pattern", "tag", "tabs", "shift", "prompt", "jump-target", "window", "max-back-scroll", "max-forw-scroll")}, optAcc: map[string]Access{"o": accW, "O": accW, "log-file": accW, "LOG-FILE": accW}},
		"more":       {acc: accR, opts: &optSpec{short: "n", long: set("lines")}},
		"most":       {acc: accR, opts: &optSpec{}},
		"head":       {acc: accR, opts: &optSpec{short: "nc", long: set("lines", "bytes")}},
		"tail":       {acc: accR, opts: &optSpec{short: "ncs", long: set("lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats")}},
		"bat":        {acc: accR, opts: &optSpec{short: "lmrH", long: set("language", "map-syntax", "line-range", "highlight-line", "theme", "style", "tabs", "wrap", "terminal-width", "paging", "pager", "decorations", "color", "italic-text", "file-name", "diff-context", "ignored-suffix")}},
		"batcat":     {acc: accR, opts: &optSpec{short: "lmrH", long: set("language", "map-syntax", "line-range", "highlight-line", "theme", "style", "tabs", "wrap", "terminal-width", "paging", "pager", "decorations", "color", "file-name")}},
		"nl":         {acc: accR, opts: &optSpec{short: "bdfhilnsvw"}},
		"od":         {acc: accR, opts: &optSpec{short: "AjNtwS", long: set("address-radix", "skip-bytes", "read-bytes", "format", "width", "strings", "endian")}},
		"hexdump":    {acc: accR, opts: &optSpec{short: "efns"}, optAcc: map[string]Access{"f": accR}},
		"hd":         {acc: accR, opts: &optSpec{short: "efns"}, optAcc: map[string]Access{"f": accR}},
		"strings":    {acc: accR, opts: &optSpec{short: "ntTe", long: set("bytes", "radix", "encoding", "target", "output-separator")}},
		"file":       {acc: accR, opts: &optSpec{short: "mfFeP", long: set("magic-file", "files-from", "separator", "exclude", "parameter")}, optAcc: map[string]Access{"m": accR, "f": accR, "magic-file": accR, "files-from": accR}},
		"stat":       {acc: accR, opts: &optSpec{short: "ct", long: set("format", "printf")}},
		"wc":         {acc: accR, opts: &optSpec{}, optAcc: map[string]Access{"files0-from": accR}},
		"sort":       {acc: accR, opts: &optSpec{short: "kotTS", long: set("key", "output", "field-separator", "temporary-directory", "buffer-size", "files0-from", "parallel", "batch-size", "compress-program", "random-source", "sort")}, optAcc: map[string]Access{"o": accW, "output": accW, "files0-from": accR, "random-source": accR}},
		"diff":       {acc: accR, opts: &optSpec{short: "xXILFCUWDS", long: set("exclude", "exclude-from", "ignore-matching-lines", "label", "show-function-line", "context", "unified", "width", "ifdef", "starting-file", "from-file", "to-file", "tabsize", "color", "palette", "line-format", "old-line-format", "new-line-format", "unchanged-line-format", "group-format", "horizon-lines")}, optAcc: map[string]Access{"X": accR, "exclude-from": accR, "from-file": accR, "to-file": accR}},
		"diff3":      {acc: accR, opts: &optSpec{short: "L", long: set("label", "diff-program")}},
		"sdiff":      {acc: accR, opts: &optSpec{short: "oIw", long: set("output", "ignore-matching-lines", "width", "diff-program")}, optAcc: map[string]Access{"o": accW, "output": accW}},
		"cmp":        {acc: accR, opts: &optSpec{short: "in", long: set("ignore-initial", "bytes")}},
		"comm":       {acc: accR, opts: &optSpec{long: set("output-delimiter")}},
		"join":       {acc: accR, opts: &optSpec{short: "12teoajv"}},
		"paste":      {acc: accR, opts: &optSpec{short: "d", long: set("delimiters")}},
		"cut":        {acc: accR, opts: &optSpec{short: "bcdf", long: set("bytes", "characters", "delimiter", "fields", "output-delimiter")}},
		"fold":       {acc: accR, opts: &optSpec{short: "w", long: set("width")}},
		"fmt":        {acc: accR, opts: &optSpec{short: "wpgd", long: set("width", "prefix", "goal")}},
		"pr":         {acc: accR, opts: &optSpec{short: "eilnNosSwW", long: set("header", "columns", "width", "page-width", "indent", "first-line-number", "sep-string", "separator")}},
		"column":     {acc: accR, opts: &optSpec{short: "csoNRHWETdlC", long: set("columns", "separator", "output-separator", "table-columns", "table-right", "table-hide", "table-wrap", "table-empty-lines", "table-order", "table-name", "tree", "tree-id", "tree-parent")}},
		"iconv":      {acc: accR, opts: &optSpec{short: "fto", long: set("from-code", "to-code", "output")}, optAcc: map[string]Access{"o": accW, "output": accW}},
		"sha256sum":  {acc: accR, opts: &optSpec{short: "a", long: set("algorithm")}},
		"open":       {acc: accR, opts: &optSpec{short: "abu", long: set("env", "stdin", "stdout", "stderr", "arch")}},
		"xdg-open":   {acc: accR, opts: &optSpec{}},
		"code":       {acc: accR, opts: &optSpec{short: "gdm", long: set("goto", "diff", "merge", "user-data-dir", "extensions-dir", "profile", "locale", "install-extension", "uninstall-extension")}},
		"cursor":     {acc: accR, opts: &optSpec{short: "g", long: set("goto", "user-data-dir", "profile")}},
		"subl":       {acc: accR, opts: &optSpec{}},
		"nano":       {acc: accRW, opts: &optSpec{short: "TXoQrYsEJ", long: set("tabsize", "wordchars", "operatingdir", "quotestr", "fill", "syntax", "speller", "guidestripe")}},
		"readlink":   {acc: accR, opts: &optSpec{}},
		"realpath":   {acc: accR, opts: &optSpec{long: set("relative-to", "relative-base")}},
		"gpg":        {acc: accR, opts: &optSpec{short: "oruRk", long: set("output", "recipient", "local-user", "hidden-recipient", "homedir", "default-key", "passphrase", "passphrase-file", "passphrase-fd", "keyserver", "trust-model", "cipher-algo", "digest-algo", "compress-algo", "comment", "set-filename", "keyring", "secret-keyring", "trustdb-name", "pinentry-mode", "export-options", "import-options")}, optAcc: map[string]Access{"o": accW, "output": accW, "passphrase-file": accR, "homedir": accR, "keyring": accR, "secret-keyring": accR}},
		"ssh-add":    {acc: accR, opts: &optSpec{short: "tsSeEHh"}, optAcc: map[string]Access{"H": accR}},
		"crontab":    {acc: accR, opts: &optSpec{short: "uc"}},
		"sqlite3":    {acc: accRW, maxFiles: 1, opts: &optSpec{short: "", long: set("cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap", "lookaside", "pagecache", "heap", "maxsize")}, optAcc: map[string]Access{"init": accRX}},
		"split":      {acc: accR, maxFiles: 1, opts: &optSpec{short: "lbCnat", long: set("lines", "bytes", "line-bytes", "number", "suffix-length", "additional-suffix", "separator", "filter")}},
		"csplit":     {acc: accR, maxFiles: 1, opts: &optSpec{short: "fbn", long: set("prefix", "suffix-format", "digits")}},
		"patch":      {acc: accRW, opts: &optSpec{short: "iopdBrDFVYzg", long: set("input", "output", "strip", "directory", "prefix", "reject-file", "ifdef", "fuzz", "version-control", "basename-prefix", "suffix", "get")}, optAcc: map[string]Access{"i": accR, "input": accR, "o": accW, "output": accW, "r": accW, "reject-file": accW}},
		"dos2unix":   {acc: accRW, opts: &optSpec{}},
		"unix2dos":   {acc: accRW, opts: &optSpec{}},
		"sponge":     {acc: accW, opts: &optSpec{}},
		"rm":         {acc: accW, opts: &optSpec{}},
		"unlink":     {acc: accW, opts: &optSpec{}},
		"rmdir":      {acc: accW, opts: &optSpec{}},
		"srm":        {acc: accW, opts: &optSpec{}},
		"wipe":       {acc: accW, opts: &optSpec{}},
		"shred":      {acc: accW, opts: &optSpec{short: "ns", long: set("iterations", "size", "random-source")}, optAcc: map[string]Access{"random-source": accR}},
		"truncate":   {acc: accW, opts: &optSpec{short: "sr", long: set("size", "reference")}, optAcc: map[string]Access{"r": accR, "reference": accR}},
		"touch":      {acc: accW, opts: &optSpec{short: "dtr", long: set("date", "reference", "time")}, optAcc: map[string]Access{"r": accR, "reference": accR}},
		"mkdir":      {acc: accW, opts: &optSpec{short: "m", long: set("mode", "context")}},
		"mkfifo":     {acc: accW, fifo: true, opts: &optSpec{short: "m", long: set("mode", "context")}},
		"mkfs":       {acc: accW, pathOnly: true, opts: &optSpec{short: "tLbCcEgGiIjJlmMNoOrTUd", long: set("type")}},
		"mkswap":     {acc: accW, pathOnly: true, opts: &optSpec{short: "pLUe", long: set("pagesize", "label", "uuid", "endianness", "lock", "offset", "size", "file")}},
		"wipefs":     {acc: accW, pathOnly: true, opts: &optSpec{short: "obtO", long: set("offset", "backup", "types", "output", "lock")}},
		"fdisk":      {acc: accW, pathOnly: true, opts: &optSpec{short: "bcuLsxCHSwWoOt", long: set("sector-size", "compatibility", "units", "color", "output", "type", "wipe", "wipe-partitions", "lock")}},
		"sfdisk":     {acc: accW, pathOnly: true, opts: &optSpec{short: "NXYowWOt", long: set("label", "label-nested", "output", "wipe", "wipe-partitions", "backup-file", "lock", "sector-size")}},
		"cfdisk":     {acc: accW, pathOnly: true, opts: &optSpec{short: "L", long: set("color", "lock", "sector-size")}},
		"parted":     {acc: accW, pathOnly: true, opts: &optSpec{short: "a", long: set("align")}},
		"blkdiscard": {acc: accW, pathOnly: true, opts: &optSpec{short: "olp", long: set("offset", "length", "step")}},
		"badblocks":  {acc: accW, pathOnly: true, opts: &optSpec{short: "bcdeiopt"}},
		"sha256":     {acc: accR, opts: &optSpec{}},
	}
})

// command classifies a program that wraps nothing.
func (w *walker) command(c *cmdCtx) flow {
	if namesOnly(c) {
		defer w.withMode(modeNames)()
	}
	if debugsProfile(c) {
		// a browser on a real profile with a DevTools port hands every
		// cookie and saved password to whoever connects
		defer w.withMode(modeTree)()
	}
	if w.winBuiltin(c) {
		return flow{}
	}
	switch c.prog {
	case "7z", "7za", "7zz", "7zr":
		w.sevenZip(c)
		return flow{}
	case "locate", "mlocate", "plocate", "slocate":
		return locateNames(c)
	case "restic", "borg", "duplicity", "kopia", "rdiff-backup", "duplicacy":
		w.backupTrees(c)
		return flow{}
	case "cpio", "afio", "pax":
		w.stdinNames(c)
	case "go":
		w.goRun(c)
	case "ls":
		f := w.generic(c, 1)
		if f.hasText {
			return f
		}
		if hasFlagLetter(c.argv, "R") || hasArg(c.argv, "--recursive") {
			return treeListNames(c, f)
		}
		return globNames(c)
	case "du", "tree":
		f := w.generic(c, 1)
		if !f.hasText && (c.prog == "du" && (hasFlagLetter(c.argv, "a") || hasArg(c.argv, "--all")) || c.prog == "tree" && hasFlagLetter(c.argv, "f")) {
			return treeListNames(c, f)
		}
		return f
	}
	if fp, ok := fileProgs()[c.prog]; ok {
		return w.files(c, fp)
	}
	switch c.prog {
	case "cd", "pushd", "popd", "chdir":
		w.cd(c)
	case "export", "declare", "typeset", "local", "readonly":
		w.declare(c)
	case "setenv":
		if len(c.argv) >= 2 && isName(c.argv[1].s) {
			val := ""
			if len(c.argv) >= 3 {
				val = joinArgs(c.argv[2:]).s
			}
			w.addEnv(c.argv[1].s, val, c.sc)
		}
	case "launchctl":
		if len(c.argv) >= 3 && c.argv[1].s == "setenv" && isName(c.argv[2].s) {
			val := ""
			if len(c.argv) >= 4 {
				val = c.argv[3].s
			}
			w.addEnv(c.argv[2].s, val, c.sc)
		}
	case "alias":
		for _, a := range c.argv[1:] {
			if name, val, ok := strings.Cut(a.s, "="); ok && name != "" && !strings.HasPrefix(name, "-") {
				if w.aliases == nil {
					w.aliases = make(map[string]string, 2)
				}
				w.aliases[name] = val
			}
		}
	case "which":
		return locatedPaths(c.argv[1:])
	case "type", "whereis":
		if hasFlagLetter(c.argv, "p") || hasFlagLetter(c.argv, "P") || c.prog == "whereis" {
			return locatedPaths(c.argv[1:])
		}
	case "echo":
		return echoText(c)
	case "dirname", "basename":
		return pathNameText(c)
	case "date", "hostname", "history":
		w.nameProgFiles(c)
	case "test", "[", "true", "false", "exit", "return", "shift", "read", "sleep", "seq", "expr", "let", "printenv",
		"hash", "kill", "pkill", "killall", "pgrep", "id",
		"whoami", "uname", "yes", "man", "help", "info", "apropos", "unset", "set", "shopt", "ulimit", "umask", "wait",
		"jobs", "fg", "bg", "disown", "getopts", "fc", "complete", "compgen", "caller", "logout":
		// operands are names, numbers or expressions, not files
	case "printf":
		return printfText(c)
	case "base64", "gbase64":
		return w.base64(c)
	case "xxd":
		return w.xxd(c)
	case "rev":
		f := w.files(c, &fileProg{acc: accR, opts: revOpts})
		if c.in.hasText && len(c.argv) == 1 {
			lines := strings.Split(c.in.text, "\n")
			for i, l := range lines {
				r := []rune(l)
				for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
					r[a], r[b] = r[b], r[a]
				}
				lines[i] = string(r)
			}
			return flow{text: strings.Join(lines, "\n"), hasText: true}
		}
		return f
	case "tee":
		return w.tee(c)
	case "uniq":
		n := 0
		scanOpts(c.argv, 1, uniqOpts, func(o option) bool {
			if o.name == "" {
				acc := accR
				if n == 1 {
					acc = accW
				}
				n++
				w.argPath(o.val, c.sc, acc, true)
			}
			return true
		})
	case "chmod", "chown", "chgrp", "chattr":
		w.chmod(c)
	case "mknod":
		n := 0
		scanOpts(c.argv, 1, mknodOpts, func(o option) bool {
			if o.name == "" {
				if n == 0 {
					w.argPath(o.val, c.sc, accW, true)
				} else if o.val.s == "p" {
					w.fifoDetail = c.sc.detail()
				}
				n++
			}
			return true
		})
	case "cp", "mv", "install", "ln", "link":
		w.copyLike(c)
	case "dd":
		for _, a := range c.argv[1:] {
			switch {
			case strings.HasPrefix(a.s, "if="):
				w.argPath(argVal{s: a.s[3:], dyn: a.dyn}, c.sc, accR, true)
			case strings.HasPrefix(a.s, "of="):
				abs := w.argPath(argVal{s: a.s[3:], dyn: a.dyn}, c.sc, accW, true)
				if c.in.bits&flowDL != 0 && abs != "" {
					w.markDownloaded(abs)
				}
			}
		}
	case "sed":
		w.sed(c)
	case "grep", "rg", "ag", "ack", "ack-grep":
		w.grep(c)
	case "jq", "yq", "gojq", "jaq":
		w.jq(c)
	case "tar":
		w.tar(c)
	case "zip":
		w.zip(c)
	case "unzip":
		sp := unzipOpts
		first := true
		scanOpts(c.argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if first {
					first = false
					w.argPath(o.val, c.sc, accR, true)
				}
			case "d":
				w.argPath(o.val, c.sc, accW, true)
			}
			return true
		})
	case "gzip":
		toStdout := false
		for _, a := range c.argv[1:] {
			s := a.s
			if s == "--stdout" || s == "--to-stdout" || s == "--list" || s == "--test" || s == "--keep" ||
				len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s, "cltk") {
				toStdout = true
			}
		}
		acc := accRW
		if toStdout {
			acc = accR
		}
		return w.files(c, &fileProg{acc: acc, opts: gzipOpts, optAcc: gzipAcc})
	case "git":
		w.git(c)
	case "gh", "glab", "hub":
		return w.forgeCLI(c)
	case "pip", "pip3", "npm", "yarn", "bun":
		w.installsFromURL(c)
		w.configSetSecrets(c)
		return w.generic(c, 1)
	case "vim":
		w.vim(c)
	case "emacs", "emacsclient":
		w.emacs(c)
	case "openssl":
		return w.openssl(c)
	case "ssh-keygen":
		w.sshKeygen(c)
	case "curl":
		return w.curl(c)
	case "wget":
		return w.wget(c)
	case "aria2c", "fetch", "http", "lwp-download", "lwp-request", "iwr":
		return w.downloader(c)
	case "nc", "telnet":
		return w.netcat(c)
	case "socat":
		return w.socat(c)
	case "ssh", "autossh":
		return w.ssh(c)
	case "scp", "sftp", "rsync":
		w.remoteCopy(c)
	case "ping", "dig", "host", "nslookup", "whois", "nmap", "ftp", "tftp", "ssh-keyscan", "mosh", "ssh-copy-id", "drill", "kdig":
		w.netHosts(c)
	case "mysql", "psql", "redis-cli", "mongosh", "mongo", "pg_dump", "pg_restore", "mysqldump", "mariadb":
		w.dbHosts(c)
	default:
		return w.generic(c, 1)
	}
	return flow{}
}

// Option tables, hoisted so a call allocates nothing.
var revOpts = &optSpec{}

var uniqOpts = &optSpec{short: "fsw", long: set("skip-fields", "skip-chars", "check-chars", "group", "all-repeated")}

var mknodOpts = &optSpec{short: "mZ", long: set("mode", "context")}

// pathNameText is the output of dirname and basename of known operands:
// pure functions of their words, so $(dirname ~/.ssh/x) names ~/.ssh for
// the program it is handed to (tar czf - "$(dirname ~/.ssh/x)").
func pathNameText(c *cmdCtx) flow {
	var ops []string
	multi, suffix := c.prog == "dirname", ""
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i]
		if a.dyn || a.proc {
			return flow{}
		}
		switch {
		case a.s == "--":
			for _, b := range c.argv[i+1:] {
				if b.dyn || b.proc {
					return flow{}
				}
				ops = append(ops, b.s)
			}
			i = len(c.argv)
		case a.s == "-a" || a.s == "--multiple":
			multi = true
		case a.s == "-s" || a.s == "--suffix":
			multi = true
			if i+1 < len(c.argv) {
				i++
				suffix = c.argv[i].s
			}
		case strings.HasPrefix(a.s, "--suffix="):
			multi, suffix = true, a.s[len("--suffix="):]
		case a.s == "-z" || a.s == "--zero":
		case len(a.s) > 1 && a.s[0] == '-':
			return flow{}
		default:
			ops = append(ops, a.s)
		}
	}
	if len(ops) == 0 {
		return flow{}
	}
	if !multi && len(ops) == 2 {
		ops, suffix = ops[:1], ops[1]
	}
	var b strings.Builder
	for _, o := range ops {
		if c.prog == "dirname" {
			b.WriteString(posixDirname(o))
		} else {
			b.WriteString(posixBasename(o, suffix))
		}
		b.WriteByte('\n')
	}
	return flow{text: b.String(), hasText: true}
}

func posixDirname(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if s == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

func posixBasename(s, suffix string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if s == "" {
			return ""
		}
		return "/"
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		t = t[i+1:]
	}
	if suffix != "" && t != suffix && strings.HasSuffix(t, suffix) {
		t = t[:len(t)-len(suffix)]
	}
	return t
}

// treeListNames is the output of a recursive listing (du -a, ls -R,
// tree -f): every name under its operands, as patterns, for the next
// command (du -a ~ | xargs cat reads them).
func treeListNames(c *cmdCtx, f flow) flow {
	var parts []string
	for _, a := range c.argv[1:] {
		if a.dyn || a.proc {
			return f
		}
		if a.s == "" || strings.HasPrefix(a.s, "-") {
			continue
		}
		abs := a.s
		if !strings.HasPrefix(abs, "/") {
			abs = path.Join(c.sc.dir, abs)
		}
		parts = append(parts, strings.TrimRight(abs, "/")+"/**")
	}
	if len(parts) == 0 {
		parts = append(parts, strings.TrimRight(c.sc.dir, "/")+"/**")
	}
	f.text, f.hasText, f.names = strings.Join(parts, "\n")+"\n", true, true
	return f
}

// configSetSecrets: `npm config set KEY VALUE` (yarn, pnpm, bun, pip
// alike) stores VALUE in the user's config file: a secret in it reaches
// that file (npm config set //host/:_authToken $(gh auth token)).
func (w *walker) configSetSecrets(c *cmdCtx) {
	argv := c.argv
	if len(argv) < 4 || argv[1].s != "config" && argv[1].s != "c" || argv[2].s != "set" {
		return
	}
	file := map[string]string{"pip": "/.config/pip/pip.conf", "pip3": "/.config/pip/pip.conf", "yarn": "/.yarnrc"}[c.prog]
	if file == "" {
		file = "/.npmrc"
	}
	for _, a := range argv[3:] {
		if a.sec != 0 {
			w.sink(a.sec, sinkFile, w.home+file, false)
		}
	}
}
