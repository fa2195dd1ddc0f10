package shell

import (
	"encoding/base64"
	"encoding/hex"
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
		"column":     {acc: accR, opts: &optSpec{short: "cstoNRHWETdlC", long: set("columns", "separator", "output-separator", "table-columns", "table-right", "table-hide", "table-wrap", "table-empty-lines", "table-order", "table-name", "tree", "tree-id", "tree-parent")}},
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
			w.addEnv(c.argv[1].s, val)
		}
	case "launchctl":
		if len(c.argv) >= 3 && c.argv[1].s == "setenv" && isName(c.argv[2].s) {
			val := ""
			if len(c.argv) >= 4 {
				val = c.argv[3].s
			}
			w.addEnv(c.argv[2].s, val)
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
	case "echo":
		return echoText(c)
	case "test", "[", "true", "false", "exit", "return", "shift", "read", "sleep", "seq", "expr", "let", "printenv",
		"which", "type", "whereis", "hash", "kill", "pkill", "killall", "pgrep", "basename", "dirname", "date", "id",
		"whoami", "uname", "yes", "man", "help", "info", "apropos", "unset", "set", "shopt", "ulimit", "umask", "wait",
		"jobs", "fg", "bg", "disown", "getopts", "history", "fc", "complete", "compgen", "caller", "logout", "hostname":
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

// argPath records an operand that names a file. bare: names without a path
// shape count. It returns the absolute path, or "".
func (w *walker) argPath(a argVal, sc *scope, acc Access, bare bool) string {
	s := a.s
	if a.proc || s == "" || s == "-" || strings.Contains(s, "{}") {
		return ""
	}
	if isURL(s) {
		if p, ok := fileURLPath(s); ok {
			w.addPathAbs(s, p, acc)
		}
		return ""
	}
	if !bare && !pathLike(s) {
		return ""
	}
	if host, ok := devTCPHost(s); ok {
		w.addHost(host)
		return ""
	}
	abs, ok := w.resolve(s, sc.dir)
	if !ok || isPseudoDevice(abs) {
		return ""
	}
	w.addPathAbs(w.rawPath(s, abs, sc), abs, acc)
	return abs
}

// rawPath is the Raw of a path fact: the word as the shell sees it, or the
// absolute path when a relative word would resolve elsewhere from the
// caller's cwd (after cd).
func (w *walker) rawPath(s, abs string, sc *scope) string {
	if sc.dir != w.cwd && s != "" && s[0] != '/' {
		return abs
	}
	return s
}

func longOptAccess(name string) Access {
	for _, k := range []string{"out", "log", "dest", "target", "write", "save", "dump", "export"} {
		if strings.Contains(name, k) {
			return AccessWrite
		}
	}
	return AccessRead
}

// generic records path-shaped operands of a program we know nothing about.
func (w *walker) generic(c *cmdCtx, start int) flow {
	after := false
	for _, a := range c.argv[start:] {
		s := a.s
		if !after && s == "--" {
			after = true
			continue
		}
		if !after && len(s) > 1 && s[0] == '-' && !a.proc {
			if s[1] == '-' {
				if name, val, ok := strings.Cut(s[2:], "="); ok && pathLike(val) {
					w.argPath(argVal{s: val, dyn: a.dyn}, c.sc, longOptAccess(name), false)
				}
			}
			continue
		}
		if !after {
			if _, val, ok := assignWord(s); ok {
				if pathLike(val) {
					w.argPath(argVal{s: val, dyn: a.dyn}, c.sc, AccessRead, false)
				}
				continue
			}
		}
		if strings.ContainsAny(s, " \t\n") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
			continue // a phrase or a command line handed on, not a file name
		}
		w.argPath(a, c.sc, AccessRead, false)
	}
	return flow{}
}

