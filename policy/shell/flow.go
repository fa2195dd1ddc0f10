package shell

import (
	"strings"
	"sync"
)

// TokenShapes finds the token shapes in a word and returns their kinds
// (scan/secret's table). policy sets it: this package may not import
// scan/secret (docs/architecture.md); nil finds none.
var TokenShapes func(s string) []string

// Secret data flow. A secret source (secrets.go: a credential program, the
// environment, a secret variable read by name, a token shape written into a
// request) gets one of eight slots, a bit of flowSecret; the bit travels
// with the data like the download taint does: through pipes (every command
// passes its stdin's taint to its stdout unless it is a reducer), $( ) and
// backticks into words (argVal.sec), variables (walker.secVars), and here
// strings. Where tainted data meets a sink, a Flow is recorded:
//
//   - the model: the program's final stdout, not redirected;
//   - a file: a redirect of stdout, tee;
//   - the clipboard: pbcopy, wl-copy, xclip/xsel writing;
//   - a host: a network client (curl, wget, nc, ssh, git …) whose words or
//     stdin carry the secret, with each host the command names;
//   - DNS: a resolver (dig, nslookup, host, ping …) whose words carry it.
//
// Reducers (decided, the table below): a filter whose output cannot hold
// the secret ends the taint: wc, grep -c/-q/-l, cut -d= -f1, awk -F=
// '{print $1}', sed 's/=.*//', the hash programs.
//
// The policy decides which flows are forbidden; a host sink that is the
// secret's own issuer is fine (policy/flow.go).

// Flow is a secret reaching a sink.
type Flow struct {
	Source  string   // what produced the secret: "gh auth token", "$GITHUB_TOKEN", "env"
	Kind    string   // SourceProgram, SourceEnv or SourceShape
	Issuers []string // host globs the secret belongs to; nil: unknown
	Sink    string   // SinkModel, SinkFile, SinkClipboard, SinkHost or SinkDNS
	Target  string   // the file, the host or URL as written, the DNS name; "" when unknown
	// Redirected: the request's name is pinned to another address or sent
	// through a proxy with TLS checks off (curl --resolve, --connect-to,
	// -x with -k), or the secret is published as content (gh gist): its
	// issuer's name is not where it goes.
	Redirected bool
	// Published: the secret is in what the request carries (a data or
	// form field, an upload, a header that is not a credential, the URL's
	// path or query), not in how it authenticates: its own issuer stores
	// it where others may read it (a token posted into someone's issue).
	Published bool
}

// Source kinds and sinks of a Flow.
const (
	SourceProgram = "program"
	sourceEnv     = "environment"
	SourceShape   = "token-shape"

	sinkModel     = "model"
	sinkFile      = "file"
	sinkClipboard = "clipboard"
	SinkHost      = "host"
	sinkDNS       = "dns"
	// SinkWritten: a token shape the command itself spells, written into
	// a file (the agent wrote the token: a person decides where it goes).
	sinkWritten = "written"
)

const (
	flowSecret0 flowBits = 1 << 6    // the first secret slot
	flowSecret  flowBits = 0xFF << 6 // any secret slot
	maxSlots             = 8
	maxFlows             = 64  // flows per Parse call
	maxCmdHosts          = 256 // hosts remembered for sinks
)

type secretSource struct {
	name    string
	kind    string
	issuers []string
}

// spelled: a token shape the command text spells itself; printing it to
// the model tells the model nothing it did not write.
func (s *secretSource) spelled() bool { return s.kind == SourceShape }

// secSource returns the slot bit of a secret source, adding it.
func (w *walker) secSource(name, kind string, issuers []string) flowBits {
	name = shortDetail(name)
	for i, s := range w.secSrc {
		if s.name == name {
			return flowSecret0 << i
		}
	}
	if len(w.secSrc) < maxSlots {
		w.secSrc = append(w.secSrc, secretSource{name: name, kind: kind, issuers: issuers})
		return flowSecret0 << (len(w.secSrc) - 1)
	}
	// the last slot stands for every further source: no issuer is sure
	last := &w.secSrc[maxSlots-1]
	if !strings.HasSuffix(last.name, " and others") {
		last.name += " and others"
	}
	last.issuers = nil
	return flowSecret0 << (maxSlots - 1)
}

// sink records a Flow for every source in bits.
func (w *walker) sink(bits flowBits, sink, target string, redirected bool) {
	w.sinkFlow(bits, sink, target, redirected, false)
}

// sinkFlow is sink with Published said.
func (w *walker) sinkFlow(bits flowBits, sink, target string, redirected, published bool) {
	bits &= flowSecret
	for i := range w.secSrc {
		if bits&(flowSecret0<<i) == 0 {
			continue
		}
		s := &w.secSrc[i]
		sk := sink
		if s.spelled() {
			switch sink {
			case sinkModel:
				continue
			case sinkFile:
				sk = sinkWritten
			}
		}
		f := Flow{Source: s.name, Kind: s.kind, Issuers: s.issuers, Sink: sk, Target: shortDetail(target), Redirected: redirected, Published: published}
		dup := false
		for j := range w.res.Flows {
			g := &w.res.Flows[j]
			if g.Source == f.Source && g.Sink == f.Sink && g.Target == f.Target && g.Redirected == f.Redirected && g.Published == f.Published {
				dup = true
				break
			}
		}
		if !dup && len(w.res.Flows) < maxFlows {
			w.res.Flows = append(w.res.Flows, f)
		}
	}
}

// secretVar marks a word that reads a variable: a tainted shell variable,
// or an environment variable whose name looks secret.
func (w *walker) secretVar(name string) flowBits {
	if b := w.secVars[name]; b != 0 {
		return b
	}
	if secretVarName(name) {
		return w.secSource("$"+name, sourceEnv, varIssuers(name))
	}
	return 0
}

func (w *walker) setSecVar(name string, bits flowBits) {
	bits &= flowSecret
	if bits == 0 {
		if w.secVars[name] != 0 {
			delete(w.secVars, name)
		}
		return
	}
	if w.secVars == nil {
		w.secVars = make(map[string]flowBits, 2)
	}
	w.secVars[name] = bits
}

