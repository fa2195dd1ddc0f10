package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFeedHostsForbid: the host list airlock update compiles from the feed
// becomes a forbid on the next load, for the names and their subdomains,
// in any spelling; no file, no forbid; a bad line is a load error.
func TestFeedHostsForbid(t *testing.T) {
	vars, ws := testVars(t)
	vars.AirlockHome = filepath.Join(filepath.Dir(vars.Home), "airlock")
	if err := os.MkdirAll(vars.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	load := func() *Policy {
		t.Helper()
		return mustParse(t, "mode: enforce\ndefault: allow\nrules: []\n", vars)
	}
	fetch := func(p *Policy, u string) string {
		f := Classify("WebFetch", []byte(`{"url":"`+u+`","prompt":"x"}`), CallEnv{Cwd: ws, Home: vars.Home})
		if d, ok := p.CheckForbids(f); ok {
			return d.Rule
		}
		return ""
	}
	if got := fetch(load(), "https://newsink.example/x"); got != "" {
		t.Fatalf("no feed hosts file: stopped by %s", got)
	}
	if err := writeFeedHosts(vars.AirlockHome, "feed version 3", []string{"NewSink.example.", "drop.example", "not a host", ""}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(vars.AirlockHome, FeedHostsFile))
	if err != nil || !strings.Contains(string(data), "\ndrop.example\nnewsink.example\n") {
		t.Fatalf("feed hosts file: %q, %v", data, err)
	}
	p := load()
	for _, u := range []string{"https://newsink.example/x", "https://a.b.newsink.example/", "http://DROP.example./"} {
		if got := fetch(p, u); got != feedHostsForbid {
			t.Errorf("%s: got %q, want %s", u, got, feedHostsForbid)
		}
	}
	for _, u := range []string{"https://example.com/", "https://newsink.example.com/"} {
		if got := fetch(p, u); got != "" {
			t.Errorf("%s: stopped by %s", u, got)
		}
	}
	// an empty list removes the file
	if err := writeFeedHosts(vars.AirlockHome, "feed version 4", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(vars.AirlockHome, FeedHostsFile)); !os.IsNotExist(err) {
		t.Fatalf("empty host list left the file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(vars.AirlockHome, FeedHostsFile), []byte("ok.example\nbad host\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parse([]byte("mode: enforce\ndefault: allow\nrules: []\n"), "test.yaml", "policy", vars); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("a bad line: %v", err)
	}
}

// TestBinariesForbid: the binaries init and doctor record are protected
// against writes wherever they are installed; reads and runs stay allowed.
func TestBinariesForbid(t *testing.T) {
	vars, ws := testVars(t)
	vars.AirlockHome = filepath.Join(filepath.Dir(vars.Home), "airlock")
	bin := filepath.Join(filepath.Dir(vars.Home), "opt", "gatehook")
	if err := os.MkdirAll(vars.AirlockHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vars.AirlockHome, BinariesFile), BinariesRecord(bin, "", bin), 0o600); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, "mode: enforce\ndefault: allow\nrules: []\n", vars)
	check := func(cmd, want string) {
		t.Helper()
		f := Classify("Bash", []byte(bash(cmd)), CallEnv{Cwd: ws, Home: vars.Home})
		got := ""
		if d, ok := p.CheckForbids(f); ok {
			got = d.Rule
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", cmd, got, want)
		}
	}
	check("cp /bin/true "+bin, binariesForbid)
	check("chmod -x "+bin, binariesForbid)
	check(bin+" --version", "")
	check("sha256sum "+bin, "")
}

// writeFeedHosts does what airlock update does with the record.
func writeFeedHosts(home, header string, hosts []string) error {
	data, err := FeedHostsRecord(header, hosts)
	if err != nil {
		return err
	}
	path := filepath.Join(home, FeedHostsFile)
	if data == nil {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, data, 0o600)
}