func (w *walker) files(c *cmdCtx, fp *fileProg) flow {
	n := 0
	scanOpts(c.argv, 1, fp.opts, func(o option) bool {
		if o.name == "" {
			if fp.maxFiles > 0 && n >= fp.maxFiles {
				return true
			}
			n++
			w.argPath(o.val, c.sc, fp.acc, !fp.pathOnly)
			return true
		}
		if acc, ok := fp.optAcc[o.name]; ok && o.hasVal {
			w.argPath(o.val, c.sc, acc, true)
		} else if o.long && o.hasVal && o.idx < 0 && pathLike(o.val.s) {
			w.argPath(o.val, c.sc, longOptAccess(o.name), false)
		}
		return true
	})
	if fp.fifo {
		w.fifoDetail = c.sc.detail()
	}
	if fp.pass && n == 0 {
		return flow{bits: c.in.bits & flowTaint, text: c.in.text, hasText: c.in.hasText}
	}
	return flow{}
}

func (w *walker) tee(c *cmdCtx) flow {
	scanOpts(c.argv, 1, teeOpts, func(o option) bool {
		if o.name == "" {
			abs := w.argPath(o.val, c.sc, accW, true)
			if abs != "" && c.in.bits&flowDL != 0 {
				w.markDownloaded(abs)
			}
		}
		return true
	})
	return flow{bits: c.in.bits & flowTaint, text: c.in.text, hasText: c.in.hasText}
}

func (w *walker) cd(c *cmdCtx) {
	sc := c.sc
	if c.prog == "popd" {
		if n := len(sc.dirs); n > 0 {
			sc.dir = sc.dirs[n-1]
			sc.dirs = sc.dirs[: n-1 : n-1]
		}
		return
	}
	var target *argVal
	for i := 1; i < len(c.argv); i++ {
		s := c.argv[i].s
		if s == "--" {
			if i+1 < len(c.argv) {
				target = &c.argv[i+1]
			}
			break
		}
		if len(s) > 1 && s[0] == '-' || c.prog == "pushd" && len(s) > 1 && s[0] == '+' {
			continue
		}
		target = &c.argv[i]
		break
	}
	dir := ""
	switch {
	case target == nil:
		if c.prog == "pushd" {
			return
		}
		dir = w.home
	case target.s == "-" || target.s == "":
		return
	default:
		dir = target.s
	}
	if dir == "" {
		return
	}
	abs, ok := w.resolve(dir, sc.dir)
	if !ok {
		return
	}
	if c.prog == "pushd" {
		sc.dirs = append(sc.dirs[:len(sc.dirs):len(sc.dirs)], sc.dir)
	}
	sc.dir = abs
}

// declare handles export/declare/typeset run as plain commands (after
// `builtin`, `command`, or where the parser did not make a DeclClause).
func (w *walker) declare(c *cmdCtx) {
	exported := c.prog == "export"
	for _, a := range c.argv[1:] {
		if strings.HasPrefix(a.s, "-") {
			if strings.ContainsRune(a.s, 'x') {
				exported = true
			}
			continue
		}
	}
	for _, a := range c.argv[1:] {
		if name, val, ok := assignWord(a.s); ok {
			if exported {
				w.addEnv(name, val)
			}
			if !a.dyn {
				c.sc.setVar(name, val)
			}
		}
	}
}

