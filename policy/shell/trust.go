package shell

import (
	"strings"
	"sync"
)

// Trust controls: the settings every later connection and commit relies on.
//
// trust-subverted (block): a root certificate added to a trust store (MITRE
// ATT&CK T1553.004: update-ca-certificates with a new anchor, security
// add-trusted-cert, certutil -addstore root, keytool -importcert into
// cacerts, NSS certutil -A with a CA trust flag, p11-kit trust anchor), a
// CA bundle variable or git's http.sslCAInfo pointed at a file in a temp
// place, a system or global proxy set to a host that is not this machine
// (networksetup, gsettings, netsh winhttp, git http.proxy, npm proxy), and
// git's hooks path sent to /dev/null or a temp directory (the repository's
// own checks never run).
//
// trust-weakened (ask): TLS verification switched off for every later call
// of a tool (npm config set strict-ssl false, git config http.sslVerify
// false, pip config set global.trusted-host, conda ssl_verify false,
// composer disable-tls). One command's own flag (curl -k, git -c
// http.sslVerify=false clone …, pip --trusted-host) and git commit
// --no-verify stay what they are: allowed, decided.

const (
	SignalTrustSubverted Signal = "trust-subverted"
	SignalTrustWeakened  Signal = "trust-weakened"
)

// trustControls looks at one command for the settings above.
func (w *walker) trustControls(c *cmdCtx) {
	if !trustProgs()[c.prog] || len(c.argv) < 2 {
		return
	}
	argv := argStrings(c.argv)
	if len(argv) < 2 {
		return
	}
	d := c.sc.detail
	switch c.prog {
	case "git":
		w.gitTrust(argv, d)
	case "npm", "pnpm", "yarn":
		if k, v, ok := configSet(argv[1:]); ok {
			w.keyTrust(strings.ToLower(k), v, d)
		}
	case "pip", "pip3":
		if k, v, ok := configSet(argv[1:]); ok {
			w.keyTrust(strings.ToLower(k), v, d)
		}
	case "conda", "mamba", "micromamba":
		for i := 1; i+2 < len(argv); i++ {
			if argv[i] == "--set" && (argv[i+1] == "ssl_verify" && falseWord(argv[i+2])) {
				w.signal(SignalTrustWeakened, d())
			}
		}
	case "composer":
		if hasAnyArg(argv, "config") && (pairIn(argv, "disable-tls", "true") || pairIn(argv, "secure-http", "false")) {
			w.signal(SignalTrustWeakened, d())
		}
	case "security":
		switch argv[1] {
		case "add-trusted-cert", "add-certificates", "trust-settings-import":
			w.signal(SignalTrustSubverted, d())
		}
	case "certutil":
		w.certutilTrust(argv, d)
	case "keytool":
		if hasAnyArg(argv, "-importcert", "-import") && (hasAnyArg(argv, "-cacerts", "-trustcacerts") || argContains(argv, "cacerts")) {
			w.signal(SignalTrustSubverted, d())
		}
	case "trust":
		if argv[1] == "anchor" && !hasAnyArg(argv, "--remove", "-r") {
			w.signal(SignalTrustSubverted, d())
		}
	case "networksetup":
		w.networksetupTrust(argv, d)
	case "gsettings":
		// gsettings set org.gnome.system.proxy[.http|.https|.socks|.ftp] host H, autoconfig-url URL
		if len(argv) >= 5 && argv[1] == "set" && strings.HasPrefix(argv[2], "org.gnome.system.proxy") &&
			(argv[3] == "host" || argv[3] == "autoconfig-url") && foreignProxy(argv[4]) {
			w.signal(SignalTrustSubverted, d())
		}
	case "netsh":
		// netsh winhttp set proxy H:P, netsh winhttp set proxy proxy-server="H:P"
		if len(argv) >= 5 && strings.EqualFold(argv[1], "winhttp") && strings.EqualFold(argv[2], "set") && strings.EqualFold(argv[3], "proxy") {
			for _, a := range argv[4:] {
				if _, v, ok := strings.Cut(a, "="); ok {
					a = v
				}
				if !strings.Contains(strings.ToLower(a), "bypass") && foreignProxy(a) {
					w.signal(SignalTrustSubverted, d())
					return
				}
			}
		}
	case "reg":
		// reg add "HKCU\…\Internet Settings" /v ProxyServer /d H:P
		if strings.EqualFold(argv[1], "add") && argContains(argv, "internet settings") && argContains(argv, "proxyserver") {
			for i, a := range argv {
				if strings.EqualFold(a, "/d") && i+1 < len(argv) && foreignProxy(argv[i+1]) {
					w.signal(SignalTrustSubverted, d())
				}
			}
		}
	}
}

var trustProgs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"git": true, "npm": true, "pnpm": true, "yarn": true, "pip": true, "pip3": true, "conda": true,
		"mamba": true, "micromamba": true, "composer": true, "security": true, "certutil": true, "keytool": true, "trust": true,
		"networksetup": true, "gsettings": true, "netsh": true, "reg": true}
})

