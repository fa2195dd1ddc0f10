package shell

import (
	"encoding/base64"
	"encoding/hex"
	"path"
	"strings"
	"sync"
)

// fileProg describes a program whose operands are files.
type shFileProg struct {
	acc      Access
	opts     *shOptSpec
	optAcc   map[string]Access // option values that are paths
	maxFiles int               // operands after this many are not files (0: all are)
	pathOnly bool              // only path-shaped operands are files (mkfs, fdisk …)
	pass     bool              // copies stdin to stdout when given no file
	fifo     bool              // creates a fifo
}

var (
	shAccR  = AccessRead
	shAccW  = AccessWrite
	shAccRW = AccessRead | AccessWrite
	shAccRX = AccessRead | AccessExec
)

// shFileProgs is built on the first shell command, not at start-up: a
// hook process deciding a Read never pays for it.
var shFileProgs = sync.OnceValue(func() map[string]*shFileProg {
	return map[string]*shFileProg{
		"cat":        {acc: shAccR, pass: true, opts: &shOptSpec{}},
		"tac":        {acc: shAccR, pass: true, opts: &shOptSpec{short: "s", long: shSet("separator")}},
		"zcat":       {acc: shAccR, opts: &shOptSpec{}},
		"less":       {acc: shAccR, opts: &shOptSpec{short: "bhjkoOpPtTxyz#", long: shSet("log-file", "LOG-FILE", "pattern", "tag", "tabs", "shift", "prompt", "jump-target", "window", "max-back-scroll", "max-forw-scroll")}, optAcc: map[string]Access{"o": shAccW, "O": shAccW, "log-file": shAccW, "LOG-FILE": shAccW}},
		"more":       {acc: shAccR, opts: &shOptSpec{short: "n", long: shSet("lines")}},
		"most":       {acc: shAccR, opts: &shOptSpec{}},
		"head":       {acc: shAccR, opts: &shOptSpec{short: "nc", long: shSet("lines", "bytes")}},
		"tail":       {acc: shAccR, opts: &shOptSpec{short: "ncs", long: shSet("lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats")}},
		"bat":        {acc: shAccR, opts: &shOptSpec{short: "lmrH", long: shSet("language", "map-syntax", "line-range", "highlight-line", "theme", "style", "tabs", "wrap", "terminal-width", "paging", "pager", "decorations", "color", "italic-text", "file-name", "diff-context", "ignored-suffix")}},
		"batcat":     {acc: shAccR, opts: &shOptSpec{short: "lmrH", long: shSet("language", "map-syntax", "line-range", "highlight-line", "theme", "style", "tabs", "wrap", "terminal-width", "paging", "pager", "decorations", "color", "file-name")}},
		"nl":         {acc: shAccR, opts: &shOptSpec{short: "bdfhilnsvw"}},
		"od":         {acc: shAccR, opts: &shOptSpec{short: "AjNtwS", long: shSet("address-radix", "skip-bytes", "read-bytes", "format", "width", "strings", "endian")}},
		"hexdump":    {acc: shAccR, opts: &shOptSpec{short: "efns"}, optAcc: map[string]Access{"f": shAccR}},
		"hd":         {acc: shAccR, opts: &shOptSpec{short: "efns"}, optAcc: map[string]Access{"f": shAccR}},
		"strings":    {acc: shAccR, opts: &shOptSpec{short: "ntTe", long: shSet("bytes", "radix", "encoding", "target", "output-separator")}},
		"file":       {acc: shAccR, opts: &shOptSpec{short: "mfFeP", long: shSet("magic-file", "files-from", "separator", "exclude", "parameter")}, optAcc: map[string]Access{"m": shAccR, "f": shAccR, "magic-file": shAccR, "files-from": shAccR}},
		"stat":       {acc: shAccR, opts: &shOptSpec{short: "ct", long: shSet("format", "printf")}},
		"wc":         {acc: shAccR, opts: &shOptSpec{}, optAcc: map[string]Access{"files0-from": shAccR}},
		"sort":       {acc: shAccR, opts: &shOptSpec{short: "kotTS", long: shSet("key", "output", "field-separator", "temporary-directory", "buffer-size", "files0-from", "parallel", "batch-size", "compress-program", "random-source", "sort")}, optAcc: map[string]Access{"o": shAccW, "output": shAccW, "files0-from": shAccR, "random-source": shAccR}},
		"diff":       {acc: shAccR, opts: &shOptSpec{short: "xXILFCUWDS", long: shSet("exclude", "exclude-from", "ignore-matching-lines", "label", "show-function-line", "context", "unified", "width", "ifdef", "starting-file", "from-file", "to-file", "tabsize", "color", "palette", "line-format", "old-line-format", "new-line-format", "unchanged-line-format", "group-format", "horizon-lines")}, optAcc: map[string]Access{"X": shAccR, "exclude-from": shAccR, "from-file": shAccR, "to-file": shAccR}},
		"diff3":      {acc: shAccR, opts: &shOptSpec{short: "L", long: shSet("label", "diff-program")}},
		"sdiff":      {acc: shAccR, opts: &shOptSpec{short: "oIw", long: shSet("output", "ignore-matching-lines", "width", "diff-program")}, optAcc: map[string]Access{"o": shAccW, "output": shAccW}},
		"cmp":        {acc: shAccR, opts: &shOptSpec{short: "in", long: shSet("ignore-initial", "bytes")}},
		"comm":       {acc: shAccR, opts: &shOptSpec{long: shSet("output-delimiter")}},
		"join":       {acc: shAccR, opts: &shOptSpec{short: "12teoajv"}},
		"paste":      {acc: shAccR, opts: &shOptSpec{short: "d", long: shSet("delimiters")}},
		"cut":        {acc: shAccR, opts: &shOptSpec{short: "bcdf", long: shSet("bytes", "characters", "delimiter", "fields", "output-delimiter")}},
		"fold":       {acc: shAccR, opts: &shOptSpec{short: "w", long: shSet("width")}},
		"fmt":        {acc: shAccR, opts: &shOptSpec{short: "wpgd", long: shSet("width", "prefix", "goal")}},
		"pr":         {acc: shAccR, opts: &shOptSpec{short: "eilnNosSwW", long: shSet("header", "columns", "width", "page-width", "indent", "first-line-number", "sep-string", "separator")}},
		"column":     {acc: shAccR, opts: &shOptSpec{short: "cstoNRHWETdlC", long: shSet("columns", "separator", "output-separator", "table-columns", "table-right", "table-hide", "table-wrap", "table-empty-lines", "table-order", "table-name", "tree", "tree-id", "tree-parent")}},
		"iconv":      {acc: shAccR, opts: &shOptSpec{short: "fto", long: shSet("from-code", "to-code", "output")}, optAcc: map[string]Access{"o": shAccW, "output": shAccW}},
		"sha256sum":  {acc: shAccR, opts: &shOptSpec{short: "a", long: shSet("algorithm")}},
		"open":       {acc: shAccR, opts: &shOptSpec{short: "abu", long: shSet("env", "stdin", "stdout", "stderr", "arch")}},
		"xdg-open":   {acc: shAccR, opts: &shOptSpec{}},
		"code":       {acc: shAccR, opts: &shOptSpec{short: "gdm", long: shSet("goto", "diff", "merge", "user-data-dir", "extensions-dir", "profile", "locale", "install-extension", "uninstall-extension")}},
		"cursor":     {acc: shAccR, opts: &shOptSpec{short: "g", long: shSet("goto", "user-data-dir", "profile")}},
		"subl":       {acc: shAccR, opts: &shOptSpec{}},
		"nano":       {acc: shAccRW, opts: &shOptSpec{short: "TXoQrYsEJ", long: shSet("tabsize", "wordchars", "operatingdir", "quotestr", "fill", "syntax", "speller", "guidestripe")}},
		"readlink":   {acc: shAccR, opts: &shOptSpec{}},
		"realpath":   {acc: shAccR, opts: &shOptSpec{long: shSet("relative-to", "relative-base")}},
		"gpg":        {acc: shAccR, opts: &shOptSpec{short: "oruRk", long: shSet("output", "recipient", "local-user", "hidden-recipient", "homedir", "default-key", "passphrase", "passphrase-file", "passphrase-fd", "keyserver", "trust-model", "cipher-algo", "digest-algo", "compress-algo", "comment", "set-filename", "keyring", "secret-keyring", "trustdb-name", "pinentry-mode", "export-options", "import-options")}, optAcc: map[string]Access{"o": shAccW, "output": shAccW, "passphrase-file": shAccR, "homedir": shAccR, "keyring": shAccR, "secret-keyring": shAccR}},
		"ssh-add":    {acc: shAccR, opts: &shOptSpec{short: "tsSeEHh"}, optAcc: map[string]Access{"H": shAccR}},
		"crontab":    {acc: shAccR, opts: &shOptSpec{short: "uc"}},
		"sqlite3":    {acc: shAccRW, maxFiles: 1, opts: &shOptSpec{short: "", long: shSet("cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap", "lookaside", "pagecache", "heap", "maxsize")}, optAcc: map[string]Access{"init": shAccRX}},
		"split":      {acc: shAccR, maxFiles: 1, opts: &shOptSpec{short: "lbCnat", long: shSet("lines", "bytes", "line-bytes", "number", "suffix-length", "additional-suffix", "separator", "filter")}},
		"csplit":     {acc: shAccR, maxFiles: 1, opts: &shOptSpec{short: "fbn", long: shSet("prefix", "suffix-format", "digits")}},
		"patch":      {acc: shAccRW, opts: &shOptSpec{short: "iopdBrDFVYzg", long: shSet("input", "output", "strip", "directory", "prefix", "reject-file", "ifdef", "fuzz", "version-control", "basename-prefix", "suffix", "get")}, optAcc: map[string]Access{"i": shAccR, "input": shAccR, "o": shAccW, "output": shAccW, "r": shAccW, "reject-file": shAccW}},
		"dos2unix":   {acc: shAccRW, opts: &shOptSpec{}},
		"unix2dos":   {acc: shAccRW, opts: &shOptSpec{}},
		"sponge":     {acc: shAccW, opts: &shOptSpec{}},
		"rm":         {acc: shAccW, opts: &shOptSpec{}},
		"unlink":     {acc: shAccW, opts: &shOptSpec{}},
		"rmdir":      {acc: shAccW, opts: &shOptSpec{}},
		"srm":        {acc: shAccW, opts: &shOptSpec{}},
		"wipe":       {acc: shAccW, opts: &shOptSpec{}},
		"shred":      {acc: shAccW, opts: &shOptSpec{short: "ns", long: shSet("iterations", "size", "random-source")}, optAcc: map[string]Access{"random-source": shAccR}},
		"truncate":   {acc: shAccW, opts: &shOptSpec{short: "sr", long: shSet("size", "reference")}, optAcc: map[string]Access{"r": shAccR, "reference": shAccR}},
		"touch":      {acc: shAccW, opts: &shOptSpec{short: "dtr", long: shSet("date", "reference", "time")}, optAcc: map[string]Access{"r": shAccR, "reference": shAccR}},
		"mkdir":      {acc: shAccW, opts: &shOptSpec{short: "m", long: shSet("mode", "context")}},
		"mkfifo":     {acc: shAccW, fifo: true, opts: &shOptSpec{short: "m", long: shSet("mode", "context")}},
		"mkfs":       {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "tLbCcEgGiIjJlmMNoOrTUd", long: shSet("type")}},
		"mkswap":     {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "pLUe", long: shSet("pagesize", "label", "uuid", "endianness", "lock", "offset", "size", "file")}},
		"wipefs":     {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "obtO", long: shSet("offset", "backup", "types", "output", "lock")}},
		"fdisk":      {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "bcuLsxCHSwWoOt", long: shSet("sector-size", "compatibility", "units", "color", "output", "type", "wipe", "wipe-partitions", "lock")}},
		"sfdisk":     {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "NXYowWOt", long: shSet("label", "label-nested", "output", "wipe", "wipe-partitions", "backup-file", "lock", "sector-size")}},
		"cfdisk":     {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "L", long: shSet("color", "lock", "sector-size")}},
		"parted":     {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "a", long: shSet("align")}},
		"blkdiscard": {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "olp", long: shSet("offset", "length", "step")}},
		"badblocks":  {acc: shAccW, pathOnly: true, opts: &shOptSpec{short: "bcdeiopt"}},
		"sha256":     {acc: shAccR, opts: &shOptSpec{}},
	}
})

