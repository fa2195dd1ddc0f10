package policy

import (
	"net/netip"
	"strings"
	"testing"
)

func TestCanonicalHost(t *testing.T) {
	const md = "169.254.169.254"
	tests := []struct {
		in, want string
	}{
		// Every IPv4 spelling of the metadata address.
		{"169.254.169.254", md},
		{"2852039166", md},
		{"0xA9FEA9FE", md},
		{"0xa9fea9fe", md},
		{"0XA9FEA9FE", md},
		{"0x00000000a9fea9fe", md},
		{"025177524776", md},
		{"0251.0376.0251.0376", md},
		{"0xa9.254.0251.254", md},
		{"0xA9.0xFE.0xA9.0xFE", md},
		{"169.254.0xa9.0376", md},
		{"169.16689662", md},
		{"169.254.43518", md},
		{"0xa9.0xfea9fe", md},
		{"0251.0xfe.43518", md},
		{"169.254.169.254.", md},
		{"169.254.169.254..", md},
		{"http://169.254.169.254/latest/meta-data/", md},
		{"http://2852039166/", md},
		{"http://0xA9FEA9FE/", md},
		{"http://0251.0376.0251.0376/", md},
		{"http://169.254.169.254:80/", md},
		{"HTTP://169.254.169.254/", md},
		// Userinfo tricks: the host is after the LAST '@'.
		{"http://ok.com@169.254.169.254/", md},
		{"http://user:pw@169.254.169.254:8080/x", md},
		{"http://a@b@169.254.169.254/", md},
		{"http://ok.com/@evil.com/", "ok.com"},
		{"http://ok.com?@evil.com/", "ok.com"},
		{"http://ok.com#@evil.com/", "ok.com"},
		{"user@169.254.169.254", md},
		{"user@host.com:22", "host.com"},
		// Backslashes: the IP reading wins, else RFC 3986.
		{`http://evil.com\@169.254.169.254/`, md},
		{`http://169.254.169.254\@evil.com/`, md},
		{`http://allowed.com\@webhook.site/`, "webhook.site"},
		{`http://169.254.169.254\x.evil.com/`, md},
		{`http:\\169.254.169.254\x`, md},
		// Scheme shapes.
		{"HTTP://Metadata.Google.Internal./x", "metadata.google.internal"},
		{"https://api.github.com/repos/x/y?z=1#f", "api.github.com"},
		{"//cdn.example.com/x.js", "cdn.example.com"},
		{"http:169.254.169.254", md},
		{"http:/169.254.169.254/x", md},
		{"ws://Example.COM:443", "example.com"},
		{"git+ssh://git@github.com/x/y", "github.com"},
		{"http:8080", "http"},
		{"localhost:8080", "localhost"},
		{"example.com:80/path", "example.com"},
		{"Host.COM.:8080", "host.com"},
		{"http://user:pw@Host.COM.:8080/path?q", "host.com"},
		{"  example.com  ", "example.com"},
		{"http://169.254.\n169.254/", md},
		{"http://exa\tmple.com/", "example.com"},
		// Percent-encoding and Unicode.
		{"169%2e254%2e169%2e254", md},
		{"http://169%252e254.169.254/", md},
		{"%31%36%39.254.169.254", md},
		{"169。254。169。254", md},
		{"169．254．169．254", md},
		{"169｡254｡169｡254", md},
		{"１６９.２５４.１６９.２５４", md},
		{"ＥＸＡＭＰＬＥ.com", "example.com"},
		{"http://169.254.169.254：80/", md},
		{"exa%4dple.com", "example.com"},
		{"münchen.DE", "münchen.de"},
		{"xn--mnchen-3ya.de", "xn--mnchen-3ya.de"},
		// IPv6.
		{"[::ffff:169.254.169.254]:80", md},
		{"[::ffff:169.254.169.254]", md},
		{"::ffff:169.254.169.254", md},
		{"::ffff:a9fe:a9fe", md},
		{"[::FFFF:A9FE:A9FE]", md},
		{"[0:0:0:0:0:ffff:a9fe:a9fe]", md},
		{"[::169.254.169.254]", md},
		{"[::a9fe:a9fe]", md},
		{"[64:ff9b::a9fe:a9fe]", md},
		{"[fd00:ec2::254]", "fd00:ec2::254"},
		{"http://[fd00:ec2::254]/latest", "fd00:ec2::254"},
		{"[FD00:EC2:0:0:0:0:0:254]:80", "fd00:ec2::254"},
		{"fd00:ec2::254", "fd00:ec2::254"},
		{"[::1]", "::1"},
		{"[::1]:8080", "::1"},
		{"::1", "::1"},
		{"[::]", "::"},
		{"[fe80::1%25eth0]:80", "fe80::1"},
		{"fe80::1%eth0", "fe80::1"},
		{"http://[2001:db8::1]:443/", "2001:db8::1"},
		// Other cloud metadata and internal addresses.
		{"100.100.100.200", "100.100.100.200"},
		{"http://100.100.100.200/latest/meta-data", "100.100.100.200"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"0x7f.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"4294967295", "255.255.255.255"},
		// IP-embedding wildcard DNS.
		{"169.254.169.254.nip.io", md},
		{"app.169.254.169.254.nip.io", md},
		{"app-169.254.169.254.nip.io", md},
		{"169-254-169-254.nip.io", md},
		{"app-169-254-169-254.nip.io", md},
		{"a.b.169-254-169-254.nip.io", md},
		{"a9fea9fe.nip.io", md},
		{"A9FEA9FE.NIP.IO", md},
		{"app-a9fea9fe.nip.io", md},
		{"169.254.169.254.sslip.io", md},
		{"169-254-169-254.sslip.io", md},
		{"a9fea9fe.sslip.io", md},
		{"http://169.254.169.254.xip.io/", md},
		{"169.254.169.254.nip.direct", md},
		{"169-254-169-254.traefik.me", md},
		{"--1.sslip.io", "::1"},
		{"fd00-ec2--254.sslip.io", "fd00:ec2::254"},
		{"--ffff-a9fe-a9fe.sslip.io", md},
		{"localtest.me", "127.0.0.1"},
		{"anything.localtest.me", "127.0.0.1"},
		{"a.b.lvh.me", "127.0.0.1"},
		{"vcap.me", "127.0.0.1"},
		{"nip.io", "nip.io"},
		{"app.nip.io", "app.nip.io"},
		{"999.1.1.1.nip.io", "999.1.1.1.nip.io"},
		{"notlocaltest.me", "notlocaltest.me"},
		{"sslip.io.example.com", "sslip.io.example.com"},
		// Metadata addresses embedded under any domain, by shape.
		{"169.254.169.254.rebind.example", md},
		{"app.169-254-169-254.corp.internal", md},
		{"meta-a9fea9fe.evil.example", md},
		{"2852039166.evil.example", md},
		{"0xa9fea9fe.evil.example", md},
		{"fd00-ec2--254.evil.example", "fd00:ec2::254"},
		{"100-100-100-200.x.example", "100.100.100.200"},
		{"10.0.0.5.nip.io.example.com", "10.0.0.5.nip.io.example.com"},
		{"1a2b3c4d.ngrok-free.app", "1a2b3c4d.ngrok-free.app"},
		{"ip-10-0-0-1.ec2.internal", "ip-10-0-0-1.ec2.internal"},
		{"[2002:a9fe:a9fe::1]", md},
		{"2002:a9fe:a9fe::", md},
		// Names that are not IPs stay names.
		{"example.com", "example.com"},
		{"Example.COM", "example.com"},
		{"1.2.3.4.5", "1.2.3.4.5"},
		{"999.1.1.1", "999.1.1.1"},
		{"256.1.1.1", "256.1.1.1"},
		{"1.2.3.256", "1.2.3.256"},
		{"1.2.65536", "1.2.65536"},
		{"4294967296", "4294967296"},
		{"08.1.1.1", "08.1.1.1"},
		{"0xg.1.1.1", "0xg.1.1.1"},
		{"1..2.3", "1..2.3"},
		{"localhost", "localhost"},
		{"under_score.example", "under_score.example"},
		// Unusable.
		{"", ""},
		{"   ", ""},
		{"http://", ""},
		{"http:///x", "x"},
		{"ldap:///x", ""},
		{"file://host/x", "host"},
		{"file:///etc/passwd", ""},
		{"http://[::1", ""},
		{"http://[::1]x/", ""},
		{"[1.2.3.4]", ""},
		{"[nothex]", ""},
		{"http://a b.com/", ""},
		{"http://x.com:80:90/", ""},
		{"a%2fb.com", ""},
		{"ok.com%40evil.com", ""},
		{"evil％2Fx.com", ""},
		{"a%zz.com", ""},
		{"a<b", ""},
		{"@\u00850", ""},
		{"a\u2028b.com", ""},
		{"a\u202eb.com", ""},
		{"a\xffb.com", ""},
		{"exa\u200bmple.com", "example.com"},
		{"exa\u00admple.com", "example.com"},
		{"\ufeff169.254.169.254", md},
		{"169.254.169%2\u200be254", md},
		{"a%2\u200bfb.com", ""},
		{"caf\u200be\u0301.com", "café.com"},
		{"...", ""},
		{"@", ""},
		{"user@", ""},
		{":80", ""},
	}
	for _, tt := range tests {
		if got := CanonicalHost(tt.in); got != tt.want {
			t.Errorf("CanonicalHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalHostIdempotent(t *testing.T) {
	for _, in := range []string{
		"HTTP://Metadata.Google.Internal./x", "0xA9FEA9FE", "[::ffff:a9fe:a9fe]",
		"fd00-ec2--254.sslip.io", "münchen.DE", "169。254。169。254", "999.1.1.1",
	} {
		c := CanonicalHost(in)
		if c2 := CanonicalHost(c); c2 != c {
			t.Errorf("CanonicalHost(%q) = %q, but CanonicalHost(%q) = %q", in, c, c, c2)
		}
	}
}

func TestCanonicalHostNoAlloc(t *testing.T) {
	for _, in := range []string{"api.github.com", "https://api.github.com/repos", "169.254.169.254", "http://10.0.0.1:8080/x"} {
		if n := testing.AllocsPerRun(100, func() { CanonicalHost(in) }); n != 0 {
			t.Errorf("CanonicalHost(%q): %v allocs, want 0", in, n)
		}
	}
}

func TestIsIP(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"169.254.169.254", true},
		{"169.254.169.254.", true},
		{"2852039166", true},
		{"0xA9FEA9FE", true},
		{"0251.0376.0251.0376", true},
		{"127.1", true},
		{"1", true},
		{"::1", true},
		{"[::1]", true},
		{"fd00:ec2::254", true},
		{"::ffff:169.254.169.254", true},
		{"fe80::1%eth0", true},
		{"", false},
		{"[", false},
		{"[]", false},
		{"[1.2.3.4]", false},
		{"example.com", false},
		{"1.2.3.4.5", false},
		{"999.1.1.1", false},
		{"1.2.3.4:80", false},
		{"08", false},
		{"4294967296", false},
	}
	for _, tt := range tests {
		if got := IsIP(tt.in); got != tt.want {
			t.Errorf("IsIP(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHostMatch(t *testing.T) {
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"*", "example.com", true},
		{"*", "169.254.169.254", true},
		{"*", "", true},
		{"example.com", "", false},
		{"", "example.com", false},
		// Exact names.
		{"webhook.site", "webhook.site", true},
		{"Webhook.Site", "webhook.site", true},
		{"webhook.site.", "webhook.site", true},
		{"webhook.site", "evilwebhook.site", false},
		{"webhook.site", "a.webhook.site", false},
		{"webhook.site:443", "webhook.site", true},
		{"https://webhook.site/x", "webhook.site", true},
		// Leading wildcard: strict subdomains, one or more labels.
		{"*.webhook.site", "a.webhook.site", true},
		{"*.webhook.site", "a.b.webhook.site", true},
		{"*.webhook.site", "webhook.site", false},
		{"*.webhook.site", "evilwebhook.site", false},
		{"*.webhook.site", "webhook.site.evil.com", false},
		{"*.Webhook.SITE.", "a.webhook.site", true},
		{"*.x.com", "x.com", false},
		// Inner and trailing wildcards: exactly one label.
		{"oast.*", "oast.fun", true},
		{"oast.*", "oast.fun.x", false},
		{"oast.*", "oast", false},
		{"oast.*", "a.oast.fun", false},
		{"*.oast.*", "a.oast.fun", true},
		{"*.oast.*", "a.b.oast.fun", true},
		{"*.oast.*", "oast.fun", false},
		{"*.oast.*", "a.oast.fun.x", false},
		{"a.*.com", "a.b.com", true},
		{"a.*.com", "a.b.c.com", false},
		{"*.*", "a.b", true},
		{"*.*", "a", false},
		{"*.*", "a.b.c", true},
		// Globs within one label.
		{"api-*.x.com", "api-1.x.com", true},
		{"api-*.x.com", "api-1.y.x.com", false},
		{"api-*.x.com", "web.x.com", false},
		{"*.interact?.sh", "a.interact1.sh", true},
		// IP literals in any spelling.
		{"169.254.169.254", "169.254.169.254", true},
		{"0xA9FEA9FE", "169.254.169.254", true},
		{"2852039166", "169.254.169.254", true},
		{"[::ffff:169.254.169.254]", "169.254.169.254", true},
		{"[fd00:ec2::254]", "fd00:ec2::254", true},
		{"fd00:ec2:0::254", "fd00:ec2::254", true},
		{"169.254.169.254", "169.254.169.25", false},
		{"localtest.me", "127.0.0.1", true},
		// CIDR.
		{"169.254.0.0/16", "169.254.169.254", true},
		{"169.254.0.0/16", "169.253.1.1", false},
		{"169.254.1.1/16", "169.254.169.254", true},
		{"0.0.0.0/0", "8.8.8.8", true},
		{"0.0.0.0/0", "::1", false},
		{"fd00::/8", "fd00:ec2::254", true},
		{"FD00::/8", "fd00:ec2::254", true},
		{"fd00::/8", "fe80::1", false},
		{"fd00::/8", "169.254.169.254", false},
		{"::ffff:169.254.0.0/112", "169.254.169.254", true},
		{"127.0.0.0/8", "localhost", false},
		{"10.0.0.0/8", "example.com", false},
		{"not/a/cidr", "example.com", false},
		{"169.254.0.0/33", "169.254.169.254", false},
	}
	for _, tt := range tests {
		if got := HostMatch(tt.pattern, tt.host); got != tt.want {
			t.Errorf("HostMatch(%q, %q) = %v, want %v", tt.pattern, tt.host, got, tt.want)
		}
	}
}

// FuzzCanonicalHost checks that CanonicalHost never panics, is idempotent
// and never returns uppercase.
func FuzzCanonicalHost(f *testing.F) {
	for _, s := range []string{
		"http://ok.com@169.254.169.254/", "0xA9FEA9FE", "[::ffff:a9fe:a9fe]:80",
		"169-254-169-254.nip.io", "HTTP://Metadata.Google.Internal./x", "１６９.２５４.１６９.２５４",
		"%252e", "http:\\\\a\\@b", "fe80::1%25eth0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CanonicalHost(s)
		if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" && a.Is4() && c != a.String() {
			t.Fatalf("CanonicalHost(%q) = %q, want %q", s, c, a)
		}
		if c == "" {
			return
		}
		if c2 := CanonicalHost(c); c2 != c {
			t.Fatalf("not idempotent: %q → %q → %q", s, c, c2)
		}
		if strings.ToLower(c) != c {
			t.Fatalf("uppercase in %q → %q", s, c)
		}
		if IsIP(c) {
			// A canonical IP is netip's canonical text, IPv4 where possible.
			a, err := netip.ParseAddr(c)
			if err != nil || a.String() != c || a.Is4In6() || a.Zone() != "" {
				t.Fatalf("CanonicalHost(%q) = %q: not canonical IP text (%v)", s, c, err)
			}
		}
		HostMatch(s, c)
		HostMatch("*."+s, c)
		HostMatch(s+"/8", c)
		LooksLikeHost(s)
	})
}

func BenchmarkCanonicalHost(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"name", "api.github.com"},
		{"url", "https://api.github.com/repos/x/y?z=1"},
		{"upper", "HTTP://Metadata.Google.Internal./x"},
		{"ipv4", "169.254.169.254"},
		{"hex", "0xA9FEA9FE"},
		{"userinfo", "http://ok.com@169.254.169.254/"},
		{"ipv6mapped", "[::ffff:169.254.169.254]:80"},
		{"nipio", "app.169-254-169-254.nip.io"},
		{"fullwidth", "１６９．２５４．１６９．２５４"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				CanonicalHost(bc.in)
			}
		})
	}
}

func BenchmarkHostMatch(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		HostMatch("*.webhook.site", "a.b.webhook.site")
		HostMatch("webhook.site", "api.github.com")
		HostMatch("169.254.0.0/16", "169.254.169.254")
	}
}