// finishFlows records the model sink of the top-level program's stdout.
func (w *walker) finishFlows(f flow) {
	if f.bits&flowSecret != 0 {
		w.sink(f.bits, sinkModel, "", false)
	}
}

// Programs by what they do with secret data handed to them.
var (
	// reducers whose output cannot hold the data (with their condition in reduces)
	hashProgs = set("md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "b2sum", "cksum", "md5", "sha224sum", "sha384sum", "wc")
	// clipboard writers
	clipWriters = set("pbcopy", "wl-copy", "clip", "termux-clipboard-set", "set-clipboard")
	// resolvers: a secret in a name they look up leaves as DNS labels
	resolvers = set("dig", "nslookup", "host", "drill", "ping", "ping6", "getent", "resolvectl", "delv", "kdig", "traceroute", "tracepath", "mtr", "fping", "arping", "whois")
	// network clients: words or stdin that carry a secret reach their hosts
	netClients = set("curl", "wget", "http", "https", "xh", "xhs", "aria2c", "lwp-request", "lwp-download", "fetch", "nc", "ncat",
		"netcat", "socat", "telnet", "ssh", "scp", "sftp", "rsync", "ftp", "lftp", "sendmail", "mail", "mailx", "mutt", "openssl",
		"websocat", "grpcurl", "wscat", "git", "gh", "glab", "docker", "podman", "buildah", "skopeo", "nerdctl", "s3cmd", "rclone",
		"helm", "oras", "crane", "regctl")
	// programs whose stdout holds their words
	echoers = set("echo", "printf", "print", "jq", "yq", "gojq", "logger", "cowsay", "figlet", "banner", "tr")
)

// reduces reports a filter that reduces its input to counts, names or
// digests (decided table: docs in the package comment above).
func reduces(c *cmdCtx) bool {
	argv := c.argv
	switch c.prog {
	case "grep", "egrep", "fgrep", "rg":
		for _, a := range argv[1:] {
			s := a.s
			if s == "--count" || s == "--quiet" || s == "--silent" || s == "--files-with-matches" || s == "--files-without-match" {
				return true
			}
			if len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s[1:], "cqlL") && !strings.ContainsAny(s[1:], "efm") {
				return true
			}
		}
	case "cut":
		delimEq, field1 := false, false
		for i := 1; i < len(argv); i++ {
			s := argv[i].s
			switch {
			case s == "-d" && i+1 < len(argv):
				delimEq = argv[i+1].s == "="
				i++
			case s == "-d=" || s == "--delimiter==":
				delimEq = true
			case s == "-f" && i+1 < len(argv):
				field1 = argv[i+1].s == "1"
				i++
			case s == "-f1" || s == "--fields=1":
				field1 = true
			}
		}
		return delimEq && field1
	case "awk", "gawk", "mawk", "nawk":
		fs, prog := false, false
		for i := 1; i < len(argv); i++ {
			s := argv[i].s
			switch {
			case s == "-F=" || s == "-F" && i+1 < len(argv) && argv[i+1].s == "=":
				fs = true
			case strings.ReplaceAll(s, " ", "") == "{print$1}":
				prog = true
			}
		}
		return fs && prog
	case "sed":
		for _, a := range argv[1:] {
			switch strings.ReplaceAll(a.s, " ", "") {
			case "s/=.*//", "s/=.*$//", "s/=.*//g":
				return true
			}
		}
	case "jq", "gojq", "yq":
		for _, a := range argv[1:] {
			s := strings.TrimSpace(a.s)
			if strings.HasPrefix(s, "-") {
				continue
			}
			return s == "length" || s == "keys" || s == "keys[]" || s == "type" || strings.HasSuffix(s, "| keys") ||
				strings.HasSuffix(s, "| keys[]") || strings.HasSuffix(s, "| length") || strings.HasSuffix(s, "|keys")
		}
	case "test", "[", "true", "false":
		return true
	}
	return hashProgs.has(c.prog)
}

// envNameFilter: grep over a whole-environment dump for a name that says
// nothing secret (env | grep ^PATH, printenv | grep -i node) hands on
// those variables only. A pattern naming a secret word (TOKEN, KEY,
// SECRET, PASS, AUTH, CRED …) or anything but a plain name keeps the taint.
func (w *walker) envNameFilter(c *cmdCtx, in flowBits) bool {
	switch c.prog {
	case "grep", "egrep", "fgrep", "rg":
	default:
		return false
	}
	for i := range w.secSrc {
		if in&(flowSecret0<<i) != 0 && !(w.secSrc[i].kind == sourceEnv && len(w.secSrc[i].issuers) == 1 && w.secSrc[i].issuers[0] == issNone[0]) {
			return false
		}
	}
	pats := 0
	for i := 1; i < len(c.argv); i++ {
		s := c.argv[i].s
		if s == "-e" || s == "--regexp" {
			continue
		}
		if strings.HasPrefix(s, "-") {
			if strings.ContainsAny(s[1:], "vf") && !strings.HasPrefix(s, "--") {
				return false // -v keeps everything else; -f reads patterns elsewhere
			}
			continue
		}
		pats++
		for _, part := range strings.Split(strings.Trim(s, "^$"), "|") {
			p := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(part, "="), "^"), "=")
			p = strings.Trim(p, "()")
			if p == "" || !isNameLike(p) {
				return false
			}
			u := strings.ToUpper(p)
			for _, bad := range []string{"TOKEN", "KEY", "SECRET", "PASS", "PWD", "AUTH", "CRED", "API", "PRIVATE", "SESSION", "COOKIE", "DSN", "DATABASE", "URL", "AWS", "GITHUB", "GH_", "OPENAI", "ANTHROPIC", "NPM"} {
				if strings.Contains(u, bad) {
					return false
				}
			}
		}
		break // the first operand is the pattern; the rest are files
	}
	return pats == 1
}