// command classifies a program that wraps nothing.
func (w *shellWalker) command(c *shCmd) shFlow {
	if fp, ok := shFileProgs()[c.prog]; ok {
		return w.files(c, fp)
	}
	switch c.prog {
	case "cd", "pushd", "popd", "chdir":
		w.cd(c)
	case "export", "declare", "typeset", "local", "readonly":
		w.declare(c)
	case "setenv":
		if len(c.argv) >= 2 && shIsName(c.argv[1].s) {
			val := ""
			if len(c.argv) >= 3 {
				val = shJoinArgs(c.argv[2:]).s
			}
			w.addEnv(c.argv[1].s, val)
		}
	case "launchctl":
		if len(c.argv) >= 3 && c.argv[1].s == "setenv" && shIsName(c.argv[2].s) {
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
		return shEchoText(c)
	case "test", "[", "true", "false", "exit", "return", "shift", "read", "sleep", "seq", "expr", "let", "printenv",
		"which", "type", "whereis", "hash", "kill", "pkill", "killall", "pgrep", "basename", "dirname", "date", "id",
		"whoami", "uname", "yes", "man", "help", "info", "apropos", "unset", "set", "shopt", "ulimit", "umask", "wait",
		"jobs", "fg", "bg", "disown", "getopts", "history", "fc", "complete", "compgen", "caller", "logout", "hostname":
		// operands are names, numbers or expressions, not files
	case "printf":
		return shPrintfText(c)
	case "base64", "gbase64":
		return w.base64(c)
	case "xxd":
		return w.xxd(c)
	case "rev":
		f := w.files(c, &shFileProg{acc: shAccR, opts: shRevOpts})
		if c.in.hasText && len(c.argv) == 1 {
			lines := strings.Split(c.in.text, "\n")
			for i, l := range lines {
				r := []rune(l)
				for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
					r[a], r[b] = r[b], r[a]
				}
				lines[i] = string(r)
			}
			return shFlow{text: strings.Join(lines, "\n"), hasText: true}
		}
		return f
	case "tee":
		return w.tee(c)
	case "uniq":
		n := 0
		shScanOpts(c.argv, 1, shUniqOpts, func(o shOption) bool {
			if o.name == "" {
				acc := shAccR
				if n == 1 {
					acc = shAccW
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
		shScanOpts(c.argv, 1, shMknodOpts, func(o shOption) bool {
			if o.name == "" {
				if n == 0 {
					w.argPath(o.val, c.sc, shAccW, true)
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
				w.argPath(shArg{s: a.s[3:], dyn: a.dyn}, c.sc, shAccR, true)
			case strings.HasPrefix(a.s, "of="):
				abs := w.argPath(shArg{s: a.s[3:], dyn: a.dyn}, c.sc, shAccW, true)
				if c.in.bits&shFlowDL != 0 && abs != "" {
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
		sp := shUnzipOpts
		first := true
		shScanOpts(c.argv, 1, sp, func(o shOption) bool {
			switch o.name {
			case "":
				if first {
					first = false
					w.argPath(o.val, c.sc, shAccR, true)
				}
			case "d":
				w.argPath(o.val, c.sc, shAccW, true)
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
		acc := shAccRW
		if toStdout {
			acc = shAccR
		}
		return w.files(c, &shFileProg{acc: acc, opts: shGzipOpts, optAcc: shGzipAcc})
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
	return shFlow{}
}

// argPath records an operand that names a file. bare: names without a path
// shape count. It returns the absolute path, or "".
func (w *shellWalker) argPath(a shArg, sc *shellScope, acc Access, bare bool) string {
	s := a.s
	if a.proc || s == "" || s == "-" || strings.Contains(s, "{}") {
		return ""
	}
	if shIsURL(s) {
		if p, ok := shFileURLPath(s); ok {
			w.addPathAbs(s, p, acc)
		}
		return ""
	}
	if !bare && !shPathLike(s) {
		return ""
	}
	if host, ok := shDevTCPHost(s); ok {
		w.addHost(host)
		return ""
	}
	abs, ok := w.resolve(s, sc.dir)
	if !ok || shIsPseudoDevice(abs) {
		return ""
	}
	w.addPathAbs(w.rawPath(s, abs, sc), abs, acc)
	return abs
}

// rawPath is the Raw of a path fact: the word as the shell sees it, or the
// absolute path when a relative word would resolve elsewhere from the
// caller's cwd (after cd).
func (w *shellWalker) rawPath(s, abs string, sc *shellScope) string {
	if sc.dir != w.cwd && s != "" && s[0] != '/' {
		return abs
	}
	return s
}

func shLongOptAccess(name string) Access {
	for _, k := range []string{"out", "log", "dest", "target", "write", "save", "dump", "export"} {
		if strings.Contains(name, k) {
			return AccessWrite
		}
	}
	return AccessRead
}

// generic records path-shaped operands of a program we know nothing about.
func (w *shellWalker) generic(c *shCmd, start int) shFlow {
	after := false
	for _, a := range c.argv[start:] {
		s := a.s
		if !after && s == "--" {
			after = true
			continue
		}
		if !after && len(s) > 1 && s[0] == '-' && !a.proc {
			if s[1] == '-' {
				if name, val, ok := strings.Cut(s[2:], "="); ok && shPathLike(val) {
					w.argPath(shArg{s: val, dyn: a.dyn}, c.sc, shLongOptAccess(name), false)
				}
			}
			continue
		}
		if !after {
			if _, val, ok := shAssignWord(s); ok {
				if shPathLike(val) {
					w.argPath(shArg{s: val, dyn: a.dyn}, c.sc, AccessRead, false)
				}
				continue
			}
		}
		if strings.ContainsAny(s, " \t\n") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
			continue // a phrase or a command line handed on, not a file name
		}
		w.argPath(a, c.sc, AccessRead, false)
	}
	return shFlow{}
}

func (w *shellWalker) files(c *shCmd, fp *shFileProg) shFlow {
	n := 0
	shScanOpts(c.argv, 1, fp.opts, func(o shOption) bool {
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
		} else if o.long && o.hasVal && o.idx < 0 && shPathLike(o.val.s) {
			w.argPath(o.val, c.sc, shLongOptAccess(o.name), false)
		}
		return true
	})
	if fp.fifo {
		w.fifoDetail = c.sc.detail()
	}
	if fp.pass && n == 0 {
		return shFlow{bits: c.in.bits & shFlowTaint, text: c.in.text, hasText: c.in.hasText}
	}
	return shFlow{}
}

func (w *shellWalker) tee(c *shCmd) shFlow {
	shScanOpts(c.argv, 1, shTeeOpts, func(o shOption) bool {
		if o.name == "" {
			abs := w.argPath(o.val, c.sc, shAccW, true)
			if abs != "" && c.in.bits&shFlowDL != 0 {
				w.markDownloaded(abs)
			}
		}
		return true
	})
	return shFlow{bits: c.in.bits & shFlowTaint, text: c.in.text, hasText: c.in.hasText}
}

func (w *shellWalker) cd(c *shCmd) {
	sc := c.sc
	if c.prog == "popd" {
		if n := len(sc.dirs); n > 0 {
			sc.dir = sc.dirs[n-1]
			sc.dirs = sc.dirs[: n-1 : n-1]
		}
		return
	}
	var target *shArg
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
func (w *shellWalker) declare(c *shCmd) {
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
		if name, val, ok := shAssignWord(a.s); ok {
			if exported {
				w.addEnv(name, val)
			}
			if !a.dyn {
				c.sc.setVar(name, val)
			}
		}
	}
}

func shEchoText(c *shCmd) shFlow {
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
	j := shJoinArgs(args)
	var f shFlow
	if j.dl {
		f.bits |= shFlowDL
	}
	if j.dyn {
		return f
	}
	text := j.s
	if len(text) > shellMaxWord {
		return f
	}
	if escapes {
		text = shDecodeANSIC(text)
	}
	if newline {
		text += "\n"
	}
	f.text, f.hasText = text, true
	return f
}

func shPrintfText(c *shCmd) shFlow {
	args := c.argv[1:]
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-v") {
		return shFlow{}
	}
	j := shJoinArgs(args)
	var f shFlow
	if j.dl {
		f.bits |= shFlowDL
	}
	if j.dyn {
		return f
	}
	format := args[0].s
	rest := shArgStrings(args[1:])
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
					sb.WriteString(shDecodeANSIC(format[i:k]))
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
					arg = shDecodeANSIC(arg)
				}
				sb.WriteString(arg)
			}
			i = k
		}
		if !used || len(rest) == 0 || sb.Len() > shellMaxWord {
			break
		}
	}
	f.text, f.hasText = sb.String(), true
	return f
}

func (w *shellWalker) base64(c *shCmd) shFlow {
	decode := false
	var file *shArg
	shScanOpts(c.argv, 1, shBase64Opts, func(o shOption) bool {
		switch o.name {
		case "d", "D", "decode":
			decode = true
		case "i", "input", "":
			v := o.val
			file = &v
			w.argPath(o.val, c.sc, shAccR, true)
		case "o", "output":
			w.argPath(o.val, c.sc, shAccW, true)
		}
		return true
	})
	if file != nil || !c.in.hasText {
		return shFlow{bits: c.in.bits & shFlowTaint}
	}
	if !decode {
		return shFlow{text: base64.StdEncoding.EncodeToString([]byte(c.in.text)) + "\n", hasText: true}
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
		return shFlow{}
	}
	return shFlow{text: string(b), hasText: true}
}

func (w *shellWalker) xxd(c *shCmd) shFlow {
	reverse, plain := false, false
	n := 0
	shScanOpts(c.argv, 1, shXxdOpts, func(o shOption) bool {
		switch o.name {
		case "r", "revert":
			reverse = true
		case "p", "ps", "postscript", "plain":
			plain = true
		case "":
			acc := shAccR
			if n == 1 {
				acc = shAccW
			}
			n++
			w.argPath(o.val, c.sc, acc, true)
		}
		return true
	})
	if n > 0 || !c.in.hasText || !reverse || !plain {
		return shFlow{bits: c.in.bits & shFlowTaint}
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, c.in.text)
	b, err := hex.DecodeString(s)
	if err != nil {
		return shFlow{}
	}
	return shFlow{text: string(b), hasText: true}
}

func (w *shellWalker) chmod(c *shCmd) {
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
				w.argPath(shArg{s: val, dyn: a.dyn}, c.sc, shAccR, true)
				modeSeen = true
			} else if name == "reference" {
				modeSeen = true
			}
			continue
		}
		if !after && len(s) > 1 && s[0] == '-' {
			if !modeSeen && shIsModeFlag(c.prog, s[1:]) {
				modeSeen = true
			}
			continue
		}
		if !modeSeen {
			modeSeen = true
			continue
		}
		w.argPath(a, c.sc, shAccW, true)
	}
}

// isModeFlag reports a mode that looks like an option: chmod -x, chattr -i.
func shIsModeFlag(prog, s string) bool {
	switch prog {
	case "chmod":
		return strings.Trim(s, "rwxXst") == "" && s != ""
	case "chattr":
		return strings.Trim(s, "aAcCdDeFijmPsStTux") == "" && s != ""
	}
	return false
}

func (w *shellWalker) copyLike(c *shCmd) {
	var sp *shOptSpec
	srcAcc := shAccR
	switch c.prog {
	case "install":
		sp = shInstallOpts
	case "mv":
		sp = shMvOpts
		srcAcc = shAccRW
	default:
		sp = shCpOpts
	}
	var ops []shArg
	var target *shArg
	dirMode := false
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
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
			w.argPath(a, c.sc, shAccW, true)
		}
		return
	}
	var dst string
	srcs := ops
	switch {
	case target != nil:
		dst = w.argPath(*target, c.sc, shAccW, true)
	case len(ops) == 1 && (c.prog == "ln" || c.prog == "link"):
		if abs, ok := w.resolve(path.Base(ops[0].s), c.sc.dir); ok {
			w.addPathAbs(path.Base(ops[0].s), abs, shAccW)
		}
	case len(ops) >= 2:
		srcs = ops[:len(ops)-1]
		dst = w.argPath(ops[len(ops)-1], c.sc, shAccW, true)
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

func (w *shellWalker) sed(c *shCmd) {
	argv := c.argv
	inplace, haveScript := false, false
	var files []shArg
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
						w.argPath(shArg{s: val}, c.sc, shAccR, true)
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
						v, next := shAttachedOrNext(argv, i, j)
						if s[j] == 'f' {
							w.argPath(v, c.sc, shAccR, true)
						}
						i = next - 1
						break cluster
					case 'l':
						_, next := shAttachedOrNext(argv, i, j)
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
	acc := shAccR
	if inplace {
		acc = shAccRW
	}
	for _, f := range files {
		w.argPath(f, c.sc, acc, true)
	}
}

func (w *shellWalker) grep(c *shCmd) {
	var sp *shOptSpec
	switch c.prog {
	case "rg":
		sp = shRgOpts
	case "ag":
		sp = shAgOpts
	case "ack", "ack-grep":
		sp = shAckOpts
	default:
		sp = shGrepOpts
	}
	patternGiven := false
	var ops []shArg
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
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
				w.argPath(o.val, c.sc, shAccR, true)
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
				w.classify([]shArg{o.val}, c.sc, shFlow{})
			}
		}
		return true
	})
	if !patternGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, a := range ops {
		w.argPath(a, c.sc, shAccR, true)
	}
}

