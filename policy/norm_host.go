package policy

// Host canonicalisation. Rules name hosts the way people write them
// ("169.254.169.254", "*.webhook.site", "fd00::/8"); attackers write the
// same destinations as "0xA9FEA9FE", "http://ok.com@2852039166/",
// "[::ffff:a9fe:a9fe]" or "169-254-169-254.nip.io". CanonicalHost maps all of
// those to one string before any rule is consulted.

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CanonicalHost returns the canonical host named by s, or "" when s names
// no usable host.
//
// s may be a URL ("http://user:pw@Host.COM.:8080/path?q"), "host:port",
// "[v6]:port", "user@host" or a bare host / IP. The result is:
//
//   - the host only: scheme, userinfo (everything up to the LAST '@' of the
//     authority), port, path, query and fragment removed. A backslash ends
//     the host. Where a backslash makes parsers disagree ("http://a\@b/" is
//     host b to curl and Python, host a to browsers and Node) the reading
//     that is an IP literal wins, else the RFC 3986 one (b). ASCII tab, CR
//     and LF are deleted first, as WHATWG URL parsers do. For http, https,
//     ws, wss and ftp any run of slashes or backslashes may follow the
//     scheme ("http:host", "http:\\host", "http:///host" all name host);
//     other schemes need exactly "//" and may have an empty host
//     ("file:///x" → "");
//   - percent-decoded to a fixpoint, NFKC-folded ("．", "。", "｡" → "."),
//     lowercased, trailing dots removed;
//   - an IPv4 address written in any inet_aton / WHATWG spelling (decimal
//     "2852039166", hex "0xA9FEA9FE", octal "0251.0376.0251.0376", per-part
//     mixes, short forms "127.1", "169.16689662") in dotted decimal;
//   - an IPv6 address in netip canonical text without brackets or zone;
//     IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, first octet
//     non-zero, so "::1" stays "::1"), NAT64 (64:ff9b::a.b.c.d) and 6to4
//     (2002:AABB:CCDD::) addresses as the dotted IPv4 they reach;
//   - for the IP-embedding wildcard DNS services nip.io, sslip.io, xip.io,
//     nip.direct and traefik.me ("169.254.169.254.nip.io",
//     "app.169-254-169-254.sslip.io", "a9fea9fe.nip.io", "--1.sslip.io"),
//     the embedded IP; localtest.me, lvh.me and vcap.me and all their
//     subdomains are 127.0.0.1; under any other domain, a cloud metadata
//     address embedded in the same spellings ("169.254.169.254.evil.example",
//     "x-a9fea9fe.evil.example") is that address. No DNS lookup is ever made.
//
// Code points IDNA maps to nothing (U+00AD, U+200B-U+200D, U+2060,
// U+FEFF, variation selectors) are deleted: "exa\u200bmple.com" is
// example.com.
//
// "" is returned for an empty host, an unterminated or non-IPv6 "[...]",
// and a host that still contains a character no URL parser accepts in a
// host after decoding (any space, control or format character, invalid
// UTF-8, % # / < > ? @ [ \ ] ^ |), or a colon that is neither a port
// separator nor part of an IPv6 address.
//
// Names that merely look numeric but are not valid IPv4 ("999.1.1.1",
// "1.2.3.4.5") are not IPs: they are returned as lowercased names, which no
// IP or CIDR rule matches (and which no resolver will resolve).
//
// Internationalised names are kept in their Unicode form (NFKC, lowercase);
// punycode ("xn--") names are kept as written: the two spellings of one IDN
// are not unified.
func CanonicalHost(s string) string {
	if plainHost(s) {
		return finishHost(s)
	}
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\t' || c == '\r' || c == '\n' {
			s = stripTabNL(s)
			break
		}
	}
	if s == "" {
		return ""
	}
	s = stripScheme(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == '?' || c == '#' {
			s = s[:i]
			break
		}
	}
	if i := strings.IndexByte(s, '\\'); i >= 0 {
		// RFC 3986 parsers (curl, Python) read "a\@b" as userinfo "a\" and
		// host "b"; WHATWG parsers (browsers, Node) end the host at the
		// backslash and see "a". Prefer the reading that is an IP literal,
		// the usual target of this trick, else the RFC one.
		whatwg := s[:i]
		if j := strings.LastIndexByte(whatwg, '@'); j >= 0 {
			whatwg = whatwg[j+1:]
		}
		rfc := s
		if j := strings.LastIndexByte(rfc, '@'); j >= 0 {
			rfc = rfc[j+1:]
		}
		if j := strings.IndexByte(rfc, '\\'); j >= 0 {
			rfc = rfc[:j]
		}
		if whatwg != rfc && IsIP(foldHost(hostOnly(whatwg))) && !IsIP(foldHost(hostOnly(rfc))) {
			s = whatwg
		} else {
			s = rfc
		}
	} else if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return ""
		}
		if rest := s[end+1:]; rest != "" && rest[0] != ':' {
			return ""
		}
		a, err := netip.ParseAddr(foldHost(s[1:end]))
		if err != nil || !a.Is6() {
			return ""
		}
		return canonicalAddr(a)
	}
	h := foldHost(s)
	colons, bad := 0, false
	for round := 0; ; round++ {
		colons, bad = 0, false
		ascii := true
		for i := 0; i < len(h); i++ {
			c := h[i]
			if c == ':' {
				colons++
			} else if badHostByte[c] {
				bad = true
			} else if c >= utf8.RuneSelf {
				ascii = false
			}
		}
		if ascii {
			break
		}
		h2, dropped, badRune := cleanHostRunes(h)
		if badRune {
			bad = true
			break
		}
		if !dropped {
			break
		}
		h = h2
		if round == maxHostCleanRounds {
			return ""
		}
		// Deleting code points may have formed new escapes or
		// compositions: fold again.
		h = foldHost(h)
	}
	if colons > 1 {
		// A bare IPv6 address (a zone, "fe80::1%eth0", is dropped).
		a, err := netip.ParseAddr(h)
		if err != nil {
			return ""
		}
		return canonicalAddr(a)
	}
	if bad {
		return ""
	}
	if colons == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	return finishHost(h)
}

