package shell

import (
	"strings"
)

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
			if valued.has(s) {
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
		w.remoteDepth++
		w.nestedProgram(code.s, sc, nil)
		w.remoteDepth--
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
	case "pkcs11provider", "securitykeyprovider":
		if strings.ToLower(val) != "none" {
			w.execPath(argVal{s: val, dyn: v.dyn}, sc) // a library ssh loads
		}
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
		case "D":
			if c.prog == "sftp" {
				w.classify(w.splitWords(v.s), c.sc, flow{}) // -D SFTP_SERVER runs locally
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
		if acc == accR && (c.prog == "scp" && recursiveFlag(c.argv, "r", "") || c.prog == "rsync" && recursiveFlag(c.argv, "ra", "recursive", "archive")) {
			w.treePath(a, c.sc, acc)
			continue
		}
		w.argPath(a, c.sc, acc, true)
	}
}

var scpOpts = &optSpec{short: "cDFiJlloPSX"}

var sftpOpts = &optSpec{short: "BbcDFiJlNoPRSs"}

var rsyncOpts = &optSpec{short: "efTBM", long: set("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
	"include-from", "files-from", "password-file", "log-file", "log-file-format", "temp-dir", "backup-dir", "suffix",
	"chmod", "chown", "usermap", "groupmap", "compare-dest", "copy-dest", "link-dest", "partial-dir", "max-size",
	"min-size", "max-delete", "timeout", "contimeout", "port", "sockopts", "bwlimit", "out-format", "info", "debug",
	"iconv", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "block-size", "modify-window",
	"address", "protocol", "outbuf", "remote-option", "write-batch", "only-write-batch", "read-batch", "stop-after", "stop-at", "mkpath")}

var socatValued = set("-b", "-t", "-T", "-lf", "-lp", "-L", "-W", "-o")