func (w *shellWalker) jq(c *shCmd) {
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
				w.argPath(argv[i+2], c.sc, shAccR, true)
			}
			i += 2
			continue
		case "-f", "--from-file":
			if i+1 < len(argv) {
				w.argPath(argv[i+1], c.sc, shAccR, true)
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
		w.argPath(argv[i], c.sc, shAccR, true)
	}
}

func (w *shellWalker) tar(c *shCmd) {
	argv := c.argv
	mode := byte(0)
	var archives []shArg
	var cdir *shArg
	var ops []shArg
	valueLetters := "fCTXbKNVLgHFI"
	handleVal := func(letter string, v shArg) {
		switch letter {
		case "f", "file":
			archives = append(archives, v)
		case "C", "directory":
			vv := v
			cdir = &vv
		case "T", "files-from", "X", "exclude-from":
			w.argPath(v, c.sc, shAccR, true)
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
	long := shTarOpts
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
				v := shArg{s: val, dyn: a.dyn}
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
					v, next := shAttachedOrNext(argv, i, j)
					handleVal(s[j:j+1], v)
					i = next - 1
					break
				}
			}
			continue
		}
		ops = append(ops, a)
	}
	archAcc, dirAcc, opAcc := shAccR, shAccR, Access(0)
	switch mode {
	case 'c':
		archAcc, opAcc = shAccW, shAccR
	case 'r', 'u', 'A':
		archAcc, opAcc = shAccRW, shAccR
	case 'x':
		dirAcc = shAccW
	case 'd':
		archAcc = shAccRW
	}
	for _, a := range archives {
		if h, ok := shScpHost(a.s); ok {
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

func (w *shellWalker) zip(c *shCmd) {
	argv := c.argv
	var ops []shArg
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
				w.argPath(argv[i], c.sc, shAccW, true)
			}
		case s == "-b" || s == "-n" || s == "-P" || s == "-t" || s == "-tt" || s == "-Z" || s == "-s" || s == "-sb" || s == "--password" || s == "--temp-path":
			i++
		case strings.HasPrefix(s, "-") && len(s) > 1:
		default:
			ops = append(ops, argv[i])
		}
	}
	for k, a := range ops {
		acc := shAccR
		if k == 0 {
			acc = shAccRW
		}
		w.argPath(a, c.sc, acc, true)
	}
}

