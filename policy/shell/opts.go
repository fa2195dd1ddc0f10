package shell

import (
	"strings"
	"sync"
)

// optSpec says which options of a program take a value.
type optSpec struct {
	short   string   // short options taking a value ("o" for -o FILE / -oFILE)
	long    *nameSet // long options taking a value (without dashes)
	oneDash bool     // -name is a long option (find, openssl, powershell)
	// optional are short options whose value is optional and only
	// attached (xargs -e[EOF], -i[R], -l[N]): the rest of the word is it
	optional string
}

// option is one option or operand of a command line.
type option struct {
	name   string // option name without dashes; "" for an operand
	long   bool
	val    argVal // the option's value, or the operand
	hasVal bool
	idx    int // argv index of the operand or of a separate value; -1 when attached
}

// scanOpts walks argv[start:] in getopt style (options may follow
// operands; "--" ends options). fn returns false to stop.
func scanOpts(argv []argVal, start int, sp *optSpec, fn func(o option) bool) {
	if sp == nil {
		sp = &optSpec{}
	}
	for i := start; i < len(argv); i++ {
		a := argv[i]
		s := a.s
		if s == "--" {
			for j := i + 1; j < len(argv); j++ {
				if !fn(option{val: argv[j], idx: j}) {
					return
				}
			}
			return
		}
		if len(s) < 2 || s[0] != '-' || a.proc {
			if !fn(option{val: a, idx: i}) {
				return
			}
			continue
		}
		if s[1] == '-' || sp.oneDash {
			body := s[1:]
			if s[1] == '-' {
				body = s[2:]
			}
			name, val, eq := strings.Cut(body, "=")
			o := option{name: name, long: true, idx: -1}
			if eq {
				o.val, o.hasVal = argVal{s: val, dyn: a.dyn, dl: a.dl}, true
			} else if sp.long.has(name) && i+1 < len(argv) {
				i++
				o.val, o.hasVal, o.idx = argv[i], true, i
			}
			if !fn(o) {
				return
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			o := option{name: s[j : j+1], idx: -1}
			if strings.IndexByte(sp.short, s[j]) >= 0 {
				if j+1 < len(s) {
					o.val, o.hasVal = argVal{s: s[j+1:], dyn: a.dyn, dl: a.dl}, true
				} else if i+1 < len(argv) {
					i++
					o.val, o.hasVal, o.idx = argv[i], true, i
				}
				if !fn(o) {
					return
				}
				break
			}
			if !fn(o) {
				return
			}
		}
	}
}

// skipWrapperOpts returns the index of the wrapped command: options are
// skipped (values included), then `operands` operands, then the command.
// noCmd reports an option after which no command runs.
func skipWrapperOpts(argv []argVal, sp *optSpec, operands int, noCmd string, digitOpts bool) (int, bool) {
	i := 1
	stop := false
	for i < len(argv) {
		s := argv[i].s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s[1] == '-' {
			name, _, eq := strings.Cut(s[2:], "=")
			if !eq && sp.long.has(name) {
				i++
			}
			i++
			continue
		}
		if digitOpts && isDigits(s[1:]) {
			i++
			continue
		}
		for j := 1; j < len(s); j++ {
			if strings.IndexByte(noCmd, s[j]) >= 0 {
				stop = true
			}
			if strings.IndexByte(sp.short, s[j]) >= 0 {
				if j+1 == len(s) {
					i++
				}
				break
			}
			if strings.IndexByte(sp.optional, s[j]) >= 0 {
				break
			}
		}
		i++
	}
	for ; operands > 0 && i < len(argv); operands-- {
		i++
	}
	return i, stop
}

// nameSet is a set of names whose map is built on its first lookup: the
// package's ~100 option tables are package variables, and a process that
// never analyses a shell command (a hook answering a Read) must not pay
// for building them at start-up.
type nameSet struct {
	names []string
	once  sync.Once
	m     map[string]bool
}

func set(names ...string) *nameSet { return &nameSet{names: names} }

// has says whether n is in the set; a nil set is empty.
func (s *nameSet) has(n string) bool {
	if s == nil {
		return false
	}
	s.once.Do(func() {
		s.m = make(map[string]bool, len(s.names))
		for _, n := range s.names {
			s.m[n] = true
		}
	})
	return s.m[n]
}

// list is the set's names (nil for a nil set), for a caller building
// another set from it.
func (s *nameSet) list() []string {
	if s == nil {
		return nil
	}
	return s.names
}

// setOfMap is the set of m's true keys.
func setOfMap(m map[string]bool) *nameSet {
	names := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			names = append(names, k)
		}
	}
	return &nameSet{names: names}
}