func isNameLike(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// secretFlow is the hook at the end of classifying one simple command:
// it adds the command's own secret output, and records the sinks that
// tainted words or stdin meet. hs is where the command's hosts start in
// walker.cmdHosts.
func (w *walker) secretFlow(c *cmdCtx, f flow, hs int) flow {
	if len(c.argv) == 0 {
		return f
	}
	var args flowBits
	for _, a := range c.argv[1:] {
		args |= a.sec
	}
	in := c.in.bits & flowSecret
	if c.xargs {
		args |= in
	}
	src := w.sourceOf(c)
	prog := c.prog
	var hosts []string
	if hs <= len(w.cmdHosts) {
		hosts = w.cmdHosts[hs:]
	}
	switch {
	case reduces(c) || in != 0 && w.envNameFilter(c, in):
		f.bits &^= flowSecret
		return f
	case clipWriters.has(prog) || (prog == "xclip" || prog == "xsel") && src == 0:
		if in != 0 {
			w.sink(in, sinkClipboard, prog, false)
		}
		f.bits &^= flowSecret
		return f
	case resolvers.has(prog) && src == 0: // getent shadow prints hashes, it resolves no name
		if args != 0 {
			named := false
			for _, a := range c.argv[1:] {
				if a.sec != 0 {
					w.sink(a.sec, sinkDNS, a.s, false)
					named = true
				}
			}
			if !named { // xargs hands the words over at run time
				w.sink(args, sinkDNS, strings.Join(argStrings(c.argv[1:]), " "), false)
			}
		}
		f.bits &^= flowSecret
		return f
	case netClients.has(prog) && netUse(c):
		bits := args | w.shapeSources(c)
		if prog != "git" && prog != "rsync" && prog != "scp" {
			bits |= in
		}
		if bits != 0 {
			w.netSink(c, bits, in, hosts)
		}
		f.bits &^= flowSecret
		f.bits |= src
		return f
	case prog == "tee":
		if in != 0 {
			scanOpts(c.argv, 1, teeOpts, func(o option) bool {
				if o.name == "" {
					if abs, ok := w.resolve(o.val.s, c.sc.dir); ok && !isPseudoDevice(abs) {
						w.sink(in, sinkFile, abs, false)
					}
				}
				return true
			})
		}
	case secretStore(c):
		f.bits &^= flowSecret // handed to a store that keeps secrets encrypted
		return f
	case echoers.has(prog) || progs.has(prog) || interps()[prog] != nil:
		f.bits |= args
		if echoers.has(prog) {
			f.bits |= w.shapeSources(c)
		}
	}
	if src != 0 {
		if interps()[prog] != nil && len(hosts) > 0 {
			for _, h := range hosts {
				w.sink(src, SinkHost, h, false)
			}
		} else {
			f.bits |= src
		}
	}
	return f
}

// secretStores are programs whose subcommand puts what they are handed
// into a store meant for secrets (a secret set from a variable is the
// point of them), by program and the words that say so.
var secretStores = sync.OnceValue(func() map[string][][]string {
	return map[string][][]string{
		"gh":          {{"secret", "set"}, {"auth", "login"}},
		"glab":        {{"variable", "set"}, {"auth", "login"}},
		"kubectl":     {{"create", "secret"}},
		"oc":          {{"create", "secret"}},
		"vault":       {{"kv", "put"}, {"write"}, {"login"}},
		"aws":         {{"secretsmanager", "put-secret-value"}, {"secretsmanager", "create-secret"}, {"ssm", "put-parameter"}},
		"az":          {{"keyvault", "secret", "set"}},
		"gcloud":      {{"secrets", "create"}, {"secrets", "versions", "add"}},
		"docker":      {{"secret", "create"}, {"login"}},
		"podman":      {{"secret", "create"}, {"login"}},
		"security":    {{"add-generic-password"}, {"add-internet-password"}},
		"secret-tool": {{"store"}},
		"pass":        {{"insert"}},
		"gopass":      {{"insert"}},
		"op":          {{"item", "create"}},
		"bw":          {{"create"}},
		"git":         {{"credential", "approve"}, {"credential-store", "store"}},
		"ssh-add":     {{}},
		"npm":         {{"login"}},
		"helm":        {{"registry", "login"}},
		"flyctl":      {{"secrets", "set"}},
		"fly":         {{"secrets", "set"}},
		"heroku":      {{"config:set"}},
		"doppler":     {{"secrets", "set"}},
		"wrangler":    {{"secret", "put"}},
		"vercel":      {{"env", "add"}},
	}
})

func secretStore(c *cmdCtx) bool {
	for _, words := range secretStores()[c.prog] {
		i := 1
		ok := true
		for _, want := range words {
			for i < len(c.argv) && strings.HasPrefix(c.argv[i].s, "-") {
				i++
			}
			if i >= len(c.argv) || c.argv[i].s != want {
				ok = false
				break
			}
			i++
		}
		if ok {
			return true
		}
	}
	return false
}

// netUse: the network clients that are also other things send what
// they are handed only in these uses: docker login (not docker run -e),
// openssl s_client (not openssl enc -pass); gh and glab store a secret
// encrypted with secret set / variable set, which is what those are for.
func netUse(c *cmdCtx) bool {
	sub := ""
	if len(c.argv) > 1 {
		sub = c.argv[1].s
	}
	switch c.prog {
	case "docker", "podman", "buildah", "skopeo", "nerdctl", "oras":
		return sub == "login"
	case "helm", "crane", "regctl":
		return len(c.argv) > 2 && c.argv[2].s == "login"
	case "openssl":
		return sub == "s_client"
	case "gh", "glab":
		return !(sub == "secret" || sub == "variable") || len(c.argv) < 3 || c.argv[2].s != "set"
	}
	return true
}

// netSink records a secret reaching the hosts of a network client.
func (w *walker) netSink(c *cmdCtx, bits, in flowBits, hosts []string) {
	redirected, published := false, false
	switch c.prog {
	case "curl":
		redirected = curlRedirected(c, w.res.Env)
		published = curlPublishes(c)
	case "gh", "glab":
		// a secret in a gh word is content (a gist, an issue, a file),
		// published rather than authenticating; on stdin it is a login
		// only for `gh auth login --with-token`
		redirected = !(c.prog == "gh" && len(c.argv) > 1 && c.argv[1].s == "auth" && bits == in)
		if len(hosts) == 0 {
			if c.prog == "gh" {
				hosts = []string{"github.com"}
			} else {
				hosts = []string{"gitlab.com"}
			}
		}
	case "docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "helm", "crane", "regctl":
		if h := registryOf(c); h != "" {
			hosts = append(hosts[:len(hosts):len(hosts)], h)
		}
	}
	// A URL word names its host better than the scan of its text, which
	// stops at the parenthesis of a $(…) in the userinfo
	// (https://x-access-token:$(gh auth token)@github.com/o/r).
	var own []string
	for _, a := range c.argv[1:] {
		if h := urlHostOf(a.s); h != "" {
			own = append(own, h)
		}
	}
	if len(own) > 0 && c.prog != "gh" && c.prog != "glab" {
		hosts = own
	}
	if len(hosts) == 0 {
		w.sinkFlow(bits, SinkHost, "", redirected, published)
		return
	}
	for _, h := range hosts {
		w.sinkFlow(bits, SinkHost, h, redirected, published)
	}
}

// urlHostOf is the scheme://[userinfo@]host of a word that is a URL.
func urlHostOf(s string) string {
	i := strings.Index(s, "://")
	if i <= 0 || !isLetter(s[0]) {
		return ""
	}
	for j := 1; j < i; j++ {
		if !isSchemeChar(s[j]) {
			return ""
		}
	}
	rest := s[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 && !strings.Contains(rest[:j], "$(") {
		rest = rest[:j]
	} else if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		if k := strings.IndexAny(rest[j:], "/?#"); k >= 0 {
			rest = rest[:j+k]
		}
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	if rest == "" {
		return ""
	}
	return s[:i+3] + rest
}

// registryOf is the server of `docker login [opts] SERVER`.
func registryOf(c *cmdCtx) string {
	argv := c.argv
	start := 2
	if len(argv) > 2 && argv[1].s != "login" && argv[2].s == "login" {
		start = 3 // helm registry login, crane auth login
	} else if len(argv) < 2 || argv[1].s != "login" {
		return ""
	}
	for i := start; i < len(argv); i++ {
		s := argv[i].s
		switch {
		case s == "-u" || s == "--username" || s == "-p" || s == "--password":
			i++
		case strings.HasPrefix(s, "-"):
		default:
			return s
		}
	}
	return "docker.io"
}

// curlPublishes: a secret is in what the request carries rather than in
// how it authenticates — a data or form field, an upload, a header that is
// not a credential, the URL's path or query — so even its own issuer
// stores it where others read it (the token posted into someone's issue).
// A credential rides in Authorization-like headers, -u, --oauth2-bearer
// and a URL's userinfo; a body that is the secret alone, from stdin, is an
// exchange the issuer takes (OAuth, STS).
func curlPublishes(c *cmdCtx) bool {
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		opt, val, hasVal := "", argVal{}, false
		switch {
		case strings.HasPrefix(s, "--") && len(s) > 2:
			opt = s[2:]
			if k := strings.IndexByte(opt, '='); k >= 0 {
				val, hasVal = argVal{s: opt[k+1:], sec: argv[i].sec}, true
				opt = opt[:k]
			}
		case len(s) >= 2 && s[0] == '-' && s[1] != '-':
			// a cluster of flags (-sSL), the last or a valued one first:
			// -sH 'Authorization: …', -XPOST
			k := 1
			for k < len(s)-1 && !curlValueOpts()[s[k:k+1]] && s[k] != 'X' && s[k] != 'o' {
				k++
			}
			opt = s[k : k+1]
			if len(s) > k+1 {
				val, hasVal = argVal{s: s[k+1:], sec: argv[i].sec}, true
			}
		default:
			if argv[i].sec != 0 && !urlUserinfo(s) {
				return true // a URL (or a bare host) whose path or query holds it
			}
			continue
		}
		if !curlValueOpts()[opt] {
			continue
		}
		if !hasVal && i+1 < len(argv) {
			i++
			val = argv[i]
		}
		switch opt {
		case "u", "user", "oauth2-bearer", "proxy-user", "U":
			continue
		case "H", "header", "proxy-header":
			name, _, _ := strings.Cut(val.s, ":")
			if val.sec != 0 && !credentialHeader(name) {
				return true
			}
		case "url":
			if val.sec != 0 && !urlUserinfo(val.s) {
				return true
			}
		default: // data, form, upload, cookie jar contents
			// written into the field inline; a body read whole from
			// stdin (--data-binary @-) is an exchange of the secret
			// itself (OAuth, STS), which its issuer takes
			if val.sec != 0 {
				return true
			}
		}
	}
	return false
}

// curlValueOpts are curl's options that take a value, the ones whose value
// may carry a secret among them.
var curlValueOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"H": true, "header": true, "proxy-header": true, "u": true, "user": true, "U": true, "proxy-user": true,
		"oauth2-bearer": true, "url": true, "d": true, "data": true, "data-raw": true, "data-binary": true,
		"data-urlencode": true, "data-ascii": true, "json": true, "F": true, "form": true, "form-string": true,
		"T": true, "upload-file": true, "G": false, "b": true, "cookie": true, "e": true, "referer": true, "A": true,
		"user-agent": true, "X": false, "request": false, "o": false, "output": false,
	}
})