func (w *shellWalker) git(c *shCmd) {
	argv := c.argv
	i := 1
	sc := c.sc
	var dirArg *shArg
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
			w.argPath(shArg{s: v, dyn: argv[i].dyn}, sc, shAccRW, true)
		}
		i++
	}
	sub := ""
	if i < len(argv) {
		sub = argv[i].s
		i++
	}
	if dirArg != nil {
		acc := shAccRW
		switch sub {
		case "status", "log", "diff", "show", "grep", "blame", "ls-files", "rev-parse", "describe", "shortlog", "ls-tree", "cat-file", "branch", "remote", "config":
			acc = shAccR
		}
		w.argPath(*dirArg, c.sc, acc, true)
	}
	gc := &shCmd{prog: "git", argv: argv[i-1:], sc: sc, in: c.in}
	if sub == "" {
		return
	}
	switch sub {
	case "commit":
		sp := shCommitOpts
		shScanOpts(gc.argv, 1, sp, func(o shOption) bool {
			switch o.name {
			case "":
				w.argPath(o.val, sc, shAccR, false)
			case "F", "file", "t", "template", "pathspec-from-file":
				w.argPath(o.val, sc, shAccR, true)
			}
			return true
		})
	case "clone":
		sp := shCloneOpts
		n := 0
		shScanOpts(gc.argv, 1, sp, func(o shOption) bool {
			switch o.name {
			case "":
				if n == 0 {
					w.remoteHost(o.val.s)
				} else {
					w.argPath(o.val, sc, shAccW, true)
				}
				n++
			case "u", "upload-pack":
				w.nestedProgram(o.val.s, sc, nil)
			case "template", "reference", "separate-git-dir":
				w.argPath(o.val, sc, shAccR, true)
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
		w.generic(&shCmd{prog: "git", argv: gc.argv, sc: sc}, 1)
		after := false
		for _, a := range gc.argv[1:] {
			if a.s == "--" {
				after = true
				continue
			}
			if after || sub == "rm" || sub == "mv" {
				if !strings.HasPrefix(a.s, "-") {
					w.argPath(a, sc, shAccW, false)
				}
			}
		}
	case "grep":
		w.grep(gc)
	case "apply", "am":
		w.files(gc, &shFileProg{acc: shAccR, opts: shApplyOpts})
	case "config", "branch", "tag", "log", "show", "stash", "reset", "rebase", "merge", "cherry-pick", "revert", "switch", "init", "status":
		// operands are refs, names and messages, not files
		if sub == "log" || sub == "show" || sub == "status" || sub == "init" {
			w.generic(gc, 1)
		}
	default:
		w.generic(gc, 1)
	}
}

func (w *shellWalker) vim(c *shCmd) {
	argv := c.argv
	sp := shVimOpts
	shScanOpts(argv, 1, sp, func(o shOption) bool {
		switch o.name {
		case "":
			if strings.HasPrefix(o.val.s, "+") {
				if len(o.val.s) > 1 {
					w.embedded(shArg{s: o.val.s[1:], dyn: o.val.dyn, dl: o.val.dl}, c.sc)
				}
				return true
			}
			w.argPath(o.val, c.sc, shAccRW, true)
		case "c", "cmd":
			w.embedded(o.val, c.sc)
		case "S", "u", "U":
			w.argPath(o.val, c.sc, shAccRX, true)
		case "s", "q":
			w.argPath(o.val, c.sc, shAccR, true)
		case "w", "W", "startuptime", "log":
			w.argPath(o.val, c.sc, shAccW, true)
		case "i":
			w.argPath(o.val, c.sc, shAccRW, true)
		}
		return true
	})
}

func (w *shellWalker) emacs(c *shCmd) {
	sp := shEmacsOpts
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		switch o.name {
		case "":
			if !strings.HasPrefix(o.val.s, "+") {
				w.argPath(o.val, c.sc, shAccRW, true)
			}
		case "eval", "execute":
			w.embedded(o.val, c.sc)
		case "l", "load", "script":
			w.argPath(o.val, c.sc, shAccRX, true)
		case "file", "visit", "find-file", "insert":
			w.argPath(o.val, c.sc, shAccRW, true)
		}
		return true
	})
}