// gitTrust: git -c KEY=VALUE and git config [scope] KEY VALUE.
func (w *walker) gitTrust(argv []string, d func() string) {
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		switch argv[i] {
		case "-c":
			if i+1 < len(argv) {
				i++
				if k, v, ok := strings.Cut(argv[i], "="); ok {
					w.gitKeyTrust(strings.ToLower(k), v, false, d)
				}
			}
		case "-C", "--git-dir", "--work-tree", "--namespace":
			i++
		}
		i++
	}
	if i >= len(argv) || argv[i] != "config" {
		return
	}
	var pos []string
	for _, a := range argv[i+1:] {
		switch {
		case strings.HasPrefix(a, "--get") || a == "--list" || a == "-l" || strings.HasPrefix(a, "--unset") || a == "--remove-section":
			return
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 && pos[0] == "set" {
		pos = pos[1:]
	}
	if len(pos) >= 2 {
		w.gitKeyTrust(strings.ToLower(pos[0]), pos[1], true, d)
	}
}

// gitKeyTrust judges one git config key; persistent: written into a
// config file (not one command's -c).
func (w *walker) gitKeyTrust(k, v string, persistent bool, d func() string) {
	last := k
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		last = k[i+1:]
	}
	switch {
	case k == "core.hookspath":
		if w.foreignPlace(v) {
			w.signal(SignalTrustSubverted, d())
		}
	case strings.HasPrefix(k, "http.") && (last == "sslcainfo" || last == "sslcapath"):
		if w.foreignPlace(v) {
			w.signal(SignalTrustSubverted, d())
		}
	case strings.HasPrefix(k, "http.") && last == "sslverify":
		if persistent && falseWord(v) {
			w.signal(SignalTrustWeakened, d())
		}
	case (strings.HasPrefix(k, "http.") || strings.HasPrefix(k, "https.")) && last == "proxy":
		if persistent && foreignProxy(v) {
			w.signal(SignalTrustSubverted, d())
		}
	}
}

// keyTrust judges a package manager's config key (npm, pnpm, yarn, pip).
func (w *walker) keyTrust(k, v string, d func() string) {
	k = strings.TrimPrefix(k, "global.")
	k = strings.TrimPrefix(k, "install.")
	switch k {
	case "strict-ssl", "enablestrictssl", "strict_ssl":
		if falseWord(v) {
			w.signal(SignalTrustWeakened, d())
		}
	case "trusted-host":
		if v != "" {
			w.signal(SignalTrustWeakened, d())
		}
	case "cafile", "cert", "ca", "httpscafilepath", "cafilepath":
		if w.foreignPlace(v) {
			w.signal(SignalTrustSubverted, d())
		}
	case "proxy", "https-proxy", "httpproxy", "httpsproxy", "http-proxy":
		if foreignProxy(v) {
			w.signal(SignalTrustSubverted, d())
		}
	}
}

// certutilTrust: Windows certutil -addstore [-f] [-user] Root|CA|AuthRoot
// FILE, and NSS certutil -A … -t TRUST where TRUST grants a CA ("C" or
// "T" in its SSL field).
func (w *walker) certutilTrust(argv []string, d func() string) {
	for i, a := range argv {
		la := strings.ToLower(strings.TrimLeft(a, "-/"))
		if la == "addstore" || la == "importpfx" {
			for _, s := range argv[i+1:] {
				switch strings.ToLower(s) {
				case "root", "ca", "authroot", "trustedpublisher":
					w.signal(SignalTrustSubverted, d())
					return
				}
			}
		}
		if a == "-A" {
			for j := range argv {
				if argv[j] == "-t" && j+1 < len(argv) {
					ssl, _, _ := strings.Cut(argv[j+1], ",")
					if strings.ContainsAny(ssl, "CT") {
						w.signal(SignalTrustSubverted, d())
						return
					}
				}
			}
		}
	}
}

// networksetupTrust: networksetup -setwebproxy|-setsecurewebproxy|
// -setsocksfirewallproxy|-setftpproxy SERVICE HOST PORT, and
// -setautoproxyurl SERVICE URL.
func (w *walker) networksetupTrust(argv []string, d func() string) {
	switch strings.ToLower(argv[1]) {
	case "-setwebproxy", "-setsecurewebproxy", "-setsocksfirewallproxy", "-setftpproxy", "-setstreamingproxy", "-setgopherproxy", "-setautoproxyurl":
		if len(argv) >= 4 && foreignProxy(argv[3]) {
			w.signal(SignalTrustSubverted, d())
		}
	}
}