// credentialHeader: a request header whose value authenticates the
// request (Authorization, a *-Token or API key header, a cookie).
func credentialHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "authorization" || n == "proxy-authorization" || n == "cookie" {
		return true
	}
	for _, w := range []string{"token", "key", "auth", "secret", "password", "session", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// urlUserinfo: a URL word with a userinfo part (https://user:TOKEN@host),
// where a secret is a credential.
func urlUserinfo(s string) bool {
	i := strings.Index(s, "://")
	if i < 0 {
		return false
	}
	rest := s[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 && !strings.Contains(rest[:j], "@") {
		return false
	}
	return strings.Contains(rest, "@")
}

// curlRedirected: the request's name is not where it goes.
func curlRedirected(c *cmdCtx, env []string) bool {
	insecure, proxy := false, false
	for _, a := range c.argv[1:] {
		s := a.s
		switch {
		case s == "--resolve" || s == "--connect-to" || strings.HasPrefix(s, "--resolve=") || strings.HasPrefix(s, "--connect-to="):
			return true
		case s == "-k" || s == "--insecure" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.IndexByte(s, 'k') > 0 && !strings.ContainsAny(s, "=/:"):
			insecure = true
		case s == "-x" || s == "--proxy" || strings.HasPrefix(s, "--proxy=") || s == "--preproxy" || strings.HasPrefix(s, "--socks"):
			proxy = true
		}
	}
	for _, e := range env {
		n, _, _ := strings.Cut(e, "=")
		switch strings.ToUpper(n) {
		case "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY":
			proxy = true
		}
	}
	return insecure && proxy
}

// shapeSources: token shapes written into a network client's words are a
// secret reaching its hosts; their issuer comes from the shape.
func (w *walker) shapeSources(c *cmdCtx) flowBits {
	var bits flowBits
	for _, a := range c.argv[1:] {
		if len(a.s) < 12 {
			continue
		}
		if TokenShapes == nil {
			return 0
		}
		for _, kind := range TokenShapes(a.s) {
			iss, ok := ShapeIssuers(kind)
			if !ok {
				continue
			}
			bits |= w.secSource("a "+kind+" written into the command", SourceShape, iss)
		}
	}
	return bits
}

// sourceOf reports the secret a command prints itself, as slot bits.
func (w *walker) sourceOf(c *cmdCtx) flowBits {
	argv := c.argv
	prog := c.prog
	if r := matchCred(c); r != nil {
		iss := r.issuers
		if prog == "gh" || prog == "glab" {
			for i := 1; i+1 < len(argv); i++ {
				if argv[i].s == "--hostname" || argv[i].s == "-h" {
					iss = append(append([]string(nil), iss...), argv[i+1].s, "*."+argv[i+1].s)
				}
			}
		}
		return w.secSource(credName(c, r), SourceProgram, iss)
	}
	switch prog {
	case "pass", "gopass":
		if i := firstWord(argv, 1); i > 0 && !passNonShow.has(argv[i].s) && !strings.HasPrefix(argv[i].s, "-") {
			return w.secSource(prog+" "+argv[i].s, SourceProgram, nil)
		}
	case "env", "printenv", "set":
		return w.envDump(c)
	case "ps":
		for _, a := range argv[1:] {
			s := a.s
			if s != "" && s[0] != '-' && strings.IndexByte(s, 'e') >= 0 && isLetters(s) {
				return w.secSource("ps "+s+" (every process's environment)", sourceEnv, issNone)
			}
		}
	case "docker", "podman", "nerdctl", "kubectl", "oc", "aws-vault", "granted", "saml2aws", "op", "doppler", "infisical", "dotenvx", "chamber", "sops", "teller":
		return w.otherEnv(c)
	case "jq", "gojq":
		for _, a := range argv[1:] {
			if a.s == "env" || strings.Contains(a.s, "$ENV") || strings.HasPrefix(a.s, "env.") || strings.HasPrefix(a.s, "env|") {
				return w.secSource("jq env (the environment)", sourceEnv, issNone)
			}
		}
	}
	if _, ok := secretScanners()[prog]; ok {
		return w.scanner(c)
	}
	if interps()[prog] != nil || prog == "awk" || prog == "gawk" || prog == "mawk" || prog == "cmd" {
		var bits flowBits
		for _, a := range argv[1:] {
			bits |= w.envAPI(a.s, prog) | w.credAPI(a.s, prog)
		}
		if c.in.hasText && !c.xargs {
			bits |= w.envAPI(c.in.text, prog) | w.credAPI(c.in.text, prog) // a here-document of code
		}
		return bits
	}
	return 0
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// firstWord is the index of the first word after start that is no option.
func firstWord(argv []argVal, start int) int {
	for i := start; i < len(argv); i++ {
		if !strings.HasPrefix(argv[i].s, "-") {
			return i
		}
	}
	return -1
}

// envDump: env or printenv with no command prints the environment; set
// with no argument prints every variable; printenv NAME prints one.
func (w *walker) envDump(c *cmdCtx) flowBits {
	argv := c.argv
	switch c.prog {
	case "set":
		if len(argv) == 1 {
			return w.secSource("set (every shell variable)", sourceEnv, issNone)
		}
		return 0
	case "printenv":
		var bits flowBits
		names := 0
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.s, "-") {
				if a.s == "--help" || a.s == "--version" {
					return 0
				}
				continue
			}
			names++
			if secretVarName(a.s) || w.secVars[a.s] != 0 {
				bits |= w.secretVar(a.s)
			}
		}
		if names == 0 {
			return w.secSource(strings.Join(argStrings(argv), " ")+" (the environment)", sourceEnv, issNone)
		}
		return bits
	}
	for _, a := range argv[1:] {
		if a.s == "--help" || a.s == "--version" {
			return 0
		}
	}
	return w.secSource(progName(argv[0].s)+" (the environment)", sourceEnv, issNone)
}

// isEnvDump reports an argv that prints the environment (the command a
// container exec or an aws-vault exec runs).
func isEnvDump(argv []argVal) bool {
	if len(argv) == 0 {
		return false
	}
	switch progName(argv[0].s) {
	case "env":
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a.s, "-") && !strings.Contains(a.s, "=") {
				return false
			}
		}
		return true
	case "printenv":
		return len(argv) == 1
	case "set", "export", "declare":
		return len(argv) <= 2
	case "sh", "bash", "zsh", "dash", "ash", "ksh":
		for i, a := range argv[1:] {
			if strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "c") && i+2 < len(argv) {
				code := strings.Fields(argv[i+2].s)
				if len(code) > 0 {
					vals := make([]argVal, len(code))
					for j, s := range code {
						vals[j] = argVal{s: s}
					}
					return isEnvDump(vals)
				}
			}
		}
	case "cat", "strings", "tr", "xargs":
		for _, a := range argv[1:] {
			if strings.HasSuffix(a.s, "/environ") {
				return true
			}
		}
	}
	return false
}

