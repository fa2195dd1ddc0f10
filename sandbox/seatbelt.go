package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/policy"
)

// The macOS backend: a Seatbelt profile (SBPL, the language of
// sandbox-exec -p) made from the same policy as the Linux ruleset. This
// file is plain Go, with no build tag, so its golden tests run wherever
// the tests do; launch_darwin.go runs the command under the profile.
//
// The profile denies by default and allows, in order: what every process
// needs (fork, exec where it may read, signals and process information
// inside the sandbox, sysctl reads, a short list of system services),
// file metadata everywhere (as on Linux, where Landlock does not mediate
// stat), the allowed trees (allowedRoots, and the system trees) with
// their levels, the harmless devices, and TCP to the egress proxy on
// loopback. Then every path rule of policy.KernelPaths, as denies: in SBPL
// the last rule that matches an operation decides, so the forbids come
// last and win over every allow above them. An ask rule denies, as on
// Linux: a kernel cannot ask.

// seatbeltInput is what a profile is made from, every path resolved.
type seatbeltInput struct {
	Roots   []Root   // the allowed trees (resolveRoots)
	System  []string // read and execute, whole
	Devices []string // read and write
	Deny    []policy.KernelGlob
	// Aliases maps a prefix of the policy's paths to the one the kernel
	// sees (macOS's /tmp is /private/tmp): a deny on the first is also
	// written for the second. Keys and values are absolute.
	Aliases      map[string]string
	EgressPort   int
	AllowNetwork bool
}

// seatbeltSystem are macOS's system trees, granted read and execute
// without a walk: programs, libraries, frameworks and their data.
var seatbeltSystem = []string{"/usr", "/bin", "/sbin", "/System", "/Library", "/opt", "/Applications", "/nix/store",
	"/private/var/db/timezone", "/private/var/db/dyld", "/private/var/select"}

// seatbeltDevices are the harmless devices. /dev/tty is missing on
// purpose, as on Linux: it is the approval channel.
var seatbeltDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper"}

// seatbeltAliases are macOS's own symlinks at the root.
var seatbeltAliases = map[string]string{"/tmp": "/private/tmp", "/var": "/private/var", "/etc": "/private/etc"}

// seatbeltServices are the Mach services the command may look up: user
// and group names, notifications, logging, certificate trust (TLS through
// the proxy is end to end) and preferences. Everything else is refused,
// among them LaunchServices (open(1) would start a program outside the
// sandbox) and the security server that hands out keychain items.
var seatbeltServices = []string{
	"com.apple.cfprefsd.agent",
	"com.apple.cfprefsd.daemon",
	"com.apple.logd",
	"com.apple.system.logger",
	"com.apple.system.notification_center",
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.trustd",
	"com.apple.trustd.agent",
}