// cleanHostRunes deletes the code points IDNA maps to nothing (soft
// hyphen, zero-width space and joiners, word joiner, variation selectors,
// BOM), so "exa\u200bmple.com" is example.com as in a browser, and reports
// as bad a host with any other Unicode space, control or format character,
// or invalid UTF-8.
func cleanHostRunes(h string) (out string, dropped, bad bool) {
	for _, r := range h {
		if ignorableInHost(r) {
			dropped = true
		} else if r == utf8.RuneError || unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf) {
			return h, false, true
		}
	}
	if !dropped {
		return h, false, false
	}
	return strings.Map(func(r rune) rune {
		if ignorableInHost(r) {
			return -1
		}
		return r
	}, h), true, false
}

func ignorableInHost(r rune) bool {
	switch {
	case r == 0xad, 0x180b <= r && r <= 0x180f, 0x200b <= r && r <= 0x200d,
		r == 0x2060, 0xfe00 <= r && r <= 0xfe0f, r == 0xfeff:
		return true
	}
	return false
}

// maxHostCleanRounds bounds the delete-and-refold loop of CanonicalHost;
// a host that needs more rounds is nested obfuscation and is refused.
const maxHostCleanRounds = 8

// plainHost reports whether s is a non-empty run of lowercase letters,
// digits, '.', '-' and '_': a host that needs no parsing or folding.
func plainHost(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// finishHost canonicalises a folded, port-less host: trailing dots go,
// IPv4 spellings and IP-embedding names become dotted decimal.
func finishHost(h string) string {
	for h != "" && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	if h == "" {
		return ""
	}
	if ip, ok := parseIPv4Any(h); ok {
		return formatIPv4(ip, h)
	}
	if ip := embeddedIP(h); ip != "" {
		return ip
	}
	if ip := embeddedMetadataIP(h); ip != "" {
		return ip
	}
	return h
}

// metadataIPs are the cloud metadata services' and host agents' addresses
// (canonical text). A name under ANY domain that embeds one of them, in any
// of the wildcard-DNS spellings ("169.254.169.254.evil.example",
// "x-a9fea9fe.evil.example", "169-254-169-254.corp.internal"), is taken for
// the address: anyone can run a wildcard zone that resolves such names, so
// the shape decides, not a list of services. Other embedded IPs keep their
// names outside the known services (a collector's hex subdomain must stay
// the collector's name).
var metadataIPs = [...]string{
	"169.254.169.254", "169.254.170.2", "169.254.170.23", "169.254.42.42",
	"168.63.129.16", "100.100.100.200", "192.0.0.192",
	"fd00:ec2::254", "fd00:ec2::23", "fd20:ce::254",
}

func isMetadataIP(ip string) bool {
	for _, m := range metadataIPs {
		if ip == m {
			return true
		}
	}
	return false
}

// embeddedMetadataIP returns the metadata address a name embeds before any
// of its suffixes, or "".
func embeddedMetadataIP(h string) string {
	digit := false
	for i := 0; i < len(h); i++ {
		if '0' <= h[i] && h[i] <= '9' {
			digit = true
			break
		}
	}
	if !digit || IsIP(h) {
		return ""
	}
	for start := 0; start < len(h); {
		end := strings.IndexByte(h[start:], '.')
		if end < 0 {
			break
		}
		end += start
		// the labels before this dot, as a wildcard-DNS prefix
		if ip := parseEmbedded(h[:end]); ip != "" && isMetadataIP(ip) {
			return ip
		}
		// one label in any inet_aton spelling ("2852039166", "0xa9fea9fe")
		if v, ok := parseIPv4Any(h[start:end]); ok {
			if ip := formatIPv4(v, ""); isMetadataIP(ip) {
				return ip
			}
		}
		start = end + 1
	}
	return ""
}

// badHostByte marks the bytes no host may contain after decoding: C0
// controls, space, DEL and the WHATWG forbidden host code points (':' is
// handled separately).
var badHostByte = func() (t [256]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	t[0x7f] = true
	for _, c := range []byte("%#/<>?@[\\]^|") {
		t[c] = true
	}
	return t
}()

func stripTabNL(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

// stripScheme removes "scheme:" plus any run of slashes or backslashes
// after it, or leading slashes of a scheme-relative reference. "host:port",
// "user:pw@host" and "fd00::1" are left alone.
func stripScheme(s string) string {
	if s[0] == '/' || s[0] == '\\' {
		return strings.TrimLeft(s, `/\`)
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || !isSchemeName(s[:i]) {
		return s
	}
	rest := s[i+1:]
	if rest != "" && (rest[0] == '/' || rest[0] == '\\') {
		if !isSpecialScheme(s[:i]) {
			// "file:///x", "ldap:///x": exactly "//" introduces the
			// authority, which may be empty.
			return strings.TrimPrefix(rest, "//")
		}
		// Special schemes skip any run of slashes ("http:///x" is x).
		return strings.TrimLeft(rest, `/\`)
	}
	// WHATWG reads "http:example.com" as "http://example.com" for the
	// special schemes; "http:8080" stays host "http", port 8080.
	if rest != "" && !allDigits(rest) && isSpecialScheme(s[:i]) {
		return rest
	}
	return s
}

func isSchemeName(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isSchemeByte(s[i]) {
			return false
		}
	}
	return true
}

func isSchemeByte(c byte) bool {
	return isASCIILetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isSpecialScheme(s string) bool {
	for _, sch := range [...]string{"http", "https", "ws", "wss", "ftp"} {
		if strings.EqualFold(s, sch) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// foldHost is FoldText for hosts: printable ASCII without '%' is only
// lowercased; anything else goes through NFKC, ideographic-dot mapping,
// percent-decoding and lowercasing to a fixpoint.
func foldHost(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '%' {
			return foldSlow(s, true)
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	return strings.ToLower(s)
}

// hostOnly strips a port or the brackets of an IPv6 literal, for a quick
// IsIP test.
func hostOnly(s string) string {
	if s != "" && s[0] == '[' {
		if i := strings.IndexByte(s, ']'); i >= 0 {
			return s[:i+1]
		}
		return s
	}
	if strings.Count(s, ":") == 1 {
		return s[:strings.IndexByte(s, ':')]
	}
	return s
}

// canonicalAddr renders a as CanonicalHost does: no zone, IPv4 for
// IPv4-mapped, IPv4-compatible and NAT64 addresses.
func canonicalAddr(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is6() {
		b := a.As16()
		var zero [12]byte
		nat64 := [12]byte{0x00, 0x64, 0xff, 0x9b}
		if ([12]byte(b[:12]) == zero && b[12] != 0) || [12]byte(b[:12]) == nat64 {
			a = netip.AddrFrom4([4]byte(b[12:]))
		} else if b[0] == 0x20 && b[1] == 0x02 {
			// 6to4 (2002:AABB:CCDD::/48) carries the IPv4 it reaches
			a = netip.AddrFrom4([4]byte(b[2:6]))
		}
	}
	return a.String()
}

// parseIPv4Any parses s as inet_aton does (and as WHATWG URL parsers do):
// one to four dot-separated parts, each decimal, octal (leading 0) or hex
// (leading 0x; a bare "0x" is 0); all but the last part are bytes, the last
// fills the remaining bytes.
func parseIPv4Any(s string) (uint32, bool) {
	if s == "" {
		return 0, false
	}
	var parts [4]uint64
	n := 0
	for start := 0; ; {
		end := strings.IndexByte(s[start:], '.')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if n == 4 {
			return 0, false
		}
		v, ok := parseAtonPart(s[start:end])
		if !ok {
			return 0, false
		}
		parts[n] = v
		n++
		if end == len(s) {
			break
		}
		start = end + 1
	}
	var ip uint32
	for i := 0; i < n-1; i++ {
		if parts[i] > 0xff {
			return 0, false
		}
		ip |= uint32(parts[i]) << (24 - 8*i)
	}
	if parts[n-1] > uint64(1)<<(8*(5-n))-1 {
		return 0, false
	}
	return ip | uint32(parts[n-1]), true
}

func parseAtonPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

// formatIPv4 renders ip in dotted decimal, returning orig itself when it
// already is that text (no allocation for canonical input).
func formatIPv4(ip uint32, orig string) string {
	var buf [15]byte
	b := buf[:0]
	for i := 0; i < 4; i++ {
		if i > 0 {
			b = append(b, '.')
		}
		v := byte(ip >> (24 - 8*i))
		if v >= 100 {
			b = append(b, '0'+v/100)
		}
		if v >= 10 {
			b = append(b, '0'+v/10%10)
		}
		b = append(b, '0'+v%10)
	}
	if string(b) == orig {
		return orig
	}
	return string(b)
}

// ipEmbedSuffixes are wildcard DNS services that resolve a name to the IP
// written inside it.
var ipEmbedSuffixes = [...]string{".nip.io", ".sslip.io", ".xip.io", ".nip.direct", ".traefik.me"}

// loopbackDomains resolve, with every subdomain, to 127.0.0.1.
var loopbackDomains = [...]string{"localtest.me", "lvh.me", "vcap.me"}

// embeddedIP returns the IP a wildcard-DNS name resolves to, or "".
func embeddedIP(h string) string {
	dot := strings.LastIndexByte(h, '.')
	if dot < 0 {
		return ""
	}
	switch h[dot+1:] {
	case "io", "direct", "me":
	default:
		return ""
	}
	for _, d := range loopbackDomains {
		if h == d || strings.HasSuffix(h, d) && h[len(h)-len(d)-1] == '.' {
			return "127.0.0.1"
		}
	}
	for _, suf := range ipEmbedSuffixes {
		if len(h) > len(suf) && strings.HasSuffix(h, suf) {
			return parseEmbedded(h[:len(h)-len(suf)])
		}
	}
	return ""
}

// parseEmbedded finds the IP in the part of a nip.io-style name before the
// service domain: dotted ("a.10.0.0.1", "a-10.0.0.1"), dashed
// ("a-10-0-0-1"), 8 hex digits ("a-0a000001") or, sslip.io style, an IPv6
// address with ':' written as '-' ("--1", "fd00-ec2--254").
func parseEmbedded(p string) string {
	// Dotted: the last four labels, the first of them possibly after a '-'.
	var lab [4]string
	rest := p
	n := 0
	for n < 4 {
		i := strings.LastIndexByte(rest, '.')
		lab[3-n] = rest[i+1:]
		n++
		if i < 0 {
			rest = ""
			break
		}
		rest = rest[:i]
	}
	if n == 4 {
		if i := strings.LastIndexByte(lab[0], '-'); i >= 0 {
			lab[0] = lab[0][i+1:]
		}
		if ip, ok := octets(lab); ok {
			return formatIPv4(ip, "")
		}
	}
	last := p[strings.LastIndexByte(p, '.')+1:]
	// Dashed: the last four dash-separated parts of the last label.
	var parts [4]string
	rest = last
	n = 0
	for n < 4 {
		i := strings.LastIndexByte(rest, '-')
		if i < 0 {
			parts[3-n] = rest
			n++
			break
		}
		parts[3-n] = rest[i+1:]
		n++
		rest = rest[:i]
	}
	if n == 4 {
		if ip, ok := octets(parts); ok {
			return formatIPv4(ip, "")
		}
	}
	// Hex: exactly eight hex digits, possibly after a '-'.
	hx := last[strings.LastIndexByte(last, '-')+1:]
	if len(hx) == 8 {
		var ip uint32
		ok := true
		for i := 0; i < 8; i++ {
			if !isHex(hx[i]) {
				ok = false
				break
			}
			ip = ip<<4 | uint32(unhex(hx[i]))
		}
		if ok {
			return formatIPv4(ip, "")
		}
	}
	// IPv6 with dashes (sslip.io).
	if strings.Count(last, "-") >= 2 {
		if a, err := netip.ParseAddr(strings.ReplaceAll(last, "-", ":")); err == nil && a.Is6() {
			return canonicalAddr(a)
		}
	}
	return ""
}

// octets parses four decimal byte values (1-3 digits each).
func octets(p [4]string) (uint32, bool) {
	var ip uint32
	for _, s := range p {
		if s == "" || len(s) > 3 {
			return 0, false
		}
		v := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		if v > 255 {
			return 0, false
		}
		ip = ip<<8 | uint32(v)
	}
	return ip, true
}

// IsIP reports whether host is an IP literal in any spelling CanonicalHost
// accepts: IPv6 with or without brackets, or IPv4 in any inet_aton form
// (so "127.1" and "2852039166" are IPs). One trailing dot is allowed. No
// scheme, port or percent-decoding is handled: pass a host, not a URL.
func IsIP(host string) bool {
	if host == "" {
		return false
	}
	if host[0] == '[' {
		if len(host) < 2 || host[len(host)-1] != ']' {
			return false
		}
		a, err := netip.ParseAddr(host[1 : len(host)-1])
		return err == nil && a.Is6()
	}
	if strings.IndexByte(host, ':') >= 0 {
		_, err := netip.ParseAddr(host)
		return err == nil
	}
	host = strings.TrimSuffix(host, ".")
	_, ok := parseIPv4Any(host)
	return ok
}

// HostMatch reports whether the canonical host (a CanonicalHost result)
// matches pattern. Patterns:
//
//   - "*" matches every host, even "";
//   - a CIDR prefix ("169.254.0.0/16", "fd00::/8") matches IP hosts inside
//     it (an IPv4-mapped IPv6 prefix also matches the IPv4 hosts it maps);
//   - a pattern containing '*' is matched label by label from the right: a
//     leading "*" label matches ONE OR MORE labels ("*.x.com" matches
//     "a.x.com" and "a.b.x.com", not "x.com"); a "*" label anywhere else
//     matches EXACTLY ONE label ("oast.*" matches "oast.fun" but not
//     "oast.fun.x"; "*.oast.*" matches "a.b.oast.fun"); a label mixing '*'
//     or '?' with other characters is a glob within that one label
//     ("api-*.x.com");
//   - anything else (a name, an IP in any spelling, even a URL) is
//     canonicalised with CanonicalHost and compared exactly, so a trailing
//     dot, a port or case do not matter ("0xA9FEA9FE" matches host
//     "169.254.169.254").
//
// Names that embed IPs (nip.io and friends) canonicalise to the IP, so
// write IP or CIDR rules, not "*.nip.io", to stop them.
func HostMatch(pattern, host string) bool {
	if pattern == "*" {
		return true
	}
	if host == "" {
		return false
	}
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return false
	}
	if strings.IndexByte(pattern, '/') >= 0 && !strings.Contains(pattern, "://") {
		return cidrMatch(pattern, host)
	}
	if strings.IndexByte(pattern, '*') >= 0 {
		return wildcardHostMatch(strings.TrimRight(foldHost(pattern), "."), host)
	}
	if pattern == host {
		return true
	}
	c := CanonicalHost(pattern)
	return c != "" && c == host
}

func cidrMatch(pattern, host string) bool {
	pfx, err := netip.ParsePrefix(pattern)
	if err != nil {
		return false
	}
	if pfx.Addr().Is4In6() && pfx.Bits() >= 96 {
		pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return pfx.Contains(a)
}

// wildcardHostMatch matches label patterns from the right, without
// allocating.
func wildcardHostMatch(pat, host string) bool {
	for {
		pl, prest, pmore := cutLastLabel(pat)
		if !pmore && pl == "*" {
			return host != ""
		}
		if host == "" {
			return false
		}
		hl, hrest, hmore := cutLastLabel(host)
		if !labelMatch(pl, hl) {
			return false
		}
		if !pmore || !hmore {
			return !pmore && !hmore
		}
		pat, host = prest, hrest
	}
}

// cutLastLabel splits s at its last '.'.
func cutLastLabel(s string) (label, rest string, more bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return s, "", false
	}
	return s[i+1:], s[:i], true
}

func labelMatch(pat, label string) bool {
	if pat == "*" {
		return label != ""
	}
	if strings.IndexByte(pat, '*') >= 0 || strings.IndexByte(pat, '?') >= 0 {
		return globMatch(pat, label)
	}
	return pat == label
}