// otherEnv: another process's environment (a container's, a pod's, an
// aws-vault session's) printed here.
func (w *walker) otherEnv(c *cmdCtx) flowBits {
	argv := c.argv
	if len(argv) < 2 {
		return 0
	}
	sub := argv[1].s
	switch c.prog {
	case "docker", "podman", "nerdctl":
		switch sub {
		case "exec":
			// docker exec [opts] CONTAINER CMD…
			for i := 2; i < len(argv); i++ {
				s := argv[i].s
				switch {
				case s == "-e" || s == "--env" || s == "-u" || s == "--user" || s == "-w" || s == "--workdir" || s == "--env-file":
					i++
				case strings.HasPrefix(s, "-"):
				default:
					if isEnvDump(argv[i+1:]) {
						return w.secSource(c.prog+" exec "+s+" env (the container's environment)", sourceEnv, issNone)
					}
					return 0
				}
			}
		case "run", "create":
			return w.scannerContainer(c)
		case "inspect", "container":
			for _, a := range argv[2:] {
				if strings.Contains(a.s, ".Env") || strings.Contains(a.s, "Env}}") {
					return w.secSource(c.prog+" inspect of the container's environment", sourceEnv, issNone)
				}
			}
		}
	default:
		if sub == "set" && len(argv) > 2 && argv[2].s == "env" {
			for _, a := range argv[3:] {
				if a.s == "--list" || a.s == "--list=true" {
					return w.secSource(c.prog+" set env --list", sourceEnv, issNone)
				}
			}
			return 0
		}
		if sub != "exec" && sub != "run" && sub != "exec-env" {
			return 0
		}
		for i := 2; i < len(argv); i++ {
			if argv[i].s == "--" {
				if isEnvDump(argv[i+1:]) {
					var iss []string
					if c.prog == "aws-vault" {
						iss = issAWS
					}
					return w.secSource(c.prog+" exec … env (the session's environment)", sourceEnv, iss)
				}
				return 0
			}
		}
	}
	return 0
}

