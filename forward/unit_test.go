package forward

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with: go test ./forward -run %s -update)", err, t.Name())
	}
	if !bytes.Equal([]byte(got), want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestUnitGoldens(t *testing.T) {
	args := []string{"--target", "relp://siem.example:2514", "--target", "tls://siem.example:6514?ca=/etc/airlock/ca.pem&format=cef"}
	for _, kind := range []string{UnitSystemd, UnitLaunchd} {
		got, err := Unit(kind, "/usr/local/bin/airlock", args, "/home/dev/my airlock")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "unit."+kind, got)
	}
	if _, err := Unit("upstart", "/bin/airlock", nil, ""); err == nil {
		t.Fatal("an unknown unit kind was accepted")
	}
}

func TestSystemdQuoteKeepsWordsAndExpandsNothing(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         "plain",
		"a b":           `"a b"`,
		`q"uote`:        `"q\"uote"`,
		"100%":          "100%%",
		"$HOME":         "$$HOME",
		`back\slash`:    `"back\\slash"`,
		"?a=1&format=x": "?a=1&format=x",
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseTarget(t *testing.T) {
	ok := map[string]Target{
		"relp://127.0.0.1:2514":               {Kind: KindRELP, Addr: "127.0.0.1:2514", Format: FormatSyslog},
		"tls://h:6514?ca=/c.pem&format=cef":   {Kind: KindTLS, Addr: "h:6514", Format: FormatCEF, CA: "/c.pem"},
		"udp://[::1]:514":                     {Kind: KindUDP, Addr: "[::1]:514", Format: FormatSyslog},
		"otlp+http://localhost:4318":          {Kind: KindOTLP, URL: "http://localhost:4318/v1/logs", Format: FormatSyslog},
		"otlp+https://c:4318/custom/logs":     {Kind: KindOTLP, URL: "https://c:4318/custom/logs", Format: FormatSyslog},
		"https://c:4318?ca=/ca.pem":           {Kind: KindOTLP, URL: "https://c:4318/v1/logs", Format: FormatSyslog, CA: "/ca.pem"},
		"tcp://h:514?servername=siem.example": {Kind: KindTCP},
	}
	for in, want := range ok {
		got, err := ParseTarget(in)
		if in == "tcp://h:514?servername=siem.example" {
			if err == nil {
				t.Errorf("%s: TLS options on plain TCP were accepted", in)
			}
			continue
		}
		want.Raw = in
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"relp://host", "ftp://h:1", "relp://h:1?format=xml", "relp://h:1?colour=red", "tls://h:1?cert=/c", "otlp+http://h:1?ca=/ca.pem", "otlp+http://h:1?format=cef", "relp://h:1/path"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q) accepted", bad)
		}
	}
	a, _ := ParseTarget("relp://10.0.0.1:2514")
	b, _ := ParseTarget("relp://10.0.0.1:2514?format=cef")
	if a.Name() == b.Name() || strings.ContainsAny(a.Name(), "/:") {
		t.Fatalf("cursor names %q and %q: want distinct, file-safe", a.Name(), b.Name())
	}
}