func echoText(c *cmdCtx) flow {
	args := c.argv[1:]
	newline, escapes := true, false
	for len(args) > 0 {
		s := args[0].s
		if len(s) < 2 || s[0] != '-' || strings.Trim(s[1:], "neE") != "" {
			break
		}
		for _, ch := range s[1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	j := joinArgs(args)
	var f flow
	if j.dl {
		f.bits |= flowDL
	}
	if j.dyn {
		return f
	}
	text := j.s
	if len(text) > maxWord {
		return f
	}
	if escapes {
		text = decodeANSIC(text)
	}
	if newline {
		text += "\n"
	}
	f.text, f.hasText = text, true
	return f
}

func printfText(c *cmdCtx) flow {
	args := c.argv[1:]
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-v") {
		return flow{}
	}
	j := joinArgs(args)
	var f flow
	if j.dl {
		f.bits |= flowDL
	}
	if j.dyn {
		return f
	}
	format := args[0].s
	rest := argStrings(args[1:])
	var sb strings.Builder
	for round := 0; round < 64; round++ {
		used := false
		for i := 0; i < len(format); i++ {
			ch := format[i]
			if ch != '%' {
				if ch == '\\' {
					k := i + 1
					for k < len(format) && k < i+4 && format[k] != '\\' && format[k] != '%' {
						k++
					}
					sb.WriteString(decodeANSIC(format[i:k]))
					i = k - 1
					continue
				}
				sb.WriteByte(ch)
				continue
			}
			k := i + 1
			for k < len(format) && strings.IndexByte("-+ #0123456789.", format[k]) >= 0 {
				k++
			}
			if k >= len(format) {
				sb.WriteString(format[i:])
				break
			}
			conv := format[k]
			if conv == '%' {
				sb.WriteByte('%')
			} else {
				arg := ""
				if len(rest) > 0 {
					arg, rest = rest[0], rest[1:]
					used = true
				}
				if conv == 'b' {
					arg = decodeANSIC(arg)
				}
				sb.WriteString(arg)
			}
			i = k
		}
		if !used || len(rest) == 0 || sb.Len() > maxWord {
			break
		}
	}
	f.text, f.hasText = sb.String(), true
	return f
}

func (w *walker) base64(c *cmdCtx) flow {
	decode := false
	var file *argVal
	scanOpts(c.argv, 1, base64Opts, func(o option) bool {
		switch o.name {
		case "d", "D", "decode":
			decode = true
		case "i", "input", "":
			v := o.val
			file = &v
			w.argPath(o.val, c.sc, accR, true)
		case "o", "output":
			w.argPath(o.val, c.sc, accW, true)
		}
		return true
	})
	if file != nil || !c.in.hasText {
		return flow{bits: c.in.bits & flowTaint}
	}
	if !decode {
		return flow{text: base64.StdEncoding.EncodeToString([]byte(c.in.text)) + "\n", hasText: true}
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, c.in.text)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil {
		return flow{}
	}
	return flow{text: string(b), hasText: true}
}

func (w *walker) xxd(c *cmdCtx) flow {
	reverse, plain := false, false
	n := 0
	scanOpts(c.argv, 1, xxdOpts, func(o option) bool {
		switch o.name {
		case "r", "revert":
			reverse = true
		case "p", "ps", "postscript", "plain":
			plain = true
		case "":
			acc := accR
			if n == 1 {
				acc = accW
			}
			n++
			w.argPath(o.val, c.sc, acc, true)
		}
		return true
	})
	if n > 0 || !c.in.hasText || !reverse || !plain {
		return flow{bits: c.in.bits & flowTaint}
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, c.in.text)
	b, err := hex.DecodeString(s)
	if err != nil {
		return flow{}
	}
	return flow{text: string(b), hasText: true}
}

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
	for _, a := range srcs {
		abs := w.argPath(a, c.sc, srcAcc, true)
		if abs != "" && w.dlFiles[abs] {
			dlSrc = append(dlSrc, abs)
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

func (w *walker) sed(c *cmdCtx) {
	argv := c.argv
	inplace, haveScript := false, false
	var files []argVal
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
			continue
		}
		files = append(files, argv[i])
	}
	acc := accR
	if inplace {
		acc = accRW
	}
	for _, f := range files {
		w.argPath(f, c.sc, acc, true)
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
	var ops []argVal
	scanOpts(c.argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			ops = append(ops, o.val)
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
	for _, a := range ops {
		w.argPath(a, c.sc, accR, true)
	}
}

func (w *walker) jq(c *cmdCtx) {
	argv := c.argv
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
			if long[name] {
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
	for k, a := range ops {
		acc := accR
		if k == 0 {
			acc = accRW
		}
		w.argPath(a, c.sc, acc, true)
	}
}

func (w *walker) git(c *cmdCtx) {
	argv := c.argv
	i := 1
	sc := c.sc
	var dirArg *argVal
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
		case s == "-c" || s == "--git-dir" || s == "--work-tree" || s == "--namespace":
			i++
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
		scanOpts(gc.argv, 1, sp, func(o option) bool {
			switch o.name {
			case "":
				if n == 0 {
					w.remoteHost(o.val.s)
				} else {
					w.argPath(o.val, sc, accW, true)
				}
				n++
			case "u", "upload-pack":
				w.nestedProgram(o.val.s, sc, nil)
			case "template", "reference", "separate-git-dir":
				w.argPath(o.val, sc, accR, true)
			}
			return true
		})
	case "push", "pull", "fetch", "ls-remote", "remote", "submodule":
		for _, a := range gc.argv[1:] {
			if !strings.HasPrefix(a.s, "-") {
				w.remoteHost(a.s)
			}
		}
	case "rm", "mv", "checkout", "restore", "clean":
		w.generic(&cmdCtx{prog: "git", argv: gc.argv, sc: sc}, 1)
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
	case "config", "branch", "tag", "log", "show", "stash", "reset", "rebase", "merge", "cherry-pick", "revert", "switch", "init", "status":
		// operands are refs, names and messages, not files
		if sub == "log" || sub == "show" || sub == "status" || sub == "init" {
			w.generic(gc, 1)
		}
	default:
		w.generic(gc, 1)
	}
}

func (w *walker) vim(c *cmdCtx) {
	argv := c.argv
	sp := vimOpts
	scanOpts(argv, 1, sp, func(o option) bool {
		switch o.name {
		case "":
			if strings.HasPrefix(o.val.s, "+") {
				if len(o.val.s) > 1 {
					w.embedded(argVal{s: o.val.s[1:], dyn: o.val.dyn, dl: o.val.dl}, c.sc)
				}
				return true
			}
			w.argPath(o.val, c.sc, accRW, true)
		case "c", "cmd":
			w.embedded(o.val, c.sc)
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
		case "l", "load", "script":
			w.argPath(o.val, c.sc, accRX, true)
		case "file", "visit", "find-file", "insert":
			w.argPath(o.val, c.sc, accRW, true)
		}
		return true
	})
}

func (w *walker) openssl(c *cmdCtx) flow {
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
		if len(s) > 1 && s[0] == '-' && strings.ContainsAny(s[1:], "ylFRBeiLQ") && !strings.ContainsAny(s[1:], "bCEfIJjKmMNnOPrsStVwYzZaD") {
			readOnly = true
		}
	}
	keyAcc := accRW
	if readOnly {
		keyAcc = accR
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
				if findWriters[p] || progs[p] {
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
		case findValued[s]:
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
	for _, inner := range inners {
		w.classify(inner, c.sc, flow{})
	}
	return flow{}
}

func argsHavePrefix(argv []argVal, prefix string) bool {
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.s, prefix) {
			return true
		}
	}
	return false
}

// Option tables, hoisted so a call allocates nothing.
var revOpts = &optSpec{}
var uniqOpts = &optSpec{short: "fsw", long: set("skip-fields", "skip-chars", "check-chars", "group", "all-repeated")}
var mknodOpts = &optSpec{short: "mZ", long: set("mode", "context")}
var unzipOpts = &optSpec{short: "dPxIO"}
var gzipOpts = &optSpec{short: "SoDTLb", long: set("suffix", "output", "dict", "threads")}
var gzipAcc = map[string]Access{"o": accW, "output": accW, "D": accR}
var teeOpts = &optSpec{}
var base64Opts = &optSpec{short: "wio", long: set("wrap", "input", "output")}
var xxdOpts = &optSpec{short: "cglsoCn", long: set("cols", "groupsize", "len", "seek", "offset", "name")}
var installOpts = &optSpec{short: "mogSt", long: set("mode", "owner", "group", "suffix", "target-directory", "strip-program", "backup", "context")}
var mvOpts = &optSpec{short: "tS", long: set("target-directory", "suffix")}
var cpOpts = &optSpec{short: "tS", long: set("target-directory", "suffix")}
var rgOpts = &optSpec{short: "efgtTmABCjEMrd", long: set("regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "threads", "encoding", "max-columns", "replace", "max-depth", "type-add", "type-clear", "pre", "pre-glob", "ignore-file", "path-separator", "sort", "sortr", "colors", "engine", "dfa-size-limit", "regex-size-limit", "max-filesize", "context-separator", "field-context-separator", "field-match-separator", "hostname-bin", "hyperlink-format", "color")}
var agOpts = &optSpec{short: "ABCGgmpW", long: set("ignore", "ignore-dir", "depth", "file-search-regex", "after", "before", "context", "max-count", "workers", "path-to-ignore", "pager")}
var ackOpts = &optSpec{short: "ABCmg", long: set("type", "ignore-dir", "ignore-file", "match", "output", "after-context", "before-context", "context", "max-count", "pager", "type-add", "type-set")}
var grepOpts = &optSpec{short: "efmABCdD", long: set("regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "group-separator")}
var commitOpts = &optSpec{short: "mFCctS", long: set("message", "file", "reuse-message", "reedit-message", "template", "author", "date", "fixup", "squash", "cleanup", "trailer", "pathspec-from-file")}
var cloneOpts = &optSpec{short: "boucj", long: set("branch", "origin", "upload-pack", "config", "depth", "reference", "reference-if-able", "template", "separate-git-dir", "filter", "jobs", "shallow-since", "shallow-exclude", "server-option", "bundle-uri", "ref-format")}
var applyOpts = &optSpec{short: "pC", long: set("directory", "exclude", "include", "whitespace")}
var vimOpts = &optSpec{short: "cSuUiTtsqwWo", long: set("cmd", "servername", "startuptime", "log")}
var emacsOpts = &optSpec{short: "lfLdt", long: set("eval", "load", "funcall", "directory", "execute", "file", "visit", "insert", "find-file", "chdir", "script", "socket-name", "server-file", "alternate-editor")}
var opensslOpts = &optSpec{oneDash: true, long: set("in", "out", "key", "inkey", "signkey", "CAfile", "CApath", "cert", "CAkey", "certfile",
	"config", "extfile", "extensions", "keyout", "passin", "passout", "pass", "connect", "servername", "host", "port", "proxy",
	"subj", "days", "newkey", "md", "k", "K", "iv", "S", "name", "set_serial", "sigopt", "pkeyopt", "keyform", "inform",
	"outform", "certform", "reqexts", "section", "rand", "writerand", "untrusted", "CRL", "verify", "prverify", "sign",
	"signature", "kdf", "kdfopt", "macopt", "mac", "nameopt", "certopt", "ext", "addext", "reqopt", "digest", "accept",
	"kfile", "keyfile", "out_trusted", "trusted", "crl", "nextprotoneg", "alpn", "starttls", "sess_out", "sess_in", "keylogfile", "msgfile")}
var sshKeygenOpts = &optSpec{short: "bCEFfIJjKmMNnOPrsStVwYzZaD"}
var tarOpts = set("file", "directory", "files-from", "exclude-from", "use-compress-program", "info-script", "new-volume-script",
	"to-command", "rsh-command", "rmt-command", "checkpoint-action", "exclude", "transform", "xform", "owner", "group",
	"mode", "mtime", "newer", "newer-mtime", "label", "blocking-factor", "record-size", "tape-length", "format", "strip-components", "suffix")