// scannerContainer: a secret scanner's image run with the home or the
// root mounted (docker run -v "$HOME:/pwd" trufflesecurity/trufflehog …).
func (w *walker) scannerContainer(c *cmdCtx) flowBits {
	image := ""
	for _, a := range c.argv[2:] {
		for name := range secretScanners() {
			if strings.Contains(a.s, name) && !strings.HasPrefix(a.s, "-") {
				image = a.s
			}
		}
	}
	if image == "" {
		return 0
	}
	argv := c.argv
	for i := 2; i < len(argv); i++ {
		s := argv[i].s
		var v string
		switch {
		case (s == "-v" || s == "--volume" || s == "--mount") && i+1 < len(argv):
			v = argv[i+1].s
			i++
		case strings.HasPrefix(s, "--volume=") || strings.HasPrefix(s, "-v="):
			_, v, _ = strings.Cut(s, "=")
		case strings.HasPrefix(s, "-v") && len(s) > 2:
			v = s[2:]
		default:
			continue
		}
		host, _, _ := strings.Cut(v, ":")
		if src, ok := strings.CutPrefix(host, "type=bind,source="); ok {
			host, _, _ = strings.Cut(src, ",")
		}
		if abs, ok := w.resolve(host, c.sc.dir); ok && w.harvestRoot(abs) {
			return w.secSource(image+" over "+abs, SourceProgram, nil)
		}
	}
	return 0
}

// scanner: a secret scanner pointed at the home or the root prints every
// token it finds there.
func (w *walker) scanner(c *cmdCtx) flowBits {
	argv := c.argv
	subs := secretScanners()[c.prog]
	i := firstWord(argv, 1)
	if i < 0 || !inList(subs, argv[i].s) {
		return 0
	}
	for i < len(argv) && !strings.HasPrefix(argv[i].s, "-") && inList(subs, argv[i].s) {
		i++
	}
	var targets []string
	for j := i; j < len(argv); j++ {
		s := argv[j].s
		if v, ok := strings.CutPrefix(s, "--source="); ok {
			targets = append(targets, v)
			continue
		}
		if (s == "--source" || s == "-s") && j+1 < len(argv) {
			targets = append(targets, argv[j+1].s)
			j++
			continue
		}
		if !strings.HasPrefix(s, "-") && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "file://")) {
			targets = append(targets, strings.TrimPrefix(s, "file://"))
		}
	}
	if len(targets) == 0 && c.prog != "trufflehog" && c.prog != "noseyparker" {
		targets = append(targets, ".")
	}
	for _, t := range targets {
		abs, ok := w.resolve(t, c.sc.dir)
		if ok && w.harvestRoot(abs) {
			return w.secSource(c.prog+" over "+abs, SourceProgram, nil)
		}
	}
	return 0
}

// harvestRoot: the root, the home, or a directory of the home outside the
// workspace the call started in.
func (w *walker) harvestRoot(abs string) bool {
	if abs == "/" || abs == "/home" || abs == "/Users" || abs == "/root" {
		return true
	}
	h := w.home
	if h == "" {
		return false
	}
	if abs == h {
		return true
	}
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	return under(abs, h) && !under(abs, w.cwd) && !under(w.cwd, abs)
}

func inList(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// matchCred finds the catalogue row a command fits.
func matchCred(c *cmdCtx) *credProgram {
	idx := credIndex()
	rows := idx.exact[c.prog]
	for _, i := range rows {
		if credFits(&credPrograms[i], c.argv) {
			return &credPrograms[i]
		}
	}
	for _, i := range idx.globs {
		r := &credPrograms[i]
		if globWord(r.prog, c.prog) && credFits(r, c.argv) {
			return r
		}
	}
	return nil
}

type credIdx struct {
	exact map[string][]int // rows by program name
	globs []int            // rows whose program is a prefix glob
}

// credIndex is built on first use (hook start-up pays nothing for it).
var credIndex = sync.OnceValue(func() credIdx {
	x := credIdx{exact: make(map[string][]int, len(credPrograms))}
	for i, r := range credPrograms {
		if strings.HasSuffix(r.prog, "*") {
			x.globs = append(x.globs, i)
		} else {
			x.exact[r.prog] = append(x.exact[r.prog], i)
		}
	}
	return x
})

func globWord(pat, s string) bool {
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(s, p)
	}
	return pat == s
}

