package shell

import (
	"path"
	"strings"
)

func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isURLStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', '<', '>', '|', '\\', '(', ')', ';', ',', '{', '}', '^', 0:
		return true
	}
	return false
}

// isURL reports a word that starts with scheme://.
func isURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 || !isLetter(s[0]) {
		return false
	}
	for j := 1; j < i; j++ {
		if !isSchemeChar(s[j]) {
			return false
		}
	}
	return true
}

// fileURLPath returns the path of a file:// URL.
func fileURLPath(s string) (string, bool) {
	if len(s) < 7 || !strings.EqualFold(s[:7], "file://") {
		return "", false
	}
	p := s[7:]
	if rest, ok := strings.CutPrefix(p, "localhost"); ok {
		p = rest
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return path.Clean(p), true
}

// scanURLs records every scheme://… URL inside a word as a host, and the
// path of file:// URLs as a read.
func (w *walker) scanURLs(a argVal, sc *scope) {
	s := a.s
	for len(s) > 0 {
		i := strings.Index(s, "://")
		if i < 0 {
			return
		}
		start := i
		for start > 0 && isSchemeChar(s[start-1]) {
			start--
		}
		for start < i && !isLetter(s[start]) {
			start++
		}
		end := i + 3
		for end < len(s) && !isURLStop(s[end]) {
			end++
		}
		if start < i && end > i+3 {
			u := s[start:end]
			if p, ok := fileURLPath(u); ok {
				w.addPathAbs(u, p, AccessRead)
			} else {
				w.addHost(u)
			}
		}
		s = s[end:]
	}
}

// hostPart strips user@ and :port from a host spec.
func hostPart(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			return s[1:i]
		}
		return s
	}
	if strings.Count(s, ":") == 1 {
		s, _, _ = strings.Cut(s, ":")
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	return s
}

// scpHost returns HOST of [user@]HOST:path.
func scpHost(s string) (string, bool) {
	if s == "" || s[0] == '/' || s[0] == '.' || s[0] == '~' || s[0] == '-' || isURL(s) {
		return "", false
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", false
	}
	if j := strings.IndexByte(s, '/'); j >= 0 && j < i {
		return "", false
	}
	h := s[:i]
	if k := strings.LastIndexByte(h, '@'); k >= 0 {
		h = h[k+1:]
	}
	if h == "" || len(h) == 1 && i+1 < len(s) && s[i+1] == '\\' {
		return "", false
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h, true
}

// remoteHost records the host of a git/scp-style remote.
func (w *walker) remoteHost(s string) {
	if isURL(s) {
		return // scanURLs saw it
	}
	if h, ok := scpHost(s); ok {
		w.addHost(h)
	}
}

// urlBase is the file name a download of u is saved under.
func urlBase(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return "index.html"
	}
	b := path.Base(u[i:])
	if b == "/" || b == "." || b == "" {
		return "index.html"
	}
	return b
}

var curlOpts = &optSpec{short: "AbcCdDeEFHKmoPQrtTuUwxXYyz", long: set(
	"data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "form", "form-string", "header", "proxy-header",
	"output", "output-dir", "upload-file", "user", "user-agent", "referer", "request", "cookie", "cookie-jar", "config",
	"cert", "key", "cacert", "capath", "continue-at", "dump-header", "max-time", "connect-timeout", "retry", "retry-delay",
	"retry-max-time", "proxy", "proxy-user", "socks4", "socks4a", "socks5", "socks5-hostname", "preproxy", "range",
	"resolve", "connect-to", "interface", "local-port", "limit-rate", "max-filesize", "write-out", "trace", "trace-ascii",
	"stderr", "url", "json", "variable", "netrc-file", "pinnedpubkey", "ciphers", "tls-max", "oauth2-bearer", "aws-sigv4",
	"unix-socket", "abstract-unix-socket", "mail-from", "mail-rcpt", "mail-auth", "ftp-port", "quote", "telnet-option",
	"time-cond", "hsts", "alt-svc", "etag-save", "etag-compare", "create-file-mode", "dns-servers", "doh-url", "noproxy",
	"proto", "proto-redir", "proto-default", "speed-limit", "speed-time", "key-type", "cert-type", "pass", "crlfile",
	"proxy-cacert", "proxy-cert", "proxy-key", "libcurl", "expect100-timeout", "happy-eyeballs-timeout-ms", "max-redirs",
	"keepalive-time", "parallel-max", "rate", "url-query", "sasl-authzid", "service-name", "login-options", "engine",
	"dns-interface", "dns-ipv4-addr", "dns-ipv6-addr", "delegation", "ftp-account", "ftp-alternative-to-user", "ftp-method",
	"ftp-ssl-ccc-mode", "krb", "proxy-service-name", "socks5-gssapi-service", "tftp-blksize", "tls13-ciphers", "curves",
	"ip-tos", "vlan-priority", "ech", "haproxy-clientip", "trace-config", "write-out"),
}