func (w *shellWalker) openssl(c *shCmd) shFlow {
	sp := shOpensslOpts
	var f shFlow
	sub := ""
	first := true
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		switch o.name {
		case "":
			if first {
				first = false
				sub = o.val.s
				return true
			}
			if !shIsDigits(o.val.s) {
				w.argPath(o.val, c.sc, shAccR, true)
			}
		case "in", "key", "inkey", "signkey", "CAfile", "CApath", "cert", "CAkey", "certfile", "config", "extfile", "rand",
			"untrusted", "CRL", "crl", "verify", "prverify", "sign", "signature", "kfile", "keyfile", "trusted", "sess_in":
			w.argPath(o.val, c.sc, shAccR, true)
		case "out", "keyout", "writerand", "out_trusted", "sess_out", "keylogfile", "msgfile":
			w.argPath(o.val, c.sc, shAccW, true)
		case "passin", "passout", "pass", "kfile_pass":
			if p, ok := strings.CutPrefix(o.val.s, "file:"); ok {
				w.argPath(shArg{s: p, dyn: o.val.dyn}, c.sc, shAccR, true)
			}
		case "connect", "host", "proxy":
			if h := shHostPart(o.val.s); h != "" {
				w.addHost(h)
			}
		}
		return true
	})
	if sub == "s_client" {
		f.bits |= shFlowConnector | shFlowNet
		w.netcatDetail = c.sc.detail()
	}
	return f
}

