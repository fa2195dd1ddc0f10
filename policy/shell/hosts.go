package shell

import (
	"strings"
)

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
				if !dnsTypes.has(strings.ToLower(s)) {
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
				if valued.has(s) && i+1 < len(argv) {
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

var pingOpts = &optSpec{short: "cistWwIpQMlmSTFgqz"}

var hostOpts = &optSpec{short: "tcWRmN"}

var whoisOpts = &optSpec{short: "hpi", long: set("host", "port")}

var sshKeyscanOpts = &optSpec{short: "fpTtO"}

var sshCopyIdOpts = &optSpec{short: "ipoFt"}

var moshOpts = &optSpec{short: "p", long: set("ssh", "port", "predict", "client", "server", "family", "bind-server")}

var ftpOpts = &optSpec{short: "P"}

var nmapValued = set("-p", "-e", "-S", "-D", "-g", "--exclude", "--script", "--script-args", "-oN", "-oX", "-oG", "-oA", "-oS",
	"-iL", "-iR", "--datadir", "--max-retries", "--host-timeout", "--min-rate", "--max-rate", "--excludefile", "--source-port", "--top-ports", "--dns-servers")