func (w *walker) curl(c *cmdCtx) flow {
	var urls []argVal
	remoteName := false
	toStdout := true
	outDir := c.sc.dir
	var outs []string
	scanOpts(c.argv, 1, curlOpts, func(o option) bool {
		v := o.val
		switch o.name {
		case "", "url":
			if !v.proc {
				urls = append(urls, v)
			}
		case "o", "output":
			if v.s != "-" && v.s != "/dev/stdout" {
				toStdout = false
				if abs := w.argPath(v, c.sc, accW, true); abs != "" {
					outs = append(outs, abs)
				}
			}
		case "O", "remote-name", "remote-name-all":
			remoteName = true
			toStdout = false
		case "output-dir":
			if abs, ok := w.resolve(v.s, c.sc.dir); ok {
				outDir = abs
			}
		case "T", "upload-file":
			if v.s != "." {
				w.argPath(v, c.sc, accR, true)
			}
		case "d", "data", "data-binary", "data-ascii", "json":
			if p, ok := strings.CutPrefix(v.s, "@"); ok {
				w.argPath(argVal{s: p, dyn: v.dyn}, c.sc, accR, true)
			}
		case "data-urlencode":
			if i := strings.IndexByte(v.s, '@'); i >= 0 && !strings.Contains(v.s[:i], "=") {
				w.argPath(argVal{s: v.s[i+1:], dyn: v.dyn}, c.sc, accR, true)
			}
		case "F", "form":
			if _, val, ok := strings.Cut(v.s, "="); ok && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
				p := val[1:]
				if i := strings.IndexByte(p, ';'); i >= 0 {
					p = p[:i]
				}
				p = strings.Trim(p, `"`)
				w.argPath(argVal{s: p, dyn: v.dyn}, c.sc, accR, true)
			}
		case "K", "config", "cacert", "capath", "cert", "E", "key", "netrc-file", "crlfile", "proxy-cacert", "proxy-cert", "proxy-key", "pinnedpubkey":
			if o.name == "pinnedpubkey" && strings.HasPrefix(v.s, "sha256//") {
				return true
			}
			w.argPath(v, c.sc, accR, true)
		case "b", "cookie":
			if !strings.Contains(v.s, "=") {
				w.argPath(v, c.sc, accR, true)
			}
		case "c", "cookie-jar", "D", "dump-header", "trace", "trace-ascii", "stderr", "etag-save", "libcurl":
			w.argPath(v, c.sc, accW, true)
		case "x", "proxy", "preproxy", "socks4", "socks4a", "socks5", "socks5-hostname":
			if !isURL(v.s) {
				w.addHost(v.s)
			}
		}
		return true
	})
	for _, u := range urls {
		if p, ok := fileURLPath(u.s); ok {
			w.addPathAbs(u.s, p, AccessRead)
			continue
		}
		if !isURL(u.s) {
			w.addHost(u.s)
		}
		if remoteName {
			b := urlBase(u.s)
			abs := path.Join(outDir, b)
			w.addPathAbs(b, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	for _, o := range outs {
		w.markDownloaded(o)
	}
	w.sawDownload = true
	f := flow{bits: flowDownloader}
	if toStdout {
		f.bits |= flowDL
	}
	return f
}

var wgetOpts = &optSpec{short: "OoaiBetTwQPlARDIXU", long: set(
	"output-document", "output-file", "append-output", "input-file", "base", "execute", "tries", "timeout", "wait", "quota",
	"directory-prefix", "level", "accept", "reject", "domains", "include-directories", "exclude-directories", "user-agent",
	"header", "post-data", "post-file", "body-data", "body-file", "method", "user", "password", "http-user", "http-password",
	"load-cookies", "save-cookies", "certificate", "private-key", "ca-certificate", "ca-directory", "referer", "proxy-user",
	"proxy-password", "bind-address", "limit-rate", "read-timeout", "connect-timeout", "dns-timeout", "waitretry",
	"restrict-file-names", "default-page", "cut-dirs", "local-encoding", "remote-encoding", "secure-protocol",
	"exclude-domains", "accept-regex", "reject-regex", "regex-type", "ftp-user", "ftp-password", "progress", "report-speed",
	"config", "rejected-log", "warc-file", "backups", "https-only", "ciphers", "crl-file", "pinnedpubkey", "random-file",
	"egd-file", "hsts-file", "certificate-type", "private-key-type", "prefer-family", "retry-on-http-error", "compression"),
}

func (w *walker) wget(c *cmdCtx) flow {
	var urls []argVal
	hasO, toStdout := false, false
	dir := c.sc.dir
	scanOpts(c.argv, 1, wgetOpts, func(o option) bool {
		v := o.val
		switch o.name {
		case "":
			if !v.proc {
				urls = append(urls, v)
			}
		case "O", "output-document":
			hasO = true
			if v.s == "-" || v.s == "/dev/stdout" {
				toStdout = true
			} else if abs := w.argPath(v, c.sc, accW, true); abs != "" {
				w.markDownloaded(abs)
			}
		case "o", "output-file", "a", "append-output", "save-cookies", "rejected-log", "warc-file":
			w.argPath(v, c.sc, accW, true)
		case "P", "directory-prefix":
			if abs, ok := w.resolve(v.s, c.sc.dir); ok {
				dir = abs
				w.addPathAbs(v.s, abs, AccessWrite)
			}
		case "i", "input-file":
			if isURL(v.s) {
				break
			}
			w.argPath(v, c.sc, accR, true)
		case "post-file", "body-file", "load-cookies", "certificate", "private-key", "ca-certificate", "ca-directory", "config", "crl-file", "random-file":
			w.argPath(v, c.sc, accR, true)
		}
		return true
	})
	for _, u := range urls {
		if !isURL(u.s) {
			w.addHost(u.s)
		}
		if !hasO {
			b := urlBase(u.s)
			abs := path.Join(dir, b)
			w.addPathAbs(b, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	w.sawDownload = true
	f := flow{bits: flowDownloader}
	if toStdout {
		f.bits |= flowDL
	}
	return f
}

var httpMethods = set("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get", "post", "put", "patch", "delete", "head", "options")

// downloader handles aria2c, fetch, httpie/xh, lwp-download, lwp-request.
func (w *walker) downloader(c *cmdCtx) flow {
	var urls []argVal
	var items []argVal
	toStdout := true
	dir := c.sc.dir
	out := ""
	remoteName := false
	var sp *optSpec
	switch c.prog {
	case "aria2c":
		sp = aria2cOpts
		toStdout = false
		remoteName = true
	case "fetch":
		sp = fetchOpts
		remoteName = true
		toStdout = false
	case "http":
		sp = httpieOpts
	default:
		sp = lwpOpts
	}
	scanOpts(c.argv, 1, sp, func(o option) bool {
		v := o.val
		switch o.name {
		case "":
			switch {
			case c.prog == "http" && len(urls) == 0 && httpMethods[v.s]:
			case c.prog == "http" && len(urls) > 0:
				items = append(items, v)
			case c.prog == "lwp-download" && len(urls) > 0:
				out = v.s
				toStdout = false
			default:
				urls = append(urls, v)
			}
		case "o", "out", "output":
			if v.s == "-" {
				toStdout = true
				remoteName = false
				break
			}
			toStdout = false
			remoteName = false
			out = v.s
		case "d", "dir":
			if c.prog == "http" {
				if o.name == "d" {
					remoteName = true
					toStdout = false
				}
				break
			}
			if abs, ok := w.resolve(v.s, c.sc.dir); ok {
				dir = abs
			}
		case "download":
			remoteName = true
			toStdout = false
		case "i", "input-file", "load-cookies", "conf-path", "cert", "cert-key", "ca-cert", "key", "crl", "session-read-only":
			if !isURL(v.s) {
				w.argPath(v, c.sc, accR, true)
			}
		case "save-cookies", "log", "session":
			w.argPath(v, c.sc, accW, true)
		}
		return true
	})
	if c.prog == "lwp-download" {
		remoteName = out == ""
		toStdout = false
	}
	for _, u := range urls {
		if !isURL(u.s) {
			w.addHost(u.s)
		}
		if remoteName {
			b := urlBase(u.s)
			abs := path.Join(dir, b)
			w.addPathAbs(b, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	if out != "" {
		if abs, ok := w.resolve(out, dir); ok {
			w.addPathAbs(out, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	for _, it := range items {
		// httpie request items: field@file, field=@file, field:=@file, @file
		s := it.s
		if i := strings.IndexByte(s, '@'); i >= 0 {
			p := s[i+1:]
			if i == 0 || !strings.ContainsAny(s[:i], "=:") || strings.HasSuffix(s[:i], "=") {
				if j := strings.IndexByte(p, ';'); j >= 0 {
					p = p[:j]
				}
				if strings.HasPrefix(p, "~/") && w.home != "" {
					p = w.home + p[1:] // httpie expands ~ itself
				}
				w.argPath(argVal{s: p, dyn: it.dyn}, c.sc, accR, true)
			}
		}
	}
	w.sawDownload = true
	f := flow{bits: flowDownloader}
	if toStdout {
		f.bits |= flowDL
	}
	return f
}

func isPortLike(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '-' && s[i] != ',' {
			return false
		}
	}
	return true
}

var ncOpts = &optSpec{short: "IiMmOpPqsTVwXxec", long: set("exec", "sh-exec", "lua-exec", "proxy", "proxy-type", "proxy-auth",
	"source-port", "source", "wait", "idle-timeout", "max-conns", "allow", "allowfile", "deny", "denyfile", "output",
	"hex-dump", "ssl-cert", "ssl-key", "ssl-trustfile", "ssl-ciphers", "ssl-servername", "ssl-alpn", "proxy-dns", "delay")}

var telnetOpts = &optSpec{short: "lenbkX"}

// netcat handles nc/ncat/netcat and telnet: hosts, and -e/-c reverse shells.
func (w *walker) netcat(c *cmdCtx) flow {
	sp := ncOpts
	if c.prog == "telnet" {
		sp = telnetOpts
	}
	execFlag := false
	scanOpts(c.argv, 1, sp, func(o option) bool {
		v := o.val
		switch o.name {
		case "":
			if !isPortLike(v.s) && !v.proc {
				if h := hostPart(v.s); h != "" {
					w.addHost(h)
				}
			}
		case "e", "c", "exec", "sh-exec", "lua-exec":
			if c.prog == "telnet" {
				break
			}
			execFlag = true
			switch o.name {
			case "c", "sh-exec":
				w.nestedProgram(v.s, c.sc, nil)
			case "e", "exec":
				if args := w.splitWords(v.s); len(args) > 0 {
					w.classify(args, c.sc, flow{})
				}
			}
		case "x", "proxy":
			if h := hostPart(v.s); h != "" && c.prog != "telnet" {
				w.addHost(h)
			}
		case "o", "output", "hex-dump", "n":
			w.argPath(v, c.sc, accW, true)
		case "allowfile", "denyfile", "ssl-cert", "ssl-key", "ssl-trustfile":
			w.argPath(v, c.sc, accR, true)
		}
		return true
	})
	if execFlag {
		w.signal(SignalReverseShell, c.sc.detail())
	}
	w.netcatDetail = c.sc.detail()
	return flow{bits: flowConnector | flowNet}
}

func (w *walker) socat(c *cmdCtx) flow {
	argv := c.argv
	valued := socatValued
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if len(s) > 1 && s[0] == '-' && !strings.ContainsAny(s, ":,") {
			if valued[s] {
				i++
			}
			continue
		}
		w.socatAddr(argv[i], c)
	}
	w.netcatDetail = c.sc.detail()
	return flow{bits: flowConnector | flowNet}
}

func (w *walker) socatAddr(a argVal, c *cmdCtx) {
	typ, rest, ok := strings.Cut(a.s, ":")
	if !ok {
		return
	}
	if i := strings.IndexByte(typ, ','); i >= 0 {
		typ = typ[:i]
	}
	typ = strings.ToLower(strings.TrimSpace(typ))
	optsCut := func(s string) string {
		if i := strings.IndexByte(s, ','); i >= 0 {
			return s[:i]
		}
		return s
	}
	switch typ {
	case "exec", "system":
		w.signal(SignalReverseShell, c.sc.detail())
		w.nestedProgram(strings.Trim(optsCut(rest), `'"`), c.sc, nil)
	case "tcp", "tcp4", "tcp6", "tcp-connect", "tcp4-connect", "tcp6-connect", "udp", "udp4", "udp6", "udp-connect",
		"udp4-connect", "udp6-connect", "udp-sendto", "udp4-sendto", "udp6-sendto", "udp-datagram", "udp4-datagram",
		"udp6-datagram", "sctp", "sctp-connect", "sctp4-connect", "sctp6-connect", "openssl", "openssl-connect", "ssl",
		"dtls", "dtls-client", "openssl-dtls-client", "tcp-sendto":
		r := optsCut(rest)
		if strings.HasPrefix(r, "[") {
			if h := hostPart(r); h != "" {
				w.addHost(h)
			}
			return
		}
		if i := strings.LastIndexByte(r, ':'); i >= 0 {
			r = r[:i]
		}
		if r != "" {
			w.addHost(r)
		}
	case "proxy", "proxy-connect", "socks", "socks4", "socks4a", "socks5", "socks4-connect", "socks4a-connect", "socks5-connect":
		parts := strings.Split(optsCut(rest), ":")
		for k, p := range parts {
			if k < 2 && p != "" && !isPortLike(p) {
				w.addHost(p)
			}
		}
	case "open", "file", "create", "gopen", "pipe", "named":
		w.argPath(argVal{s: optsCut(rest), dyn: a.dyn}, c.sc, accRW, true)
	}
}

var sshOpts = &optSpec{short: "BbcDEeFIiJLlmOoPpQRSWw"}

func (w *walker) ssh(c *cmdCtx) flow {
	argv := c.argv
	hostSeen := false
	var remote []argVal
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if s == "--" && !hostSeen {
			continue
		}
		if len(s) > 1 && s[0] == '-' && (!hostSeen || len(remote) == 0) {
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(sshOpts.short, s[j]) >= 0 {
					v, next := attachedOrNext(argv, i, j)
					w.sshOpt(s[j], v, c.sc)
					i = next - 1
					break
				}
			}
			continue
		}
		if !hostSeen {
			hostSeen = true
			h := s
			if strings.HasPrefix(strings.ToLower(h), "ssh://") {
				h = h[len("ssh://"):]
				if k := strings.IndexByte(h, '/'); k >= 0 {
					h = h[:k]
				}
			}
			if hp := hostPart(h); hp != "" {
				w.addHost(hp)
			}
			continue
		}
		remote = argv[i:]
		break
	}
	if len(remote) > 0 {
		code := joinArgs(remote)
		if code.dl {
			w.signal(SignalDownloadExec, c.sc.detail())
		}
		sc := c.sc
		if w.home != "" {
			sc = w.sub(c.sc)
			sc.dir = w.home
		}
		w.nestedProgram(code.s, sc, nil)
	}
	return flow{}
}

func (w *walker) sshOpt(ch byte, v argVal, sc *scope) {
	switch ch {
	case 'i', 'F':
		w.argPath(v, sc, accR, true)
	case 'E':
		w.argPath(v, sc, accW, true)
	case 'J':
		for _, h := range strings.Split(v.s, ",") {
			h = strings.TrimPrefix(h, "ssh://")
			if hp := hostPart(h); hp != "" {
				w.addHost(hp)
			}
		}
	case 'W':
		if hp := hostPart(v.s); hp != "" {
			w.addHost(hp)
		}
	case 'o':
		w.sshOption(v, sc)
	}
}

// sshOption handles -o Key=Value / -o "Key Value".
func (w *walker) sshOption(v argVal, sc *scope) {
	s := strings.TrimSpace(v.s)
	i := strings.IndexAny(s, "= \t")
	if i < 0 {
		return
	}
	key := strings.ToLower(s[:i])
	val := strings.TrimLeft(s[i:], "= \t")
	switch key {
	case "identityfile", "certificatefile", "userknownhostsfile", "globalknownhostsfile", "include", "identityagent", "controlpath":
		w.argPath(argVal{s: val, dyn: v.dyn}, sc, accR, true)
	case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
		if strings.ToLower(val) != "none" {
			if v.dl {
				w.signal(SignalDownloadExec, sc.detail())
			}
			w.nestedProgram(val, sc, nil)
		}
	case "proxyjump", "hostname":
		for _, h := range strings.Split(val, ",") {
			if hp := hostPart(h); hp != "" && strings.ToLower(hp) != "none" {
				w.addHost(hp)
			}
		}
	}
}

func (w *walker) remoteCopy(c *cmdCtx) {
	var sp *optSpec
	switch c.prog {
	case "scp":
		sp = scpOpts
	case "sftp":
		sp = sftpOpts
	default:
		sp = rsyncOpts
	}
	var ops []argVal
	scanOpts(c.argv, 1, sp, func(o option) bool {
		v := o.val
		switch o.name {
		case "":
			ops = append(ops, v)
		case "i", "F", "exclude-from", "include-from", "files-from", "password-file", "read-batch", "compare-dest", "copy-dest", "link-dest":
			if c.prog == "rsync" && o.name == "i" {
				break
			}
			w.argPath(v, c.sc, accR, true)
		case "b":
			if c.prog == "sftp" {
				w.argPath(v, c.sc, accR, true)
			}
		case "log-file", "write-batch", "only-write-batch", "backup-dir", "temp-dir", "T":
			w.argPath(v, c.sc, accW, true)
		case "e", "rsh":
			if c.prog == "rsync" {
				w.nestedProgram(v.s, c.sc, nil)
			}
		case "S":
			if c.prog != "rsync" {
				w.classify([]argVal{v}, c.sc, flow{})
			}
		case "J":
			if c.prog != "rsync" {
				w.sshOpt('J', v, c.sc)
			}
		case "o":
			if c.prog != "rsync" {
				w.sshOption(v, c.sc)
			}
		}
		return true
	})
	remoteDst := false
	for k, a := range ops {
		s := a.s
		remote := false
		if isURL(s) {
			remote = true // rsync://, scp://, sftp:// (scanURLs saw it)
		} else if h, ok := scpHost(s); ok {
			w.addHost(h)
			remote = true
		}
		if remote && k == len(ops)-1 {
			remoteDst = true
		}
	}
	for k, a := range ops {
		if isURL(a.s) {
			continue
		}
		if _, ok := scpHost(a.s); ok {
			continue
		}
		acc := accR
		if k == len(ops)-1 && len(ops) > 1 && !remoteDst && c.prog != "sftp" {
			acc = accW
		}
		w.argPath(a, c.sc, acc, true)
	}
}

var dnsTypes = set("a", "aaaa", "mx", "ns", "txt", "soa", "cname", "ptr", "srv", "any", "axfr", "ixfr", "caa", "ds",
	"dnskey", "rrsig", "nsec", "nsec3", "hinfo", "naptr", "spf", "tlsa", "https", "svcb", "in", "ch", "hs", "sshfp", "loc")

// netHosts records the host operands of ping, dig, host, nmap, ftp …
func (w *walker) netHosts(c *cmdCtx) {
	argv := c.argv
	switch c.prog {
	case "dig", "drill", "kdig":
		for i := 1; i < len(argv); i++ {
			s := argv[i].s
			switch {
			case strings.HasPrefix(s, "@"):
				w.addHost(s[1:])
			case strings.HasPrefix(s, "+"):
			case s == "-x" || s == "-q":
				if i+1 < len(argv) {
					i++
					w.addHost(argv[i].s)
				}
			case s == "-f":
				if i+1 < len(argv) {
					i++
					w.argPath(argv[i], c.sc, accR, true)
				}
			case s == "-k":
				if i+1 < len(argv) {
					i++
					w.argPath(argv[i], c.sc, accR, true)
				}
			case s == "-p" || s == "-t" || s == "-c" || s == "-b" || s == "-y":
				i++
			case strings.HasPrefix(s, "-"):
			default:
				if !dnsTypes[strings.ToLower(s)] {
					w.addHost(s)
				}
			}
		}
		return
	case "nmap":
		valued := nmapValued
		for i := 1; i < len(argv); i++ {
			s := argv[i].s
			if strings.HasPrefix(s, "-") {
				if valued[s] && i+1 < len(argv) {
					i++
					switch s {
					case "-iL", "--excludefile":
						w.argPath(argv[i], c.sc, accR, true)
					case "-oN", "-oX", "-oG", "-oA", "-oS":
						w.argPath(argv[i], c.sc, accW, true)
					}
				}
				continue
			}
			w.addHost(s)
		}
		return
	}
	var sp *optSpec
	switch c.prog {
	case "ping":
		sp = pingOpts
	case "host":
		sp = hostOpts
	case "whois":
		sp = whoisOpts
	case "ssh-keyscan":
		sp = sshKeyscanOpts
	case "ssh-copy-id":
		sp = sshCopyIdOpts
	case "mosh":
		sp = moshOpts
	default:
		sp = ftpOpts
	}
	scanOpts(argv, 1, sp, func(o option) bool {
		v := o.val
		switch o.name {
		case "":
			if strings.HasPrefix(v.s, "-") || v.proc {
				break
			}
			if c.prog == "ftp" || c.prog == "tftp" {
				if isPortLike(v.s) {
					break
				}
			}
			if isURL(v.s) {
				break
			}
			if h := hostPart(v.s); h != "" {
				w.addHost(h)
			}
		case "h", "host":
			if c.prog == "whois" {
				w.addHost(v.s)
			}
		case "f":
			if c.prog == "ssh-keyscan" {
				w.argPath(v, c.sc, accR, true)
			}
		case "i", "F":
			if c.prog == "ssh-copy-id" {
				w.argPath(v, c.sc, accR, true)
			}
		case "o":
			if c.prog == "ssh-copy-id" {
				w.sshOption(v, c.sc)
			}
		}
		return true
	})
}

// dbHosts records -h HOST of database clients.
func (w *walker) dbHosts(c *cmdCtx) {
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		switch {
		case s == "-h" || s == "--host" || s == "--hostname":
			if i+1 < len(argv) {
				i++
				w.addHost(argv[i].s)
			}
		case strings.HasPrefix(s, "--host="):
			w.addHost(s[len("--host="):])
		case strings.HasPrefix(s, "-h") && len(s) > 2 && c.prog != "psql":
			w.addHost(s[2:])
		case s == "-f" || s == "--file":
			if i+1 < len(argv) {
				i++
				w.argPath(argv[i], c.sc, accR, true)
			}
		}
	}
}

// Option tables, hoisted so a call allocates nothing.
var aria2cOpts = &optSpec{short: "odisxjkU", long: set("out", "dir", "input-file", "split", "max-connection-per-server", "max-concurrent-downloads", "min-split-size", "user-agent", "header", "load-cookies", "save-cookies", "conf-path", "log", "http-user", "http-passwd", "all-proxy", "http-proxy", "https-proxy")}
var fetchOpts = &optSpec{short: "oBNST", long: set("output", "bind-address", "ca-cert", "crl", "cert", "key", "user-agent", "referer")}
var httpieOpts = &optSpec{short: "oabAv", long: set("output", "auth", "auth-type", "session", "session-read-only", "cert", "cert-key", "verify", "proxy", "print", "pretty", "style", "format-options", "timeout", "max-redirects", "ssl", "ciphers", "boundary", "raw", "response-charset", "response-mime", "unsorted")}
var lwpOpts = &optSpec{short: "mcHCPo"}
var scpOpts = &optSpec{short: "cDFiJlloPSX"}
var sftpOpts = &optSpec{short: "BbcDFiJlNoPRSs"}
var rsyncOpts = &optSpec{short: "efTBM", long: set("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
	"include-from", "files-from", "password-file", "log-file", "log-file-format", "temp-dir", "backup-dir", "suffix",
	"chmod", "chown", "usermap", "groupmap", "compare-dest", "copy-dest", "link-dest", "partial-dir", "max-size",
	"min-size", "max-delete", "timeout", "contimeout", "port", "sockopts", "bwlimit", "out-format", "info", "debug",
	"iconv", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "block-size", "modify-window",
	"address", "protocol", "outbuf", "remote-option", "write-batch", "only-write-batch", "read-batch", "stop-after", "stop-at", "mkpath")}
var pingOpts = &optSpec{short: "cistWwIpQMlmSTFgqz"}
var hostOpts = &optSpec{short: "tcWRmN"}
var whoisOpts = &optSpec{short: "hpi", long: set("host", "port")}
var sshKeyscanOpts = &optSpec{short: "fpTtO"}
var sshCopyIdOpts = &optSpec{short: "ipoFt"}
var moshOpts = &optSpec{short: "p", long: set("ssh", "port", "predict", "client", "server", "family", "bind-server")}
var ftpOpts = &optSpec{short: "P"}
var socatValued = set("-b", "-t", "-T", "-lf", "-lp", "-L", "-W", "-o")
var nmapValued = set("-p", "-e", "-S", "-D", "-g", "--exclude", "--script", "--script-args", "-oN", "-oX", "-oG", "-oA", "-oS",
	"-iL", "-iR", "--datadir", "--max-retries", "--host-timeout", "--min-rate", "--max-rate", "--excludefile", "--source-port", "--top-ports", "--dns-servers")
