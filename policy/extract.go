package policy

// Extraction of URLs, paths and hosts from free text: a `python -c`
// program, a JSON blob, a markdown document. These are heuristics for the
// safety net, tuned to find what a program would touch; the results are raw
// substrings of the input, to be canonicalised by CanonicalHost / ExpandPath.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExtractURLs returns every URL-like substring of s, in order, or nil.
//
// A URL starts with a known scheme followed by "://" (case-insensitive):
// http https ftp ftps ws wss file gopher gophers dict tftp ldap ldaps sftp
// scp smb smbs telnet imap imaps pop3 pop3s smtp smtps mqtt rtsp rtmp ssh
// git rsync, also behind a "x+" prefix ("git+https://"). The scheme must
// not be glued to a preceding letter or digit. The URL ends at whitespace
// (Unicode spaces included), a control character, a quote ('"`), '<', '>',
// ',', ';', '|', or a closing ')', ']' or '}' that has no opening partner
// inside the URL; trailing '.', ':', '!' and '?' are dropped. A scheme with
// nothing after "://" is skipped.
//
// Not recognised: scheme-relative "//host/x", JSON-escaped "http:\/\/x",
// URLs split across string concatenations, and schemes outside the list.
func ExtractURLs(s string) []string {
	if !strings.Contains(s, "://") {
		return nil
	}
	var out []string
	for from := 0; ; {
		start, end, ok := nextURL(s, from)
		if !ok {
			return out
		}
		out = append(out, s[start:end])
		from = end
	}
}

// nextURL finds the first URL starting at or after from.
func nextURL(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return 0, 0, false
		}
		k += from
		st := k
		for st > from && isSchemeByte(s[st-1]) {
			st--
		}
		after := k + len("://")
		if !knownURLScheme(s[st:k]) {
			from = after
			continue
		}
		e := scanURLEnd(s, after)
		for e > after && strings.IndexByte(".:!?", s[e-1]) >= 0 {
			e--
		}
		if e == after {
			from = after
			continue
		}
		return st, e, true
	}
	return 0, 0, false
}

// knownURLScheme reports whether scheme (any case, possibly "x+scheme")
// is one ExtractURLs looks for.
func knownURLScheme(scheme string) bool {
	if scheme == "" || !isASCIILetter(scheme[0]) {
		return false
	}
	if i := strings.LastIndexByte(scheme, '+'); i >= 0 {
		scheme = scheme[i+1:]
	}
	if len(scheme) > 8 {
		return false
	}
	var buf [8]byte
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(scheme)]) {
	case "http", "https", "ftp", "ftps", "ws", "wss", "file", "gopher", "gophers",
		"dict", "tftp", "ldap", "ldaps", "sftp", "scp", "smb", "smbs", "telnet",
		"imap", "imaps", "pop3", "pop3s", "smtp", "smtps", "mqtt", "rtsp", "rtmp",
		"ssh", "git", "rsync":
		return true
	}
	return false
}

// scanURLEnd returns the end of the URL whose text continues at i.
func scanURLEnd(s string, i int) int {
	var paren, brack, brace int
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return i
			}
			i += w
			continue
		}
		switch c {
		case '"', '\'', '`', '<', '>', ',', ';', '|', 0x7f:
			return i
		case '(':
			paren++
		case ')':
			if paren == 0 {
				return i
			}
			paren--
		case '[':
			brack++
		case ']':
			if brack == 0 {
				return i
			}
			brack--
		case '{':
			brace++
		case '}':
			if brace == 0 {
				return i
			}
			brace--
		default:
			if c <= ' ' {
				return i
			}
		}
		i++
	}
	return len(s)
}

// pathDelim marks the bytes that end a path token in ExtractPaths.
var pathDelim = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\v\f'\"`(),;=:<>|&[]{}@") {
		t[c] = true
	}
	return t
}()

