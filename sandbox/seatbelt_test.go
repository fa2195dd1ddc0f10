package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rewrite it with: go test ./sandbox -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Fatalf("%s differs from what the generator makes now; if the change is meant, rewrite it with: go test ./sandbox -run %s -update\n--- got\n%s", path, t.Name(), firstDiff(string(want), got))
	}
}

// firstDiff shows the lines around the first difference.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			lo, hi := max(0, i-2), min(len(g), i+3)
			out := strings.Join(g[lo:hi], "\n")
			if i < len(w) {
				out += "\n--- want line " + w[i]
			}
			return out
		}
	}
	return ""
}

// seatbeltCase is a macOS user's launch: home /Users/dev, a repository in
// it, the per-user temp directory.
func seatbeltCase(t *testing.T, profile string, o Options) seatbeltInput {
	t.Helper()
	vars := policy.Vars{Workspace: "/Users/dev/src/app", Home: "/Users/dev", Tmp: "/private/var/folders/xy/abc123/T", User: "dev", AirlockHome: "/Users/dev/.airlock"}
	p, err := policy.LoadProfile(profile, vars)
	if err != nil {
		t.Fatal(err)
	}
	o.Policy = p
	o.Dir = vars.Workspace
	return seatbeltInput{
		Roots:        resolveRoots(allowedRoots(o), macResolve),
		System:       seatbeltSystem,
		Devices:      seatbeltDevices,
		Deny:         p.KernelPaths().Globs(),
		Aliases:      seatbeltAliases,
		EgressPort:   o.EgressPort,
		AllowNetwork: o.AllowNetwork,
	}
}

// macResolve resolves a path as macOS would: its root symlinks only.
func macResolve(p string) (string, error) {
	for from, to := range seatbeltAliases {
		if rest, ok := strings.CutPrefix(p, from); ok && (rest == "" || rest[0] == '/') {
			return to + rest, nil
		}
	}
	return p, nil
}