// toMap is a new map of the set's names, for a caller that adds to it.
func (s *nameSet) toMap() map[string]bool {
	m := make(map[string]bool, len(s.list()))
	for _, n := range s.list() {
		m[n] = true
	}
	return m
}

func assignWord(s string) (string, string, bool) {
	name, val, ok := strings.Cut(s, "=")
	if !ok || !isName(name) {
		return "", "", false
	}
	return name, val, true
}

func pathLike(s string) bool {
	if s == "" {
		return false
	}
	return s[0] == '.' || s[0] == '~' || strings.IndexByte(s, '/') >= 0
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// progName normalises a command word to the program it runs: base name,
// lower case (case-insensitive file systems), no .exe, versions folded
// (python3.12 → python, gawk → awk, ncat → nc).
func progName(s string) string {
	if i := strings.LastIndexAny(s, "/\\"); i >= 0 {
		s = s[i+1:]
	}
	if hasUpper(s) {
		s = strings.ToLower(s)
	}
	s = strings.TrimSuffix(s, ".exe")
	if p, ok := progAliases()[s]; ok {
		return p
	}
	for _, fam := range []string{"python", "pypy", "perl", "ruby", "php", "lua", "node", "pip"} {
		if strings.HasPrefix(s, fam) && len(s) > len(fam) && versionTail(s[len(fam):]) {
			if fam == "pypy" {
				return "python"
			}
			return fam
		}
	}
	if strings.HasPrefix(s, "mkfs.") || strings.HasPrefix(s, "mke2fs") {
		return "mkfs"
	}
	return s
}

func versionTail(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// progAliases is built on first use, as the option tables are.
var progAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"pypy": "python", "nodejs": "node", "luajit": "lua",
		"gawk": "awk", "mawk": "awk", "nawk": "awk", "busybox-awk": "awk",
		"powershell": "pwsh", "powershell_ise": "pwsh",
		"ncat": "nc", "netcat": "nc", "nc.openbsd": "nc", "nc.traditional": "nc",
		"egrep": "grep", "fgrep": "grep", "zgrep": "grep", "zegrep": "grep", "zfgrep": "grep",
		"pcregrep": "grep", "pcre2grep": "grep", "ggrep": "grep",
		"gsed": "sed", "gtar": "tar", "bsdtar": "tar",
		"nvim": "vim", "vi": "vim", "view": "vim", "vimdiff": "vim", "gvim": "vim", "ex": "vim",
		"httpie": "http", "https": "http", "xh": "http", "xhs": "http",
		"invoke-webrequest": "iwr", "invoke-restmethod": "iwr", "irm": "iwr",
		"ping6": "ping", "traceroute6": "ping", "traceroute": "ping", "tracepath": "ping", "mtr": "ping", "fping": "ping", "arping": "ping",
		"gpg2": "gpg", "bunx": "npx", "pnpx": "npx",
		"md5sum": "sha256sum", "sha1sum": "sha256sum", "sha224sum": "sha256sum", "sha384sum": "sha256sum",
		"sha512sum": "sha256sum", "b2sum": "sha256sum", "cksum": "sha256sum", "sum": "sha256sum",
		"shasum": "sha256sum", "md5": "sha256sum",
		"bzcat": "zcat", "xzcat": "zcat", "zstdcat": "zcat", "lzcat": "zcat",
		"zless": "zcat", "zmore": "zcat", "bzless": "zcat", "xzless": "zcat",
		"gunzip": "gzip", "bzip2": "gzip", "bunzip2": "gzip", "xz": "gzip", "unxz": "gzip", "lzma": "gzip",
		"unlzma": "gzip", "pigz": "gzip", "compress": "gzip", "uncompress": "gzip", "lz4": "gzip", "zstd": "gzip",
		"unzstd": "gzip", "brotli": "gzip",
	}
})
