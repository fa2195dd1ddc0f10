package shell

import (
	"path"
	"strings"
)

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
			case c.prog == "http" && len(urls) == 0 && httpMethods.has(v.s):
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

// Option tables, hoisted so a call allocates nothing.
var aria2cOpts = &optSpec{short: "odisxjkU", long: set("out", "dir", "input-file", "split", "max-connection-per-server", "max-concurrent-downloads", "min-split-size", "user-agent", "header", "load-cookies", "save-cookies", "conf-path", "log", "http-user", "http-passwd", "all-proxy", "http-proxy", "https-proxy")}

var fetchOpts = &optSpec{short: "oBNST", long: set("output", "bind-address", "ca-cert", "crl", "cert", "key", "user-agent", "referer")}

var httpieOpts = &optSpec{short: "oabAv", long: set("output", "auth", "auth-type", "session", "session-read-only", "cert", "cert-key", "verify", "proxy", "print", "pretty", "style", "format-options", "timeout", "max-redirects", "ssl", "ciphers", "boundary", "raw", "response-charset", "response-mime", "unsorted")}

var lwpOpts = &optSpec{short: "mcHCPo"}