// trustEnv: a CA bundle variable pointed at a file in a temp place, and
// git's environment config (GIT_CONFIG_KEY_n=K GIT_CONFIG_VALUE_n=V is
// git -c K=V for every git the shell starts, git(1)).
func (w *walker) trustEnv(name, val string, sc *scope) {
	if n, ok := strings.CutPrefix(name, "GIT_CONFIG_KEY_"); ok {
		w.gitEnvPair(n, val, true, sc)
		return
	}
	if n, ok := strings.CutPrefix(name, "GIT_CONFIG_VALUE_"); ok {
		w.gitEnvPair(n, val, false, sc)
		return
	}
	switch strings.ToUpper(name) {
	case "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
		"GIT_SSL_CAPATH", "PIP_CERT", "AWS_CA_BUNDLE", "NPM_CONFIG_CAFILE", "DENO_CERT", "CARGO_HTTP_CAINFO":
		if w.foreignPlace(val) {
			w.signal(SignalTrustSubverted, sc.detail())
		}
	}
}

// gitEnvPair remembers one half of GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n
// and judges the pair as git -c once both are known.
func (w *walker) gitEnvPair(n, s string, isKey bool, sc *scope) {
	if n == "" || len(n) > 4 {
		return
	}
	if w.gitEnvCfg == nil {
		w.gitEnvCfg = make(map[string]string, 2)
	}
	k, v := "k"+n, "v"+n
	if !isKey {
		k, v = v, k
	}
	if len(w.gitEnvCfg) < 32 {
		w.gitEnvCfg[k] = s
	}
	other, ok := w.gitEnvCfg[v]
	if !ok {
		return
	}
	key, val := s, other
	if !isKey {
		key, val = other, s
	}
	w.gitKeyTrust(strings.ToLower(key), val, false, sc.detail)
}

// proxyVars and insecureVars are the environment variables that, set for
// every later program (a shell start-up file, /etc/environment), send its
// traffic through a proxy or turn its TLS check off (policy/autorun_trust.go).
var (
	proxyVars    = set("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "npm_config_proxy", "npm_config_https_proxy")
	insecureVars = map[string]func(string) bool{
		"NODE_TLS_REJECT_UNAUTHORIZED": func(v string) bool { return v == "0" },
		"PYTHONHTTPSVERIFY":            func(v string) bool { return v == "0" },
		"GIT_SSL_NO_VERIFY":            func(v string) bool { return v != "" && !falseWord(v) },
		"NPM_CONFIG_STRICT_SSL":        falseWord,
		"npm_config_strict_ssl":        falseWord,
		"PIP_TRUSTED_HOST":             func(v string) bool { return v != "" },
		"CURL_INSECURE":                func(v string) bool { return v != "" && !falseWord(v) },
	}
)

// PersistentEnvTrust judges NAME=VALUE set for every later program:
// subverted for a proxy on another host, weakened for a TLS check off.
func PersistentEnvTrust(name, val string) Signal {
	if proxyVars.has(name) && foreignProxy(val) {
		return SignalTrustSubverted
	}
	if f := insecureVars[name]; f != nil && f(strings.Trim(val, `"' `)) {
		return SignalTrustWeakened
	}
	return ""
}

// ForeignProxy: a proxy setting's value names a host that is not this
// machine.
func ForeignProxy(v string) bool { return foreignProxy(v) }

func foreignProxy(v string) bool {
	v = strings.Trim(v, `"' `)
	if v == "" || v == "none" || v == "off" || v == "''" {
		return false
	}
	h := v
	if u := urlHostOf(v); u != "" {
		h = u[strings.Index(u, "://")+3:]
	}
	if i := strings.IndexAny(h, "/?"); i >= 0 {
		h = h[:i]
	}
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	h = strings.ToLower(h)
	if h == "" || strings.HasPrefix(h, "$") {
		return false
	}
	return h != "localhost" && !strings.HasSuffix(h, ".localhost") && !strings.HasPrefix(h, "127.") && h != "::1" && h != "0.0.0.0"
}

// foreignPlace: a path anyone can write (a temp directory), a URL, or
// /dev/null (a hooks path that holds no hooks).
func (w *walker) foreignPlace(v string) bool {
	v = strings.Trim(v, `"' `)
	for _, root := range []string{w.home, w.cwd} {
		// the home and the workspace are no stranger's, wherever they are
		if root != "" && root != "/" && strings.HasPrefix(v, strings.TrimSuffix(root, "/")+"/") {
			return false
		}
	}
	if v == "/dev/null" || v == "nul" || strings.EqualFold(v, "NUL") || urlHostOf(v) != "" {
		return true
	}
	for _, d := range []string{"/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/", "/private/var/tmp/", "/var/folders/"} {
		if strings.HasPrefix(v, d) || v+"/" == d {
			return true
		}
	}
	return false
}

func falseWord(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"' `)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

func pairIn(argv []string, k, v string) bool {
	for i := 0; i+1 < len(argv); i++ {
		if strings.EqualFold(argv[i], k) && strings.EqualFold(argv[i+1], v) {
			return true
		}
	}
	return false
}

func argContains(argv []string, sub string) bool {
	for _, a := range argv {
		if strings.Contains(strings.ToLower(a), sub) {
			return true
		}
	}
	return false
}