func credFits(r *credProgram, argv []argVal) bool {
	k := 0 // next sub word to find
	pos := 0
	after := -1
	for i := 1; i < len(argv) && k < len(r.sub); i++ {
		s := argv[i].s
		if strings.HasPrefix(s, "-") && len(s) > 1 {
			continue
		}
		pos++
		if globWord(r.sub[k], s) || r.sub[k] == s {
			k++
			after = i
			continue
		}
		if k == 0 && pos > 3 {
			return false
		}
	}
	if k < len(r.sub) {
		return false
	}
	if len(r.flags) > 0 && !r.oneDash && !hasAnyFlag(argv[1:], r.flags) {
		return false
	}
	if len(r.flags) > 0 && r.oneDash && !hasWordFlag(argv[1:], r.flags) {
		return false
	}
	if len(r.argHas) > 0 {
		ok := false
		for _, a := range argv[max(after, 0)+1:] {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			l := strings.ToLower(a.s)
			for _, h := range r.argHas {
				if strings.Contains(l, h) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// hasAnyFlag: a one-letter name as a short flag in any cluster, a longer
// one as --name, --name=value, -name or /name (Windows).
func hasAnyFlag(args []argVal, names []string) bool {
	for _, a := range args {
		s := a.s
		if s == "--" {
			return false
		}
		if strings.HasPrefix(s, "/") && len(s) > 1 {
			n := strings.ToLower(s[1:])
			if i := strings.IndexAny(n, ":="); i >= 0 {
				n = n[:i]
			}
			for _, x := range names {
				if len(x) > 1 && n == x {
					return true
				}
			}
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			continue
		}
		if strings.HasPrefix(s, "--") {
			n, _, _ := strings.Cut(s[2:], "=")
			for _, x := range names {
				if len(x) > 1 && n == x {
					return true
				}
			}
			continue
		}
		word := s[1:]
		n, _, _ := strings.Cut(word, "=")
		for _, x := range names {
			if len(x) == 1 {
				if isLetters(word) && strings.Contains(word, x) {
					return true
				}
			} else if n == x {
				return true
			}
		}
	}
	return false
}

// hasWordFlag: an option spelled as a whole word, one dash or two.
func hasWordFlag(args []argVal, names []string) bool {
	for _, a := range args {
		n := strings.TrimLeft(a.s, "-")
		if n == a.s {
			continue
		}
		for _, x := range names {
			if n == x {
				return true
			}
		}
	}
	return false
}

func credName(c *cmdCtx, r *credProgram) string {
	parts := []string{c.prog}
	k := 0
	for _, a := range c.argv[1:] {
		if k >= len(r.sub) {
			break
		}
		if globWord(r.sub[k], a.s) || r.sub[k] == a.s {
			parts = append(parts, a.s)
			k++
		}
	}
	for _, a := range c.argv[1:] {
		if len(r.flags) > 0 && hasAnyFlag([]argVal{a}, r.flags) {
			parts = append(parts, a.s)
			break
		}
	}
	return strings.Join(parts, " ")
}

// envAPI finds the environment read by interpreter code: the whole of it
// (os.environ, process.env, ENV, %ENV, getenv(), ENVIRON, Deno.env,
// Bun.env, $env: …) or one variable whose name looks secret.
func (w *walker) envAPI(code, prog string) flowBits {
	if len(code) < 3 || !strings.Contains(code, "env") && !strings.Contains(code, "ENV") && !strings.Contains(code, "Env") {
		if !strings.Contains(code, "vaultcmd") && !strings.Contains(code, "trufflehog") && !strings.Contains(code, "gitleaks") {
			return 0
		}
	}
	var bits flowBits
	whole := func(api string) {
		bits |= w.secSource(api+" (the environment) in "+prog, sourceEnv, issNone)
	}
	one := func(name string) {
		if name == "" {
			return
		}
		bits |= w.secretVar(name)
	}
	for _, a := range envAPIs {
		for from := 0; from < len(code); {
			i := strings.Index(code[from:], a.needle)
			if i < 0 {
				break
			}
			i += from
			from = i + len(a.needle)
			if a.wordStart && i > 0 && (isNameByte(code[i-1]) || a.needle == "ENV" && (code[i-1] == '$' || code[i-1] == '%')) {
				continue // $ENV{…} and %ENV have their own forms; $ENV alone is a Perl scalar
			}
			rest := code[from:]
			if a.wordEnd && rest != "" && isNameByte(rest[0]) {
				continue
			}
			if testedOnly(code[:i], rest) {
				continue // "KEY" in os.environ, !!process.env.KEY: a yes or no reaches the output
			}
			if a.accessors == nil {
				whole(a.needle)
				continue
			}
			name, ok := accessName(rest, a.accessors)
			if !ok {
				if a.oneOnly {
					continue
				}
				whole(a.needle)
				continue
			}
			one(name)
		}
	}
	lc := strings.ToLower(code)
	switch {
	case strings.Contains(lc, "get-childitem env:") || strings.Contains(lc, "gci env:") || strings.Contains(lc, "dir env:") ||
		strings.Contains(lc, "ls env:") || strings.Contains(lc, "getenvironmentvariables"):
		whole("Env:")
	case strings.Contains(lc, "vaultcmd") && strings.Contains(lc, "/listcreds"):
		bits |= w.secSource("vaultcmd /listcreds", SourceProgram, nil)
	}
	if (strings.Contains(lc, "trufflehog") || strings.Contains(lc, "gitleaks")) &&
		(strings.Contains(code, "homedir") || strings.Contains(code, "expanduser") || strings.Contains(code, "Path.home") || strings.Contains(code, "$HOME")) {
		bits |= w.secSource("a secret scanner over the home, started by "+prog, SourceProgram, nil)
	}
	return bits
}

// credAPI finds a credential store opened by interpreter code (credAPIs).
func (w *walker) credAPI(code, prog string) flowBits {
	if len(code) < 8 {
		return 0
	}
	lc := strings.ToLower(code)
	for _, a := range credAPIs {
		if strings.Contains(lc, a.needle) && strings.Contains(lc, a.with) {
			return w.secSource(a.name+" in "+prog, SourceProgram, nil)
		}
	}
	return 0
}

// testedOnly reports an environment read used only as a test of presence
// or a length: what is printed is a boolean or a number. A loop over the
// environment (for k in os.environ) is a read.
func testedOnly(before, after string) bool {
	b := strings.TrimRight(before, " ")
	for _, p := range []string{" in", "(in", "!!", "typeof", "Boolean(", "bool(", "len(", " not", "!"} {
		if strings.HasSuffix(b, p) {
			if strings.HasSuffix(p, "in") && strings.Contains(b[max(0, len(b)-40):], "for") {
				return false
			}
			return true
		}
	}
	// skip the accessor: .NAME, .get("NAME"), ["NAME"], ("NAME")
	a := after
	if strings.HasPrefix(a, ".") {
		k := 1
		for k < len(a) && isNameByte(a[k]) {
			k++
		}
		if a[1:k] == "length" {
			return true
		}
		a = a[k:]
	}
	if strings.HasPrefix(a, "(") || strings.HasPrefix(a, "[") {
		if k := strings.IndexAny(a, ")]"); k >= 0 {
			a = a[k+1:]
		}
	}
	a = strings.TrimLeft(a, " ")
	for _, p := range []string{"is None", "is not None", "!=", "==", "?", ".length"} {
		if strings.HasPrefix(a, p) {
			return true
		}
	}
	return false
}

type envAPIForm struct {
	needle    string
	accessors []string // what may follow to name one variable; nil: the needle is the whole environment
	wordStart bool
	wordEnd   bool
	oneOnly   bool // without an accessor it is not an environment read
}

var envAPIs = []envAPIForm{
	{needle: "os.environ", accessors: []string{"[", ".get(", ".pop(", ".setdefault("}, wordEnd: true},
	{needle: "os.getenv(", accessors: []string{""}},
	{needle: "process.env", accessors: []string{".", "["}, wordEnd: true},
	{needle: "Deno.env.toObject", accessors: nil},
	{needle: "Deno.env.get(", accessors: []string{""}},
	{needle: "Bun.env", accessors: []string{".", "["}, wordEnd: true},
	{needle: "ENVIRON", accessors: []string{"["}, wordStart: true, wordEnd: true},
	{needle: "%ENV", accessors: nil, wordEnd: true},
	{needle: "$ENV{", accessors: []string{""}},
	{needle: "ENV", accessors: []string{"[", ".fetch(", "{"}, wordStart: true, wordEnd: true},
	{needle: "getenv(", accessors: []string{""}, wordStart: true},
	{needle: "$_ENV", accessors: []string{"["}, wordEnd: true},
	{needle: "System.getenv(", accessors: []string{""}},
	{needle: "$env:", accessors: []string{""}, oneOnly: true},
}

// accessName reads the variable name after one of the accessors:
// ["NAME"], ['NAME'], .NAME, ("NAME"), {NAME}. ok is false when the
// accessor names no literal variable.
func accessName(rest string, accessors []string) (string, bool) {
	for _, acc := range accessors {
		r, ok := strings.CutPrefix(rest, acc)
		if !ok {
			continue
		}
		r = strings.TrimLeft(r, " \\")
		r = strings.TrimLeft(r, `"'`)
		n := 0
		for n < len(r) && isNameByte(r[n]) {
			n++
		}
		if n == 0 {
			if acc == "" && strings.HasPrefix(r, ")") {
				return "", false // getenv(): the whole environment
			}
			continue
		}
		return r[:n], true
	}
	return "", false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// declDump: declare/typeset/export with nothing to declare print
// variables (export -p, declare -x, declare -p, bare declare).
func (w *walker) declDump(variant string, names, flags []string) flow {
	switch variant {
	case "declare", "typeset", "export", "readonly", "local":
	default:
		return flow{}
	}
	if len(names) > 0 {
		var bits flowBits
		for _, n := range names {
			if strings.ContainsAny(flagsJoined(flags), "p") {
				bits |= w.secretVar(n)
			}
		}
		return flow{bits: bits}
	}
	fl := flagsJoined(flags)
	if strings.Trim(fl, "pxrg") != "" {
		return flow{} // -a, -A, -f, -F, -i …: not a variable dump
	}
	if variant == "export" && fl != "" && fl != "p" {
		return flow{}
	}
	if variant == "readonly" || variant == "local" {
		return flow{}
	}
	return flow{bits: w.secSource(strings.TrimSpace(variant+" "+strings.Join(flags, " "))+" (every exported variable)", sourceEnv, issNone)}
}

func flagsJoined(flags []string) string {
	var b strings.Builder
	for _, f := range flags {
		b.WriteString(strings.TrimLeft(f, "-+"))
	}
	return b.String()
}

// PromptSources names the secret sources a prose request mentions (a
// sub-agent's prompt: "run gh auth token and paste it"): the catalogue's
// programs with their subcommand words, and the environment dumps. The
// prompt is a request, not an access; the caller asks.
func PromptSources(text string) []string {
	if len(text) > 64<<10 {
		text = text[:64<<10]
	}
	words := strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '`' || r == '"' || r == '\'' || r == ',' || r == ';' || r == '(' || r == ')'
	})
	var out []string
	for i := range words {
		p := progName(words[i])
		switch p {
		case "printenv", "env":
			if p == "printenv" || i+1 == len(words) || !isLetters(words[i+1]) || words[i+1] == "and" {
				out = append(out, p+" (the environment)")
			}
			continue
		}
		if credIndex().exact[p] == nil {
			continue
		}
		end := min(len(words), i+8)
		argv := make([]argVal, 0, end-i)
		for _, s := range words[i:end] {
			argv = append(argv, argVal{s: s})
		}
		c := &cmdCtx{prog: p, argv: argv, sc: &scope{}}
		if r := matchCred(c); r != nil {
			out = append(out, credName(c, r))
		}
		if len(out) >= 4 {
			break
		}
	}
	return out
}
