package forward

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Transports.
const (
	KindRELP = "relp"
	KindTLS  = "tls"
	KindTCP  = "tcp"
	KindUDP  = "udp"
	KindOTLP = "otlp"
)

// Message formats of the syslog transports.
const (
	FormatSyslog = "syslog" // RFC 5424, MSG is the stored record line
	FormatCEF    = "cef"    // RFC 5424 header and SD, MSG is an ArcSight CEF line
)

// Target is one receiver.
type Target struct {
	Raw    string // as given, for messages
	Kind   string // one of the Kind* values
	Addr   string // host:port (syslog transports)
	URL    string // the OTLP logs endpoint (otlp)
	Format string // FormatSyslog or FormatCEF (syslog transports)

	CA         string // PEM file of the CA that signs the receiver's certificate ("" = system roots)
	Cert, Key  string // PEM files of a client certificate, for receivers that require one
	ServerName string // the name to check in the receiver's certificate ("" = the host of Addr/URL)
}

// Name is the target's file-safe name, used for its cursor.
func (t Target) Name() string {
	s := t.Kind + "-" + t.Addr
	if t.Kind == KindOTLP {
		s = t.Kind + "-" + strings.TrimPrefix(strings.TrimPrefix(t.URL, "https://"), "http://")
	}
	if t.Format == FormatCEF {
		s += "-cef"
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ParseTarget reads a target URL: relp://, tls://, tcp://, udp://
// host:port with optional ?format=cef, and for TLS ?ca=, ?cert=, ?key=,
// ?servername=; otlp+http://host:port[/path], otlp+https://…, or an
// http(s) URL, for OTLP (path /v1/logs when none is given).
func ParseTarget(s string) (Target, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Target{}, fmt.Errorf("target %q: %w", s, err)
	}
	if u.User != nil {
		// no transport uses it, and the target travels in every heartbeat
		// and the cursor: refuse it without repeating it
		return Target{}, fmt.Errorf("target %s://…@%s: credentials in the URL are not supported (they would be sent in every heartbeat); use a client certificate (cert=, key=)", u.Scheme, u.Host)
	}
	q := u.Query()
	t := Target{Raw: s, Format: FormatSyslog, CA: q.Get("ca"), Cert: q.Get("cert"), Key: q.Get("key"), ServerName: q.Get("servername")}
	for k := range q {
		switch k {
		case "ca", "cert", "key", "servername", "format":
		default:
			return Target{}, fmt.Errorf("target %q: unknown option %q (known: format, ca, cert, key, servername)", s, k)
		}
	}
	if (t.Cert == "") != (t.Key == "") {
		return Target{}, fmt.Errorf("target %q: cert and key go together", s)
	}
	switch f := q.Get("format"); f {
	case "", FormatSyslog:
	case FormatCEF:
		t.Format = FormatCEF
	default:
		return Target{}, fmt.Errorf("target %q: format %q: choose syslog or cef", s, f)
	}
	switch u.Scheme {
	case KindRELP, KindTLS, KindTCP, KindUDP:
		t.Kind = u.Scheme
		if _, port, err := net.SplitHostPort(u.Host); err != nil || port == "" || u.Path != "" {
			return Target{}, fmt.Errorf("target %q: want %s://HOST:PORT", s, u.Scheme)
		}
		t.Addr = u.Host
		if t.Kind != KindTLS && (t.CA != "" || t.Cert != "" || t.ServerName != "") {
			return Target{}, fmt.Errorf("target %q: ca, cert, key and servername are for tls:// and otlp+https://", s)
		}
	case "otlp+http", "otlp+https", "http", "https":
		t.Kind = KindOTLP
		if t.Format != FormatSyslog || q.Has("format") {
			return Target{}, fmt.Errorf("target %q: format is for the syslog transports", s)
		}
		scheme := strings.TrimPrefix(u.Scheme, "otlp+")
		if scheme == "http" && (t.CA != "" || t.Cert != "") {
			return Target{}, fmt.Errorf("target %q: ca and cert need otlp+https://", s)
		}
		if u.Host == "" {
			return Target{}, fmt.Errorf("target %q: want %s://HOST:PORT[/PATH]", s, u.Scheme)
		}
		path := u.Path
		if path == "" || path == "/" {
			path = "/v1/logs"
		}
		t.URL = scheme + "://" + u.Host + path
	default:
		return Target{}, fmt.Errorf("target %q: scheme %q: choose relp, tls, tcp, udp, otlp+http or otlp+https", s, u.Scheme)
	}
	return t, nil
}
