package shell

import (
	"path"
	"strings"
)

func shIsSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func shIsLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func shIsURLStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', '<', '>', '|', '\\', '(', ')', ';', ',', '{', '}', '^', 0:
		return true
	}
	return false
}

// isURL reports a word that starts with scheme://.
func shIsURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 || !shIsLetter(s[0]) {
		return false
	}
	for j := 1; j < i; j++ {
		if !shIsSchemeChar(s[j]) {
			return false
		}
	}
	return true
}

// fileURLPath returns the path of a file:// URL.
func shFileURLPath(s string) (string, bool) {
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
func (w *shellWalker) scanURLs(a shArg, sc *shellScope) {
	s := a.s
	for len(s) > 0 {
		i := strings.Index(s, "://")
		if i < 0 {
			return
		}
		start := i
		for start > 0 && shIsSchemeChar(s[start-1]) {
			start--
		}
		for start < i && !shIsLetter(s[start]) {
			start++
		}
		end := i + 3
		for end < len(s) && !shIsURLStop(s[end]) {
			end++
		}
		if start < i && end > i+3 {
			u := s[start:end]
			if p, ok := shFileURLPath(u); ok {
				w.addPathAbs(u, p, AccessRead)
			} else {
				w.addHost(u)
			}
		}
		s = s[end:]
	}
}

// hostPart strips user@ and :port from a host spec.
func shHostPart(s string) string {
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
func shScpHost(s string) (string, bool) {
	if s == "" || s[0] == '/' || s[0] == '.' || s[0] == '~' || s[0] == '-' || shIsURL(s) {
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
func (w *shellWalker) remoteHost(s string) {
	if shIsURL(s) {
		return // scanURLs saw it
	}
	if h, ok := shScpHost(s); ok {
		w.addHost(h)
	}
}

// urlBase is the file name a download of u is saved under.
func shURLBase(u string) string {
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

var shCurlOpts = &shOptSpec{short: "AbcCdDeEFHKmoPQrtTuUwxXYyz", long: shSet(
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

func (w *shellWalker) curl(c *shCmd) shFlow {
	var urls []shArg
	remoteName := false
	toStdout := true
	outDir := c.sc.dir
	var outs []string
	shScanOpts(c.argv, 1, shCurlOpts, func(o shOption) bool {
		v := o.val
		switch o.name {
		case "", "url":
			if !v.proc {
				urls = append(urls, v)
			}
		case "o", "output":
			if v.s != "-" && v.s != "/dev/stdout" {
				toStdout = false
				if abs := w.argPath(v, c.sc, shAccW, true); abs != "" {
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
				w.argPath(v, c.sc, shAccR, true)
			}
		case "d", "data", "data-binary", "data-ascii", "json":
			if p, ok := strings.CutPrefix(v.s, "@"); ok {
				w.argPath(shArg{s: p, dyn: v.dyn}, c.sc, shAccR, true)
			}
		case "data-urlencode":
			if i := strings.IndexByte(v.s, '@'); i >= 0 && !strings.Contains(v.s[:i], "=") {
				w.argPath(shArg{s: v.s[i+1:], dyn: v.dyn}, c.sc, shAccR, true)
			}
		case "F", "form":
			if _, val, ok := strings.Cut(v.s, "="); ok && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
				p := val[1:]
				if i := strings.IndexByte(p, ';'); i >= 0 {
					p = p[:i]
				}
				p = strings.Trim(p, `"`)
				w.argPath(shArg{s: p, dyn: v.dyn}, c.sc, shAccR, true)
			}
		case "K", "config", "cacert", "capath", "cert", "E", "key", "netrc-file", "crlfile", "proxy-cacert", "proxy-cert", "proxy-key", "pinnedpubkey":
			if o.name == "pinnedpubkey" && strings.HasPrefix(v.s, "sha256//") {
				return true
			}
			w.argPath(v, c.sc, shAccR, true)
		case "b", "cookie":
			if !strings.Contains(v.s, "=") {
				w.argPath(v, c.sc, shAccR, true)
			}
		case "c", "cookie-jar", "D", "dump-header", "trace", "trace-ascii", "stderr", "etag-save", "libcurl":
			w.argPath(v, c.sc, shAccW, true)
		case "x", "proxy", "preproxy", "socks4", "socks4a", "socks5", "socks5-hostname":
			if !shIsURL(v.s) {
				w.addHost(v.s)
			}
		}
		return true
	})
	for _, u := range urls {
		if p, ok := shFileURLPath(u.s); ok {
			w.addPathAbs(u.s, p, AccessRead)
			continue
		}
		if !shIsURL(u.s) {
			w.addHost(u.s)
		}
		if remoteName {
			b := shURLBase(u.s)
			abs := path.Join(outDir, b)
			w.addPathAbs(b, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	for _, o := range outs {
		w.markDownloaded(o)
	}
	w.sawDownload = true
	f := shFlow{bits: shFlowDownloader}
	if toStdout {
		f.bits |= shFlowDL
	}
	return f
}

var shWgetOpts = &shOptSpec{short: "OoaiBetTwQPlARDIXU", long: shSet(
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

func (w *shellWalker) wget(c *shCmd) shFlow {
	var urls []shArg
	hasO, toStdout := false, false
	dir := c.sc.dir
	shScanOpts(c.argv, 1, shWgetOpts, func(o shOption) bool {
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
			} else if abs := w.argPath(v, c.sc, shAccW, true); abs != "" {
				w.markDownloaded(abs)
			}
		case "o", "output-file", "a", "append-output", "save-cookies", "rejected-log", "warc-file":
			w.argPath(v, c.sc, shAccW, true)
		case "P", "directory-prefix":
			if abs, ok := w.resolve(v.s, c.sc.dir); ok {
				dir = abs
				w.addPathAbs(v.s, abs, AccessWrite)
			}
		case "i", "input-file":
			if shIsURL(v.s) {
				break
			}
			w.argPath(v, c.sc, shAccR, true)
		case "post-file", "body-file", "load-cookies", "certificate", "private-key", "ca-certificate", "ca-directory", "config", "crl-file", "random-file":
			w.argPath(v, c.sc, shAccR, true)
		}
		return true
	})
	for _, u := range urls {
		if !shIsURL(u.s) {
			w.addHost(u.s)
		}
		if !hasO {
			b := shURLBase(u.s)
			abs := path.Join(dir, b)
			w.addPathAbs(b, abs, AccessWrite)
			w.markDownloaded(abs)
		}
	}
	w.sawDownload = true
	f := shFlow{bits: shFlowDownloader}
	if toStdout {
		f.bits |= shFlowDL
	}
	return f
}

var shHTTPMethods = shSet("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get", "post", "put", "patch", "delete", "head", "options")

// downloader handles aria2c, fetch, httpie/xh, lwp-download, lwp-request.
func (w *shellWalker) downloader(c *shCmd) shFlow {
	var urls []shArg
	var items []shArg
	toStdout := true
	dir := c.sc.dir
	out := ""
	remoteName := false
	var sp *shOptSpec
	switch c.prog {
	case "aria2c":
		sp = shAria2cOpts
		toStdout = false
		remoteName = true
	case "fetch":
		sp = shFetchOpts
		remoteName = true
		toStdout = false
	case "http":
		sp = shHTTPieOpts
	default:
		sp = shLwpOpts
	}
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		v := o.val
		switch o.name {
		case "":
			switch {
			case c.prog == "http" && len(urls) == 0 && shHTTPMethods[v.s]:
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
			if !shIsURL(v.s) {
				w.argPath(v, c.sc, shAccR, true)
			}
		case "save-cookies", "log", "session":
			w.argPath(v, c.sc, shAccW, true)
		}
		return true
	})
	if c.prog == "lwp-download" {
		remoteName = out == ""
		toStdout = false
	}
	for _, u := range urls {
		if !shIsURL(u.s) {
			w.addHost(u.s)
		}
		if remoteName {
			b := shURLBase(u.s)
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
				w.argPath(shArg{s: p, dyn: it.dyn}, c.sc, shAccR, true)
			}
		}
	}
	w.sawDownload = true
	f := shFlow{bits: shFlowDownloader}
	if toStdout {
		f.bits |= shFlowDL
	}
	return f
}

func shIsPortLike(s string) bool {
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

var shNcOpts = &shOptSpec{short: "IiMmOpPqsTVwXxec", long: shSet("exec", "sh-exec", "lua-exec", "proxy", "proxy-type", "proxy-auth",
	"source-port", "source", "wait", "idle-timeout", "max-conns", "allow", "allowfile", "deny", "denyfile", "output",
	"hex-dump", "ssl-cert", "ssl-key", "ssl-trustfile", "ssl-ciphers", "ssl-servername", "ssl-alpn", "proxy-dns", "delay")}

var shTelnetOpts = &shOptSpec{short: "lenbkX"}

// netcat handles nc/ncat/netcat and telnet: hosts, and -e/-c reverse shells.
func (w *shellWalker) netcat(c *shCmd) shFlow {
	sp := shNcOpts
	if c.prog == "telnet" {
		sp = shTelnetOpts
	}
	execFlag := false
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		v := o.val
		switch o.name {
		case "":
			if !shIsPortLike(v.s) && !v.proc {
				if h := shHostPart(v.s); h != "" {
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
					w.classify(args, c.sc, shFlow{})
				}
			}
		case "x", "proxy":
			if h := shHostPart(v.s); h != "" && c.prog != "telnet" {
				w.addHost(h)
			}
		case "o", "output", "hex-dump", "n":
			w.argPath(v, c.sc, shAccW, true)
		case "allowfile", "denyfile", "ssl-cert", "ssl-key", "ssl-trustfile":
			w.argPath(v, c.sc, shAccR, true)
		}
		return true
	})
	if execFlag {
		w.signal(SignalReverseShell, c.sc.detail())
	}
	w.netcatDetail = c.sc.detail()
	return shFlow{bits: shFlowConnector | shFlowNet}
}

func (w *shellWalker) socat(c *shCmd) shFlow {
	argv := c.argv
	valued := shSocatValued
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
	return shFlow{bits: shFlowConnector | shFlowNet}
}

func (w *shellWalker) socatAddr(a shArg, c *shCmd) {
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
			if h := shHostPart(r); h != "" {
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
			if k < 2 && p != "" && !shIsPortLike(p) {
				w.addHost(p)
			}
		}
	case "open", "file", "create", "gopen", "pipe", "named":
		w.argPath(shArg{s: optsCut(rest), dyn: a.dyn}, c.sc, shAccRW, true)
	}
}

var shSSHOpts = &shOptSpec{short: "BbcDEeFIiJLlmOoPpQRSWw"}

func (w *shellWalker) ssh(c *shCmd) shFlow {
	argv := c.argv
	hostSeen := false
	var remote []shArg
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if s == "--" && !hostSeen {
			continue
		}
		if len(s) > 1 && s[0] == '-' && (!hostSeen || len(remote) == 0) {
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(shSSHOpts.short, s[j]) >= 0 {
					v, next := shAttachedOrNext(argv, i, j)
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
			if hp := shHostPart(h); hp != "" {
				w.addHost(hp)
			}
			continue
		}
		remote = argv[i:]
		break
	}
	if len(remote) > 0 {
		code := shJoinArgs(remote)
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
	return shFlow{}
}

func (w *shellWalker) sshOpt(ch byte, v shArg, sc *shellScope) {
	switch ch {
	case 'i', 'F':
		w.argPath(v, sc, shAccR, true)
	case 'E':
		w.argPath(v, sc, shAccW, true)
	case 'J':
		for _, h := range strings.Split(v.s, ",") {
			h = strings.TrimPrefix(h, "ssh://")
			if hp := shHostPart(h); hp != "" {
				w.addHost(hp)
			}
		}
	case 'W':
		if hp := shHostPart(v.s); hp != "" {
			w.addHost(hp)
		}
	case 'o':
		w.sshOption(v, sc)
	}
}

// sshOption handles -o Key=Value / -o "Key Value".
func (w *shellWalker) sshOption(v shArg, sc *shellScope) {
	s := strings.TrimSpace(v.s)
	i := strings.IndexAny(s, "= \t")
	if i < 0 {
		return
	}
	key := strings.ToLower(s[:i])
	val := strings.TrimLeft(s[i:], "= \t")
	switch key {
	case "identityfile", "certificatefile", "userknownhostsfile", "globalknownhostsfile", "include", "identityagent", "controlpath":
		w.argPath(shArg{s: val, dyn: v.dyn}, sc, shAccR, true)
	case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
		if strings.ToLower(val) != "none" {
			if v.dl {
				w.signal(SignalDownloadExec, sc.detail())
			}
			w.nestedProgram(val, sc, nil)
		}
	case "proxyjump", "hostname":
		for _, h := range strings.Split(val, ",") {
			if hp := shHostPart(h); hp != "" && strings.ToLower(hp) != "none" {
				w.addHost(hp)
			}
		}
	}
}

func (w *shellWalker) remoteCopy(c *shCmd) {
	var sp *shOptSpec
	switch c.prog {
	case "scp":
		sp = shScpOpts
	case "sftp":
		sp = shSftpOpts
	default:
		sp = shRsyncOpts
	}
	var ops []shArg
	shScanOpts(c.argv, 1, sp, func(o shOption) bool {
		v := o.val
		switch o.name {
		case "":
			ops = append(ops, v)
		case "i", "F", "exclude-from", "include-from", "files-from", "password-file", "read-batch", "compare-dest", "copy-dest", "link-dest":
			if c.prog == "rsync" && o.name == "i" {
				break
			}
			w.argPath(v, c.sc, shAccR, true)
		case "b":
			if c.prog == "sftp" {
				w.argPath(v, c.sc, shAccR, true)
			}
		case "log-file", "write-batch", "only-write-batch", "backup-dir", "temp-dir", "T":
			w.argPath(v, c.sc, shAccW, true)
		case "e", "rsh":
			if c.prog == "rsync" {
				w.nestedProgram(v.s, c.sc, nil)
			}
		case "S":
			if c.prog != "rsync" {
				w.classify([]shArg{v}, c.sc, shFlow{})
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
		if shIsURL(s) {
			remote = true // rsync://, scp://, sftp:// (scanURLs saw it)
		} else if h, ok := shScpHost(s); ok {
			w.addHost(h)
			remote = true
		}
		if remote && k == len(ops)-1 {
			remoteDst = true
		}
	}
	for k, a := range ops {
		if shIsURL(a.s) {
			continue
		}
		if _, ok := shScpHost(a.s); ok {
			continue
		}
		acc := shAccR
		if k == len(ops)-1 && len(ops) > 1 && !remoteDst && c.prog != "sftp" {
			acc = shAccW
		}
		w.argPath(a, c.sc, acc, true)
	}
}

var shDNSTypes = shSet("a", "aaaa", "mx", "ns", "txt", "soa", "cname", "ptr", "srv", "any", "axfr", "ixfr", "caa", "ds",
	"dnskey", "rrsig", "nsec", "nsec3", "hinfo", "naptr", "spf", "tlsa", "https", "svcb", "in", "ch", "hs", "sshfp", "loc")

// netHosts records the host operands of ping, dig, host, nmap, ftp …
func (w *shellWalker) netHosts(c *shCmd) {
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
					w.argPath(argv[i], c.sc, shAccR, true)
				}
			case s == "-k":
				if i+1 < len(argv) {
					i++
					w.argPath(argv[i], c.sc, shAccR, true)
				}
			case s == "-p" || s == "-t" || s == "-c" || s == "-b" || s == "-y":
				i++
			case strings.HasPrefix(s, "-"):
			default:
				if !shDNSTypes[strings.ToLower(s)] {
					w.addHost(s)
				}
			}
		}
		return
	case "nmap":
		valued := shNmapValued
		for i := 1; i < len(argv); i++ {
			s := argv[i].s
			if strings.HasPrefix(s, "-") {
				if valued[s] && i+1 < len(argv) {
					i++
					switch s {
					case "-iL", "--excludefile":
						w.argPath(argv[i], c.sc, shAccR, true)
					case "-oN", "-oX", "-oG", "-oA", "-oS":
						w.argPath(argv[i], c.sc, shAccW, true)
					}
				}
				continue
			}
			w.addHost(s)
		}
		return
	}
	var sp *shOptSpec
	switch c.prog {
	case "ping":
		sp = shPingOpts
	case "host":
		sp = shHostOpts
	case "whois":
		sp = shWhoisOpts
	case "ssh-keyscan":
		sp = shSshKeyscanOpts
	case "ssh-copy-id":
		sp = shSshCopyIdOpts
	case "mosh":
		sp = shMoshOpts
	default:
		sp = shFtpOpts
	}
	shScanOpts(argv, 1, sp, func(o shOption) bool {
		v := o.val
		switch o.name {
		case "":
			if strings.HasPrefix(v.s, "-") || v.proc {
				break
			}
			if c.prog == "ftp" || c.prog == "tftp" {
				if shIsPortLike(v.s) {
					break
				}
			}
			if shIsURL(v.s) {
				break
			}
			if h := shHostPart(v.s); h != "" {
				w.addHost(h)
			}
		case "h", "host":
			if c.prog == "whois" {
				w.addHost(v.s)
			}
		case "f":
			if c.prog == "ssh-keyscan" {
				w.argPath(v, c.sc, shAccR, true)
			}
		case "i", "F":
			if c.prog == "ssh-copy-id" {
				w.argPath(v, c.sc, shAccR, true)
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
func (w *shellWalker) dbHosts(c *shCmd) {
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
				w.argPath(argv[i], c.sc, shAccR, true)
			}
		}
	}
}

// Option tables, hoisted so a call allocates nothing.
var shAria2cOpts = &shOptSpec{short: "odisxjkU", long: shSet("out", "dir", "input-file", "split", "max-connection-per-server", "max-concurrent-downloads", "min-split-size", "user-agent", "header", "load-cookies", "save-cookies", "conf-path", "log", "http-user", "http-passwd", "all-proxy", "http-proxy", "https-proxy")}
var shFetchOpts = &shOptSpec{short: "oBNST", long: shSet("output", "bind-address", "ca-cert", "crl", "cert", "key", "user-agent", "referer")}
var shHTTPieOpts = &shOptSpec{short: "oabAv", long: shSet("output", "auth", "auth-type", "session", "session-read-only", "cert", "cert-key", "verify", "proxy", "print", "pretty", "style", "format-options", "timeout", "max-redirects", "ssl", "ciphers", "boundary", "raw", "response-charset", "response-mime", "unsorted")}
var shLwpOpts = &shOptSpec{short: "mcHCPo"}
var shScpOpts = &shOptSpec{short: "cDFiJlloPSX"}
var shSftpOpts = &shOptSpec{short: "BbcDFiJlNoPRSs"}
var shRsyncOpts = &shOptSpec{short: "efTBM", long: shSet("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
	"include-from", "files-from", "password-file", "log-file", "log-file-format", "temp-dir", "backup-dir", "suffix",
	"chmod", "chown", "usermap", "groupmap", "compare-dest", "copy-dest", "link-dest", "partial-dir", "max-size",
	"min-size", "max-delete", "timeout", "contimeout", "port", "sockopts", "bwlimit", "out-format", "info", "debug",
	"iconv", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "block-size", "modify-window",
	"address", "protocol", "outbuf", "remote-option", "write-batch", "only-write-batch", "read-batch", "stop-after", "stop-at", "mkpath")}
var shPingOpts = &shOptSpec{short: "cistWwIpQMlmSTFgqz"}
var shHostOpts = &shOptSpec{short: "tcWRmN"}
var shWhoisOpts = &shOptSpec{short: "hpi", long: shSet("host", "port")}
var shSshKeyscanOpts = &shOptSpec{short: "fpTtO"}
var shSshCopyIdOpts = &shOptSpec{short: "ipoFt"}
var shMoshOpts = &shOptSpec{short: "p", long: shSet("ssh", "port", "predict", "client", "server", "family", "bind-server")}
var shFtpOpts = &shOptSpec{short: "P"}
var shSocatValued = shSet("-b", "-t", "-T", "-lf", "-lp", "-L", "-W", "-o")
var shNmapValued = shSet("-p", "-e", "-S", "-D", "-g", "--exclude", "--script", "--script-args", "-oN", "-oX", "-oG", "-oA", "-oS",
	"-iL", "-iR", "--datadir", "--max-retries", "--host-timeout", "--min-rate", "--max-rate", "--excludefile", "--source-port", "--top-ports", "--dns-servers")