func TestSeatbeltProfileGolden(t *testing.T) {
	// a whole profile is ~110 KB: two are kept, the other cases' banners
	// (which carry the network line, the rule count and the digest)
	for _, tc := range []struct {
		name, profile string
		o             Options
		profileFile   bool
	}{
		{"run-default-egress", "default", Options{EgressPort: 41237}, true},
		{"run-paranoid-no-egress", "paranoid", Options{}, false},
		{"run-yolo-network", "yolo", Options{AllowNetwork: true}, false},
		{"mcp-server-roots", "default", Options{EgressPort: 41237, Roots: []Root{{Path: "/Users/dev/src/app/data", Write: true}, {Path: "/Users/dev/docs"}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := seatbeltCase(t, tc.profile, tc.o)
			prof, err := seatbeltProfile(in)
			if err != nil {
				t.Fatal(err)
			}
			if tc.profileFile {
				golden(t, "seatbelt/"+tc.name+".sb", prof)
			}
			golden(t, "seatbelt/"+tc.name+".banner", seatbeltReport(in, prof).Banner())
		})
	}
}

// The profile's shape, whatever the golden files say: default deny, the
// forbids after every allow (SBPL's last match decides), the Airlock home
// (and so askd.key) denied, TCP only to the proxy's loopback port.
func TestSeatbeltProfileOrderAndDenies(t *testing.T) {
	in := seatbeltCase(t, "default", Options{EgressPort: 41237})
	prof, err := seatbeltProfile(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(prof, "(version 1)\n") || !strings.Contains(prof, "\n(deny default)\n") {
		t.Fatalf("the profile does not start by denying everything:\n%.300s", prof)
	}
	lastAllow := strings.LastIndex(prof, "\n(allow ")
	firstDeny := strings.Index(prof, "\n(deny file-")
	if firstDeny < 0 || lastAllow > firstDeny {
		t.Fatalf("an allow (at %d) comes after the first of the policy's denies (at %d): in SBPL it would win", lastAllow, firstDeny)
	}
	if n := strings.Count(prof, "(remote "); n != 1 || !strings.Contains(prof, `(allow network-outbound (remote tcp "localhost:41237"))`) {
		t.Fatalf("network rules (%d): want TCP to localhost:41237 alone", n)
	}
	if strings.Contains(prof, "/dev/tty\"") {
		t.Fatal("/dev/tty is granted: it is the approval channel")
	}
	// every rule of KernelPaths is a deny
	for _, g := range in.Deny {
		if !strings.Contains(prof, "\n;; "+g.Rule+"\n(deny ") {
			t.Errorf("rule %s has no deny in the profile", g.Rule)
		}
	}
	for _, path := range []string{"/Users/dev/.airlock/askd.key", "/Users/dev/.ssh/id_ed25519", "/Users/dev/.aws/credentials", "/Users/dev/Library/Messages/chat.db"} {
		if !deniedByProfile(t, prof, path, "file-read*") {
			t.Errorf("the profile does not deny reading %s", path)
		}
	}
	if deniedByProfile(t, prof, "/Users/dev/src/app/main.go", "file-read*") {
		t.Error("the profile denies reading a file of the workspace")
	}
}

// deniedByProfile says whether a deny of op in prof has a regex matching
// path (Go's regexp reads the SBPL patterns the generator writes: anchors,
// classes, groups and stars only). Exceptions are ignored: the paths
// asked about have none.
func deniedByProfile(t *testing.T, prof, path, op string) bool {
	t.Helper()
	re := regexp.MustCompile(`\(regex "((?:[^"\\]|\\.)*)"\)`)
	for _, block := range strings.Split(prof, "\n(deny ")[1:] {
		if !strings.HasPrefix(block, op) && !strings.Contains(strings.SplitN(block, "\n", 2)[0], op) {
			continue
		}
		// (require-all (require-any POSITIVE…) (require-not EXCEPT)…):
		// denied when a positive filter matches and no exception does
		pos, neg := block, ""
		if i := strings.Index(block, "(require-not "); i >= 0 {
			pos, neg = block[:i], block[i:]
		}
		matches := func(part string) bool {
			for _, m := range re.FindAllStringSubmatch(part, -1) {
				pat := strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(m[1])
				if regexp.MustCompile(pat).MatchString(path) {
					return true
				}
			}
			return false
		}
		if matches(pos) && !matches(neg) {
			return true
		}
	}
	return false
}

// globRegex means what policy.PathGlob means, with ASCII case ignored as
// a case-insensitive file system does.
func TestSeatbeltGlobRegexMatchesPathGlob(t *testing.T) {
	globs := []string{
		"**/.ssh", "**/.ssh/**", "**/id_rsa.*", "/users/dev/.airlock/**", "**/.zsh/**/*.zsh", "/etc/cron.*/**",
		"**/library/keychains/**", "**/.config/code - insiders/user/tasks.json", "/tmp/ssh-*/agent.*", "**/a?c",
		"**/x+y(z)[1]$^|.", "**", "/", "**/*.pem", "/var/spool/cron/**",
	}
	paths := []string{
		"/", "/Users/dev/.ssh", "/Users/dev/.SSH/id_rsa", "/Users/dev/.sshx", "/Users/dev/src/.ssh/config", "/id_rsa.pub",
		"/Users/dev/.airlock", "/Users/dev/.airlock/askd.key", "/Users/dev/.airlockx", "/Users/dev/.zsh/a/b/c.zsh",
		"/Users/dev/.zsh/c.zsh", "/etc/cron.daily/x", "/etc/cronxdaily/x", "/Users/dev/Library/Keychains/login.keychain-db",
		"/Users/dev/.config/Code - Insiders/User/tasks.json", "/tmp/ssh-abc/agent.1", "/tmp/ssh-abc/d/agent.1",
		"/w/abc", "/w/a/c", "/w/abbc", "/w/x+y(z)[1]$^|.", "/w/xxy(z)[1]$^|.", "/k/server.PEM", "/var/spool/cron",
	}
	for _, g := range globs {
		re, err := globRegex(g)
		if err != nil {
			t.Fatal(err)
		}
		rx, err := regexp.Compile(re)
		if err != nil {
			t.Fatalf("%s → %s: %v", g, re, err)
		}
		for _, p := range paths {
			want := policy.PathGlob(g, policy.FoldPath(p))
			if got := rx.MatchString(p); got != want {
				t.Errorf("glob %q, path %q: the profile's regex %s says %v, the policy says %v", g, p, re, got, want)
			}
		}
	}
}

// A deny on /tmp is also written for /private/tmp, the path the kernel
// sees on macOS.
func TestSeatbeltAliases(t *testing.T) {
	got, err := globFilters([]string{"/tmp/ssh-*", "/etc/profile", "/etcetera/x"}, seatbeltAliases)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{`/[pP][rR][iI][vV][aA][tT][eE]/[tT][mM][pP]/[sS][sS][hH]-[^/]*$`, `^/[pP][rR][iI][vV][aA][tT][eE]/[eE][tT][cC]/`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no alias regex %s in:\n%s", want, joined)
		}
	}
	if strings.Count(joined, "[eE][tT][cC][eE][tT][eE][rR][aA]") != 1 {
		t.Errorf("/etcetera was taken for /etc:\n%s", joined)
	}
}

// A path that would break a profile line is refused, never written.
func TestSeatbeltRefusesControlCharacters(t *testing.T) {
	if _, err := seatbeltProfile(seatbeltInput{Roots: []Root{{Path: "/Users/dev/evil\n(allow default)", Write: true}}}); err == nil {
		t.Fatal("a root with a newline made a profile")
	}
	if _, err := globRegex("**/a\nb"); err == nil {
		t.Fatal("a glob with a newline made a regex")
	}
	s := sbplString(`/w/a"b\c`)
	if s != `"/w/a\"b\\c"` {
		t.Fatalf("sbplString: %s", s)
	}
}

// With the network asked for (no egress proxy), IP is open and UNIX
// sockets outside the sandbox stay refused (askd.sock, an SSH agent,
// docker.sock): only the resolver's.
func TestSeatbeltOpenNetworkKeepsUnixSocketsOut(t *testing.T) {
	prof, err := seatbeltProfile(seatbeltCase(t, "yolo", Options{AllowNetwork: true}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(prof, "(allow network*") || strings.Contains(prof, "(allow default") {
		t.Fatal("the open network allows every network operation, UNIX sockets included")
	}
	var unix []string
	for _, l := range strings.Split(prof, "\n") {
		if strings.HasPrefix(l, "(allow network") && !strings.Contains(l, "(remote ip)") && !strings.Contains(l, "(local ip)") {
			unix = append(unix, l)
		}
	}
	if len(unix) != 1 || !strings.Contains(unix[0], `"/private/var/run/mDNSResponder"`) {
		t.Fatalf("network allows beyond IP: %q", unix)
	}
}