func (w *shellWalker) sshKeygen(c *shCmd) {
	readOnly := false
	for _, a := range c.argv[1:] {
		s := a.s
		if len(s) > 1 && s[0] == '-' && strings.ContainsAny(s[1:], "ylFRBeiLQ") && !strings.ContainsAny(s[1:], "bCEfIJjKmMNnOPrsStVwYzZaD") {
			readOnly = true
		}
	}
	keyAcc := shAccRW
	if readOnly {
		keyAcc = shAccR
	}
	sp := shSSHKeygenOpts
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		switch o.name {
		case "f":
			w.argPath(o.val, c.sc, keyAcc, true)
		case "s":
			w.argPath(o.val, c.sc, shAccR, true)
		case "":
			w.argPath(o.val, c.sc, shAccR, false)
		}
		return true
	})
}

var shFindValued = shSet("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type",
	"-xtype", "-user", "-group", "-perm", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-maxdepth",
	"-mindepth", "-printf", "-fstype", "-inum", "-links", "-uid", "-gid", "-used", "-context", "-lname", "-ilname", "-regextype")

var shFindWriters = shSet("rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "mv", "truncate", "srm", "wipe", "dd",
	"tee", "touch", "chattr", "sed", "perl", "ruby", "cp", "install", "ln")

// find records the start points (written when -delete or a writer runs
// under -exec) and classifies every -exec/-execdir/-ok command.
func (w *shellWalker) find(c *shCmd) shFlow {
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
	var starts []shArg
	for i < len(argv) {
		s := argv[i].s
		if strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == "," || s == ")" {
			break
		}
		starts = append(starts, argv[i])
		i++
	}
	if len(starts) == 0 {
		starts = []shArg{{s: "."}}
	}
	writes := false
	var inners [][]shArg
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
				p := shProgName(inner[0].s)
				if shFindWriters[p] || shellProgs[p] {
					writes = writes || p != "sed" && p != "perl" && p != "ruby" || shArgsHavePrefix(inner, "-i")
				}
			}
			i = j
		case s == "-fprint" || s == "-fprint0" || s == "-fls" || s == "-fprintf":
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, shAccW, true)
			}
			if s == "-fprintf" {
				i++
			}
		case s == "-newer" || s == "-anewer" || s == "-cnewer" || s == "-samefile" || s == "-files0-from" ||
			strings.HasPrefix(s, "-newer") && len(s) == len("-newerXY"):
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, shAccR, true)
			}
		case shFindValued[s]:
			i++
		}
	}
	acc := shAccR
	if writes {
		acc = shAccRW
	}
	for _, s := range starts {
		w.argPath(s, c.sc, acc, true)
	}
	for _, inner := range inners {
		w.classify(inner, c.sc, shFlow{})
	}
	return shFlow{}
}