// seatbeltProfile is the SBPL profile for in.
func seatbeltProfile(in seatbeltInput) (string, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("(version 1)")
	w(";; Airlock's sandbox for one command, made from the policy (sandbox/seatbelt.go). In SBPL the")
	w(";; last rule that matches an operation decides: the policy's denies come last.")
	w("(deny default)")
	w("")
	w(";; processes: exec is allowed where files may be read (below)")
	w("(allow process-fork)")
	w("(allow signal (target same-sandbox))")
	w("(allow process-info* (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow user-preference-read)")
	services := make([]string, 0, len(seatbeltServices))
	for _, s := range seatbeltServices {
		services = append(services, "(global-name "+sbplString(s)+")")
	}
	w("(allow mach-lookup\n  %s)", strings.Join(services, "\n  "))
	w("")
	w(";; file metadata everywhere, as on Linux (the forbids below take even that)")
	w("(allow file-read-metadata)")
	system := in.System
	var ro, rw []string
	for _, r := range in.Roots {
		if r.Write {
			rw = append(rw, r.Path)
		} else {
			ro = append(ro, r.Path)
		}
	}
	for _, set := range []struct {
		what, ops string
		paths     []string
	}{
		{"system trees: read and execute, whole", "file-read* process-exec", system},
		{"allowed trees, read-only", "file-read* process-exec", ro},
		{"allowed trees, read-write", "file-read* file-write* process-exec", rw},
	} {
		if len(set.paths) == 0 {
			continue
		}
		filters := make([]string, 0, len(set.paths))
		for _, p := range set.paths {
			s, err := sbplPath(p)
			if err != nil {
				return "", err
			}
			filters = append(filters, "(subpath "+s+")")
		}
		w(";; %s", set.what)
		w("(allow %s\n  %s)", set.ops, strings.Join(filters, "\n  "))
	}
	if len(in.Devices) > 0 {
		filters := make([]string, 0, len(in.Devices))
		for _, d := range in.Devices {
			s, err := sbplPath(d)
			if err != nil {
				return "", err
			}
			filters = append(filters, "(literal "+s+")")
		}
		w(";; the harmless devices")
		w("(allow file-read* file-write-data file-ioctl\n  %s)", strings.Join(filters, "\n  "))
	}
	w(";; the terminal the command inherits: raw mode and window size")
	w("(allow file-ioctl (regex %s))", sbplString(`^/dev/ttys[0-9]+$`))
	w("")
	switch {
	case in.AllowNetwork:
		w(";; network: IP not restricted (asked for), DNS through mDNSResponder; other UNIX sockets stay refused")
		w("(allow network-outbound (remote ip))")
		w("(allow network-bind network-inbound (local ip))")
		w("(allow network-outbound (literal %s))", sbplString("/private/var/run/mDNSResponder"))
	case in.EgressPort > 0:
		w(";; network: TCP to the egress proxy on loopback only; no DNS, no UDP, no bind")
		w("(allow network-outbound (remote tcp %s))", sbplString("localhost:"+strconv.Itoa(in.EgressPort)))
	default:
		w(";; network: none (no egress proxy)")
	}
	for _, g := range in.Deny {
		if err := writeDeny(&b, g, in.Aliases); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// writeDeny writes one policy rule as a deny.
func writeDeny(b *strings.Builder, g policy.KernelGlob, aliases map[string]string) error {
	var ops []string
	if g.Read {
		ops = append(ops, "file-read*", "process-exec")
	}
	if g.Write {
		ops = append(ops, "file-write*")
	}
	match, err := globFilters(g.Globs, aliases)
	if err != nil {
		return fmt.Errorf("rule %s: %w", g.Rule, err)
	}
	if len(match) == 0 {
		return nil
	}
	except, err := globFilters(g.Except, aliases)
	if err != nil {
		return fmt.Errorf("rule %s: %w", g.Rule, err)
	}
	fmt.Fprintf(b, "\n;; %s\n", sbplComment(g.Rule))
	filter := "\n  " + strings.Join(match, "\n  ")
	if len(except) > 0 {
		nots := make([]string, 0, len(except))
		for _, e := range except {
			nots = append(nots, "(require-not "+e+")")
		}
		filter = "\n  (require-all\n    (require-any\n      " + strings.Join(match, "\n      ") + ")\n    " + strings.Join(nots, "\n    ") + ")"
	}
	fmt.Fprintf(b, "(deny %s%s)\n", strings.Join(ops, " "), filter)
	return nil
}

// globFilters are the regex filters for globs, with each alias's spelling
// added after the policy's. The globs that start with "**/" and hold no
// other "**" are one regex together (one alternation after the shared
// "any depth" prefix): the default policy has hundreds of them.
func globFilters(globs []string, aliases map[string]string) ([]string, error) {
	keys := make([]string, 0, len(aliases))
	for k := range aliases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out, tails []string
	seen := map[string]bool{}
	add := func(g string) error {
		if rest, ok := strings.CutPrefix(g, "**/"); ok && !hasDeepSegment(rest) {
			re, err := segmentsRegex(rest)
			if err != nil {
				return err
			}
			if re != "" && !seen["tail:"+re] {
				seen["tail:"+re] = true
				tails = append(tails, re)
			}
			return nil
		}
		re, err := globRegex(g)
		if err != nil {
			return err
		}
		if !seen[re] {
			seen[re] = true
			out = append(out, "(regex "+sbplString(re)+")")
		}
		return nil
	}
	for _, g := range globs {
		if err := add(g); err != nil {
			return nil, err
		}
		for _, k := range keys {
			fk := policy.FoldPath(k)
			if rest, ok := strings.CutPrefix(g, fk); ok && (rest == "" || rest[0] == '/') {
				if err := add(policy.FoldPath(aliases[k]) + rest); err != nil {
					return nil, err
				}
			}
		}
	}
	switch len(tails) {
	case 0:
	case 1:
		out = append([]string{"(regex " + sbplString("^(/[^/]+)*"+tails[0]+"$") + ")"}, out...)
	default:
		for i, t := range tails {
			tails[i] = strings.TrimPrefix(t, "/")
		}
		out = append([]string{"(regex " + sbplString("^(/[^/]+)*/("+strings.Join(tails, "|")+")$") + ")"}, out...)
	}
	return out, nil
}

func hasDeepSegment(g string) bool {
	for _, s := range strings.Split(g, "/") {
		if s == "**" {
			return true
		}
	}
	return false
}

// globRegex is a PathGlob pattern as an anchored regex of the SBPL
// dialect: '*' and '?' stay within a segment, a "**" segment is any number
// of segments, and ASCII letters match in either case (the policy's
// patterns are folded, and macOS's file systems ignore case by default).
func globRegex(g string) (string, error) {
	re, err := segmentsRegex(g)
	if err != nil {
		return "", err
	}
	switch {
	case re == "":
		return "^/$", nil // "/": the root alone
	case strings.Trim(strings.ReplaceAll(re, "(/[^/]+)*", ""), "") == "":
		return "^/.*$", nil // only "**": every path
	}
	return "^" + re + "$", nil
}

// segmentsRegex is the unanchored regex of g's segments, each with its
// leading '/'.
func segmentsRegex(g string) (string, error) {
	var b strings.Builder
	for _, s := range strings.Split(g, "/") {
		if s == "" {
			continue
		}
		if s == "**" {
			b.WriteString("(/[^/]+)*")
			continue
		}
		b.WriteString("/")
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '*':
				b.WriteString("[^/]*")
			case c == '?':
				b.WriteString("[^/]")
			case 'a' <= c && c <= 'z':
				b.WriteString("[" + string(c) + string(c-'a'+'A') + "]")
			case 'A' <= c && c <= 'Z':
				b.WriteString("[" + string(c-'A'+'a') + string(c) + "]")
			case c < 0x20 || c == 0x7f:
				return "", fmt.Errorf("the pattern %q holds a control character, which a profile cannot carry", g)
			case strings.IndexByte(`.^$|()[]{}+\`, c) >= 0:
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String(), nil
}

// sbplString quotes s as an SBPL string.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// sbplPath quotes an absolute path; a control character is refused (a
// profile line must stay one line).
func sbplPath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return "", fmt.Errorf("the path %q holds a control character, which a profile cannot carry", p)
		}
	}
	return sbplString(p), nil
}

func sbplComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// seatbeltReport is what a Seatbelt launch enforces and what it does not.
func seatbeltReport(in seatbeltInput, profile string) Report {
	r := Report{Seatbelt: true, SeccompWhy: "Linux's; Seatbelt filters no system calls", Egress: in.EgressPort > 0}
	switch {
	case in.AllowNetwork:
		r.Network = "IP not restricted (asked for); UNIX sockets outside the sandbox refused"
	case in.EgressPort > 0:
		r.Network = fmt.Sprintf("TCP connect only to localhost:%d (the egress proxy); DNS, UDP and bind refused", in.EgressPort)
	default:
		r.Network = "every connection and bind refused"
	}
	for _, l := range strings.Split(profile, "\n") {
		if strings.HasPrefix(l, "(allow ") || strings.HasPrefix(l, "(deny ") {
			r.Rules++
		}
	}
	sum := sha256.Sum256([]byte(profile))
	r.RulesDigest = "sha256:" + hex.EncodeToString(sum[:])
	for _, p := range in.System {
		r.Roots = append(r.Roots, p+" (ro)")
	}
	for _, rt := range in.Roots {
		lv := "ro"
		if rt.Write {
			lv = "rw"
		}
		r.Roots = append(r.Roots, rt.Path+" ("+lv+")")
	}
	r.Rights = []string{"file-read*", "file-write*", "process-exec"}
	r.Gaps = seatbeltGaps(in)
	return r
}

// seatbeltGaps are what the Seatbelt profile does not enforce.
func seatbeltGaps(in seatbeltInput) []string {
	return []string{
		"tested by its profile generator only: no macOS machine runs this project's tests yet",
		"sandbox-exec is deprecated by Apple (still shipped, and used by its own tools); SBPL is undocumented and may change with a macOS release",
		"a file rule cannot ask: a path the policy asks about is refused inside the sandbox",
		"no system-call filter (seccomp is Linux's): ptrace, kernel extensions and the rest are left to macOS's own checks",
		"system trees (" + strings.Join(in.System, ", ") + ") are granted whole: a secret placed there is readable unless a forbid names it",
		"the Mach services allowed (" + strings.Join(seatbeltServices, ", ") + ") act for the command outside its file rules: cfprefsd reads and writes preference files for it",
		"forbids match ASCII letters in either case only: a name that differs in a non-ASCII letter's case or in Unicode normalisation is not denied, and '?' matches one byte",
		"files opened before the sandbox started (inherited descriptors) keep their access; the inherited terminal takes any ioctl",
		"a hard link to a secret inside an allowed tree may be readable: rules match the path the kernel resolves",
	}
}