// ExtractPaths returns the absolute or home-relative paths embedded in s,
// in order, as raw substrings (to be expanded with ExpandPath), or nil.
//
// A path token starts at the beginning of s or after a delimiter and runs
// to the next delimiter. Delimiters: whitespace, quotes '"`, ( ) , ; = :
// (PATH-like lists) < > | & [ ] { } and '@' (curl's "-d@/etc/x"). A token
// is a path when it starts with:
//
//	/x          (a lone "/" only when a quote is next to it: "rm -rf /")
//	//x         unless the first segment looks like a host (a
//	            scheme-relative URL "//cdn.example.com/x.js")
//	~ ~/x  $HOME $HOME/x  ${HOME} ${HOME}/x
//	%USERPROFILE%\x  %USERPROFILE%/x  (any case)
//	C:\x  C:/x  (a drive letter)
//	./x  ../x  .\x  ..\x
//
// Text inside a URL found by ExtractURLs is skipped (a file:// URL is a
// URL, not a path, here). A trailing backslash (an escaped quote in code)
// and a single trailing '.' (end of a sentence) are dropped from POSIX
// tokens.
//
// Known limits: paths with spaces, relative paths without "./"
// ("notes/../x"), JSON-escaped slashes ("\/etc\/x"), escape sequences glued
// to a path ("\n/etc/x"), and paths assembled at run time
// ('~/.ss' + 'h/id_rsa', os.path.join(...)) are not found.
func ExtractPaths(s string) []string {
	if !strings.ContainsAny(s, "/~\\$") {
		return nil
	}
	var out []string
	uStart, uEnd, uOK := nextURL(s, 0)
	for i := 0; i < len(s); {
		if uOK && i >= uStart {
			if i < uEnd {
				i = uEnd
			}
			uStart, uEnd, uOK = nextURL(s, i)
			continue
		}
		if pathDelim[s[i]] || i > 0 && !pathDelim[s[i-1]] {
			i++
			continue
		}
		limit := len(s)
		if uOK {
			limit = uStart
		}
		if end, ok := pathToken(s, i, limit); ok && end > i {
			out = append(out, s[i:end])
			i = end
			continue
		}
		// Not a path: skip the rest of the token.
		i++
		for i < limit && !pathDelim[s[i]] {
			i++
		}
	}
	return out
}