func shArgsHavePrefix(argv []shArg, prefix string) bool {
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.s, prefix) {
			return true
		}
	}
	return false
}

// Option tables, hoisted so a call allocates nothing.
var shRevOpts = &shOptSpec{}
var shUniqOpts = &shOptSpec{short: "fsw", long: shSet("skip-fields", "skip-chars", "check-chars", "group", "all-repeated")}
var shMknodOpts = &shOptSpec{short: "mZ", long: shSet("mode", "context")}
var shUnzipOpts = &shOptSpec{short: "dPxIO"}
var shGzipOpts = &shOptSpec{short: "SoDTLb", long: shSet("suffix", "output", "dict", "threads")}
var shGzipAcc = map[string]Access{"o": shAccW, "output": shAccW, "D": shAccR}
var shTeeOpts = &shOptSpec{}
var shBase64Opts = &shOptSpec{short: "wio", long: shSet("wrap", "input", "output")}
var shXxdOpts = &shOptSpec{short: "cglsoCn", long: shSet("cols", "groupsize", "len", "seek", "offset", "name")}
var shInstallOpts = &shOptSpec{short: "mogSt", long: shSet("mode", "owner", "group", "suffix", "target-directory", "strip-program", "backup", "context")}
var shMvOpts = &shOptSpec{short: "tS", long: shSet("target-directory", "suffix")}
var shCpOpts = &shOptSpec{short: "tS", long: shSet("target-directory", "suffix")}
var shRgOpts = &shOptSpec{short: "efgtTmABCjEMrd", long: shSet("regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "threads", "encoding", "max-columns", "replace", "max-depth", "type-add", "type-clear", "pre", "pre-glob", "ignore-file", "path-separator", "sort", "sortr", "colors", "engine", "dfa-size-limit", "regex-size-limit", "max-filesize", "context-separator", "field-context-separator", "field-match-separator", "hostname-bin", "hyperlink-format", "color")}
var shAgOpts = &shOptSpec{short: "ABCGgmpW", long: shSet("ignore", "ignore-dir", "depth", "file-search-regex", "after", "before", "context", "max-count", "workers", "path-to-ignore", "pager")}
var shAckOpts = &shOptSpec{short: "ABCmg", long: shSet("type", "ignore-dir", "ignore-file", "match", "output", "after-context", "before-context", "context", "max-count", "pager", "type-add", "type-set")}
var shGrepOpts = &shOptSpec{short: "efmABCdD", long: shSet("regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "group-separator")}
var shCommitOpts = &shOptSpec{short: "mFCctS", long: shSet("message", "file", "reuse-message", "reedit-message", "template", "author", "date", "fixup", "squash", "cleanup", "trailer", "pathspec-from-file")}
var shCloneOpts = &shOptSpec{short: "boucj", long: shSet("branch", "origin", "upload-pack", "config", "depth", "reference", "reference-if-able", "template", "separate-git-dir", "filter", "jobs", "shallow-since", "shallow-exclude", "server-option", "bundle-uri", "ref-format")}
var shApplyOpts = &shOptSpec{short: "pC", long: shSet("directory", "exclude", "include", "whitespace")}
var shVimOpts = &shOptSpec{short: "cSuUiTtsqwWo", long: shSet("cmd", "servername", "startuptime", "log")}
var shEmacsOpts = &shOptSpec{short: "lfLdt", long: shSet("eval", "load", "funcall", "directory", "execute", "file", "visit", "insert", "find-file", "chdir", "script", "socket-name", "server-file", "alternate-editor")}
var shOpensslOpts = &shOptSpec{oneDash: true, long: shSet("in", "out", "key", "inkey", "signkey", "CAfile", "CApath", "cert", "CAkey", "certfile",
	"config", "extfile", "extensions", "keyout", "passin", "passout", "pass", "connect", "servername", "host", "port", "proxy",
	"subj", "days", "newkey", "md", "k", "K", "iv", "S", "name", "set_serial", "sigopt", "pkeyopt", "keyform", "inform",
	"outform", "certform", "reqexts", "section", "rand", "writerand", "untrusted", "CRL", "verify", "prverify", "sign",
	"signature", "kdf", "kdfopt", "macopt", "mac", "nameopt", "certopt", "ext", "addext", "reqopt", "digest", "accept",
	"kfile", "keyfile", "out_trusted", "trusted", "crl", "nextprotoneg", "alpn", "starttls", "sess_out", "sess_in", "keylogfile", "msgfile")}
var shSSHKeygenOpts = &shOptSpec{short: "bCEFfIJjKmMNnOPrsStVwYzZaD"}
var shTarOpts = shSet("file", "directory", "files-from", "exclude-from", "use-compress-program", "info-script", "new-volume-script",
	"to-command", "rsh-command", "rmt-command", "checkpoint-action", "exclude", "transform", "xform", "owner", "group",
	"mode", "mtime", "newer", "newer-mtime", "label", "blocking-factor", "record-size", "tape-length", "format", "strip-components", "suffix")