// pathToken decides whether the token starting at i (and ending at a
// delimiter or at limit) is a path, and returns its trimmed end.
func pathToken(s string, i, limit int) (int, bool) {
	t := s[i:limit]
	skip := 0 // bytes of the prefix that may contain delimiters
	posix := true
	switch {
	case strings.HasPrefix(t, "${HOME}"):
		skip = len("${HOME}")
		if !sepOrEnd(t, skip) {
			return 0, false
		}
	case strings.HasPrefix(t, "$HOME"):
		skip = len("$HOME")
		if !sepOrEnd(t, skip) {
			return 0, false
		}
	case hasPrefixFold(t, "%USERPROFILE%"):
		skip = len("%USERPROFILE%")
		if len(t) == skip || t[skip] != '\\' && t[skip] != '/' {
			return 0, false
		}
		posix = false
	case len(t) >= 3 && isASCIILetter(t[0]) && t[1] == ':' && (t[2] == '\\' || t[2] == '/'):
		skip = 3
		posix = false
	case t != "" && t[0] == '~':
		skip = 1
		if !sepOrEnd(t, 1) {
			return 0, false
		}
	case strings.HasPrefix(t, "./"), strings.HasPrefix(t, "../"):
	case strings.HasPrefix(t, `.\`), strings.HasPrefix(t, `..\`):
		posix = false
	case t != "" && t[0] == '/':
	default:
		return 0, false
	}
	end := skip
	for end < len(t) && !pathDelim[t[end]] {
		end++
	}
	tok := t[:end]
	if tok == "/" {
		// A lone slash is the root only when quoted: "rm -rf /", not a / b.
		if !(i > 0 && isQuote(s[i-1]) || i+1 < len(s) && isQuote(s[i+1])) {
			return 0, false
		}
		return i + 1, true
	}
	if strings.HasPrefix(tok, "//") {
		seg := strings.TrimLeft(tok, "/")
		if k := strings.IndexByte(seg, '/'); k >= 0 {
			seg = seg[:k]
		}
		if seg == "" || LooksLikeHost(seg) {
			return 0, false
		}
	}
	if posix {
		for len(tok) > 1 && tok[len(tok)-1] == '\\' {
			tok = tok[:len(tok)-1]
		}
		if n := len(tok); n >= 2 && tok[n-1] == '.' && tok[n-2] != '.' && tok[n-2] != '/' {
			tok = tok[:n-1]
		}
	}
	return i + len(tok), true
}

// sepOrEnd reports whether t[i] is a slash, a delimiter, or the end.
func sepOrEnd(t string, i int) bool {
	return i == len(t) || t[i] == '/' || pathDelim[t[i]]
}

func isQuote(c byte) bool { return c == '\'' || c == '"' || c == '`' }

// notHostTLD are last labels that mark a file name, not a host ("README.md",
// "main.go"). Some of them are real TLDs (.md, .sh, .py, .pl, .rs, .zip);
// hosts there are sacrificed so that file names are not taken for hosts.
var notHostTLD = map[string]bool{
	"md": true, "txt": true, "json": true, "yaml": true, "yml": true, "go": true,
	"py": true, "js": true, "ts": true, "sh": true, "log": true, "csv": true,
	"html": true, "toml": true, "lock": true, "sum": true, "mod": true, "cfg": true,
	"ini": true, "conf": true, "xml": true, "png": true, "jpg": true, "gz": true,
	"zip": true, "tar": true, "env": true, "pem": true, "key": true, "c": true,
	"h": true, "rs": true, "java": true, "rb": true, "php": true, "pl": true,
	// Common extensions that are not TLDs at all.
	"rst": true, "cpp": true, "hpp": true, "kt": true, "swift": true, "lua": true,
	"sql": true, "svg": true, "gif": true, "jpeg": true, "pdf": true, "bak": true,
	"tmp": true, "exe": true, "dll": true, "bin": true, "out": true, "o": true,
	"tsx": true, "jsx": true, "mjs": true, "cjs": true, "vue": true, "css": true,
	"scss": true, "ipynb": true, "whl": true, "jar": true, "class": true,
	"pyc": true, "crt": true, "csr": true, "der": true, "pub": true, "bz2": true,
	"xz": true, "tgz": true, "db": true, "sqlite": true, "cache": true,
}

// LooksLikeHost reports whether the bare token s (an argument of curl, nc,
// ssh …) plausibly names a network host. It accepts:
//
//   - an optional "user@" in front and ":port" or "/path" behind ("git@github.com:x/y",
//     "example.com/x", "10.0.0.1:22"); a token containing "://" is a URL,
//     not a host, and is refused;
//   - "localhost" (any case) and "[v6]" / bare IPv6 literals;
//   - dotted-quad IPv4 ("169.254.169.254");
//   - the shorter inet_aton spellings ("127.1", "169.16689662", "0x7f.1")
//     only when they land in loopback, "this network", private, CGNAT or
//     link-local space, so version numbers ("1.2.3") are not hosts;
//   - a bare number (decimal, 0x hex or 0-octal) only above 16777215, so
//     ports and counts are not hosts while "2852039166" is;
//   - a name with at least one dot, labels of letters, digits, '-' and '_'
//     (or non-ASCII), and a last label of two or more letters (or "xn--…")
//     that is not a common file extension (md txt json yaml go py js sh
//     log … — see notHostTLD), so "README.md" and "main.go" are not hosts.
//
// It is a heuristic and may be wrong both ways (a Python "os.path" looks
// like a host; a host in .md/.sh/.py/.pl/.rs/.zip does not).
func LooksLikeHost(s string) bool {
	if s == "" || len(s) > 1024 || strings.Contains(s, "://") {
		return false
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return false
	}
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		return IsIP(s[:end+1])
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	if strings.Count(s, ":") >= 2 {
		return IsIP(s)
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return false
	}
	if strings.EqualFold(s, "localhost") {
		return true
	}
	if ip, ok := parseIPv4Any(s); ok {
		switch strings.Count(s, ".") {
		case 0:
			return ip > 0xffffff
		case 3:
			return true
		}
		return specialIPv4(ip)
	}
	dots := 0
	label := 0 // start of the current label
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if i == label || i-label > 63 {
				return false
			}
			label = i + 1
			dots++
			continue
		}
		c := s[i]
		if !(isASCIILetter(c) || '0' <= c && c <= '9' || c == '-' || c == '_' || c >= utf8.RuneSelf) {
			return false
		}
	}
	if dots < 2 { // the loop counts the end of the last label too
		return false
	}
	tld := s[strings.LastIndexByte(s, '.')+1:]
	if hasPrefixFold(tld, "xn--") {
		return len(tld) > 4
	}
	if len(tld) < 2 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if !isASCIILetter(tld[i]) {
			return false
		}
	}
	return !notHostTLD[strings.ToLower(tld)]
}

// specialIPv4 reports whether ip is in the ranges SSRF payloads aim at:
// 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.168/16.
func specialIPv4(ip uint32) bool {
	switch a := ip >> 24; {
	case a == 0, a == 10, a == 127:
		return true
	case a == 100:
		return ip>>22&0x3 == 1 // 100.64.0.0/10
	case a == 169:
		return ip>>16&0xff == 254
	case a == 172:
		return ip>>20&0xf == 1 // 172.16.0.0/12
	case a == 192:
		return ip>>16&0xff == 168
	}
	return false
}
