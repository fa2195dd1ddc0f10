//go:build unix

package home_test

// The cases run twice: as root, and re-executed as an unprivileged user
// (uid 65534) with SysProcAttr.Credential. This machine and CI run as root,
// so neither half is ever skipped there. Each case builds its fixture as
// root (chown to "me" or to "other") and then runs one operation of the
// real code in a child process as "me": the environment discovery every
// front end starts with (home.FromOS), an append to the audit chain, the
// gate's fingerprint, the pins, the policy.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/setup"
)

const childEnv = "AIRLOCK_HOMETEST_OP"

func TestMain(m *testing.M) {
	if op := os.Getenv(childEnv); op != "" {
		var args []string
		_ = json.Unmarshal([]byte(os.Getenv(childEnv+"_ARGS")), &args)
		if err := runOp(op, args); err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Println("ok")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runOp is the child's half: one operation of the real code.
func runOp(op string, args []string) error {
	switch op {
	case "env": // what the hook, the proxy and every airlock command do first
		_, err := home.FromOS()
		return err
	case "make":
		return home.Make(args[0])
	case "groups":
		return home.CheckWith(args[0], args[1], args[2])
	}
	env, err := home.FromOS()
	if err != nil {
		return fmt.Errorf("env: %w", err)
	}
	switch op {
	case "audit-hmac":
		os.Setenv(audit.SignEnv, "hmac")
		fallthrough
	case "audit":
		l, err := audit.Open(env.AirlockHome)
		if err != nil {
			return err
		}
		defer l.Close()
		_, err = l.Append(audit.Record{Event: "hook_test", Source: "hook", Tool: "Bash", Decision: "allow"})
		return err
	case "verify":
		r, err := audit.Verify(env.AirlockHome)
		if err != nil {
			return err
		}
		if r.Status != audit.Intact {
			b, _ := json.Marshal(r.Problems)
			return fmt.Errorf("%s: %s", r.Verdict, b)
		}
		return nil
	case "fingerprint":
		l, err := audit.Open(env.AirlockHome)
		if err != nil {
			return err
		}
		defer l.Close()
		return gate.RecordConfig(l, env.AirlockHome, "s", gate.Config{Source: "hook", Lines: []string{"a changed gate"}})
	case "pins":
		return pins.Open(env.AirlockHome).Forget("server")
	case "contracts":
		_, err := contracts.Load(env.AirlockHome, policy.Vars{Home: env.Home, AirlockHome: env.AirlockHome})
		return err
	case "feed":
		_, err := scan.LoadFeed(filepath.Join(env.AirlockHome, scan.FeedFile))
		return err
	case "manifest":
		_, err := setup.ReadManifest(env.AirlockHome)
		return err
	case "policy":
		p, err := policy.LoadEnv(env, "/")
		if err != nil {
			return err
		}
		if p.Mode == policy.Observe {
			return fmt.Errorf("loaded a policy in observe mode")
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", op)
}

// viewer is who runs the operation ("me") and who the other user is.
type viewer struct {
	name       string
	me, other  int
	unprivFlag bool
}

func viewers(t *testing.T) []viewer {
	if os.Geteuid() != 0 {
		// Without root no file of another user can be made; CI and this
		// project's machines run as root, where both halves always run.
		t.Skip("these cases chown files to other users: run as root (CI does)")
	}
	return []viewer{
		{name: "root", me: 0, other: 65534},
		{name: "unprivileged", me: 65534, other: 65533, unprivFlag: true},
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// testBinary is a copy of this test binary that the unprivileged user can
// run (go test keeps its own in a directory only root can enter).
func testBinary(t *testing.T) string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "airlock-hometest-bin-")
		if err != nil {
			binErr = err
			return
		}
		if err = os.Chmod(dir, 0o755); err != nil {
			binErr = err
			return
		}
		src, err := os.Open(os.Args[0])
		if err != nil {
			binErr = err
			return
		}
		defer src.Close()
		binPath = filepath.Join(dir, "home.test")
		dst, err := os.OpenFile(binPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err != nil {
			binErr = err
			return
		}
		_, binErr = io.Copy(dst, src)
		if cerr := dst.Close(); binErr == nil {
			binErr = cerr
		}
	})
	if binErr != nil {
		t.Fatalf("copy the test binary: %v", binErr)
	}
	return binPath
}

// run runs op as v.me with AIRLOCK_HOME=airlockHome and returns its
// answer: "ok" or "error: …".
func run(t *testing.T, v viewer, airlockHome, op string, args ...string) string {
	t.Helper()
	return runEnv(t, v, airlockHome, nil, op, args...)
}

func runEnv(t *testing.T, v viewer, airlockHome string, env []string, op string, args ...string) string {
	t.Helper()
	a, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang (a FIFO) fails, never blocks the suite
	defer cancel()
	cmd := exec.CommandContext(ctx, testBinary(t))
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "USER=me",
		"AIRLOCK_HOME=" + airlockHome, childEnv + "=" + op, childEnv + "_ARGS=" + string(a)}
	cmd.Env = append(cmd.Env, env...)
	if v.me != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(v.me), Gid: uint32(v.me)}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as uid %d: %v\n%s", op, v.me, err, out)
	}
	return strings.TrimSpace(string(out))
}

// base is a fresh directory of v.me's (0700) in the system's sticky /tmp.
func base(t *testing.T, v viewer) string {
	t.Helper()
	d, err := os.MkdirTemp("", "airlock-hometest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	must(t, os.Chown(d, v.me, v.me))
	must(t, os.Chmod(d, 0o700))
	return d
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mkdir makes dir owned by uid:gid with mode (chmod after, so the umask and
// the sticky bit do not get in the way).
func mkdir(t *testing.T, dir string, uid, gid int, mode os.FileMode) string {
	t.Helper()
	must(t, os.Mkdir(dir, 0o700))
	must(t, os.Chown(dir, uid, gid))
	must(t, os.Chmod(dir, mode))
	return dir
}

func writeFile(t *testing.T, path string, uid int, mode os.FileMode, data string) string {
	t.Helper()
	must(t, os.WriteFile(path, []byte(data), 0o600))
	must(t, os.Chown(path, uid, uid))
	must(t, os.Chmod(path, mode))
	return path
}

func expect(t *testing.T, got, want string) {
	t.Helper()
	if want == "ok" {
		if got != "ok" {
			t.Fatalf("refused a home only its owner controls: %s", got)
		}
		return
	}
	if !strings.HasPrefix(got, "error:") || !strings.Contains(got, want) {
		t.Fatalf("want a refusal saying %q, got: %s", want, got)
	}
}

// TestHomeAnotherUserControlsIsRefused: a home, or a directory above it,
// that another user owns or can write steers the gate; the environment
// discovery every front end starts with refuses it and says which path,
// whose, and the fix.
func TestHomeAnotherUserControlsIsRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, b string, v viewer) string // returns AIRLOCK_HOME
		want  string
	}{
		{"own home", func(t *testing.T, b string, v viewer) string {
			return mkdir(t, b+"/h", v.me, v.me, 0o700)
		}, "ok"},
		{"home another user owns", func(t *testing.T, b string, v viewer) string {
			return mkdir(t, b+"/h", v.other, v.other, 0o700)
		}, "is owned by "},
		{"home 0777", func(t *testing.T, b string, v viewer) string {
			return mkdir(t, b+"/h", v.me, v.me, 0o777)
		}, "writable by every user (mode 0777"},
		{"home 1777", func(t *testing.T, b string, v viewer) string {
			return mkdir(t, b+"/h", v.me, v.me, 0o777|os.ModeSticky)
		}, "writable by every user (mode 1777"},
		{"home 0757 (world-writable, group not)", func(t *testing.T, b string, v viewer) string {
			return mkdir(t, b+"/h", v.me, v.me, 0o757)
		}, "chmod go-w"},
		{"parent writable by every user", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/p", v.me, v.me, 0o777)
			return mkdir(t, b+"/p/h", v.me, v.me, 0o700)
		}, "can rename the home away"},
		{"grandparent writable by every user", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/g", v.me, v.me, 0o777)
			mkdir(t, b+"/g/p", v.me, v.me, 0o700)
			return mkdir(t, b+"/g/p/h", v.me, v.me, 0o700)
		}, "/g holds the Airlock home and is writable"},
		{"parent another user owns", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/p", v.other, v.other, 0o755)
			return mkdir(t, b+"/p/h", v.me, v.me, 0o700)
		}, "holds the Airlock home and is owned by "},
		{"sticky root-owned dir above own home (like /tmp)", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/s", 0, 0, 0o777|os.ModeSticky)
			return mkdir(t, b+"/s/h", v.me, v.me, 0o700)
		}, "ok"},
		{"sticky dir another user owns", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/s", v.other, v.other, 0o777|os.ModeSticky)
			return mkdir(t, b+"/s/h", v.me, v.me, 0o700)
		}, "is owned by "},
		{"another user's home in a sticky dir", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/s", 0, 0, 0o777|os.ModeSticky)
			return mkdir(t, b+"/s/h", v.other, v.other, 0o700)
		}, "is owned by "},
		{"missing home under a writable parent", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/p", v.me, v.me, 0o777)
			return b + "/p/h"
		}, "can rename the home away"},
		{"missing home under own dir", func(t *testing.T, b string, v viewer) string {
			return b + "/new/h"
		}, "ok"},
		{"home is a FIFO", func(t *testing.T, b string, v viewer) string {
			must(t, syscall.Mkfifo(b+"/h", 0o600))
			must(t, os.Chown(b+"/h", v.me, v.me))
			return b + "/h"
		}, "is not a directory"},
		{"relative AIRLOCK_HOME", func(t *testing.T, b string, v viewer) string {
			return ".airlock"
		}, "is a relative path"},
		{"symlinked path to own home (macOS /var)", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/private", v.me, v.me, 0o700)
			mkdir(t, b+"/private/h", v.me, v.me, 0o700)
			must(t, os.Symlink("private", b+"/var"))
			must(t, os.Lchown(b+"/var", v.me, v.me))
			return b + "/var/h"
		}, "ok"},
		{"home is a link to own dir", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/real", v.me, v.me, 0o700)
			must(t, os.Symlink(b+"/real", b+"/h"))
			must(t, os.Lchown(b+"/h", v.me, v.me))
			return b + "/h"
		}, "ok"},
		{"link on the way another user owns", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/private", v.me, v.me, 0o700)
			mkdir(t, b+"/private/h", v.me, v.me, 0o700)
			must(t, os.Symlink("private", b+"/var"))
			must(t, os.Lchown(b+"/var", v.other, v.other))
			return b + "/var/h"
		}, "is a symbolic link owned by "},
		{"link in a writable dir", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/w", v.me, v.me, 0o777)
			mkdir(t, b+"/h", v.me, v.me, 0o700)
			must(t, os.Symlink(b+"/h", b+"/w/link"))
			must(t, os.Lchown(b+"/w/link", v.me, v.me))
			return b + "/w/link"
		}, "/w holds the Airlock home and is writable"},
		{"link to another user's dir", func(t *testing.T, b string, v viewer) string {
			mkdir(t, b+"/theirs", v.other, v.other, 0o755)
			must(t, os.Symlink(b+"/theirs", b+"/h"))
			must(t, os.Lchown(b+"/h", v.me, v.me))
			return b + "/h"
		}, "is owned by "},
	}
	for _, v := range viewers(t) {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					h := c.setup(t, base(t, v), v)
					expect(t, run(t, v, h, "env"), c.want)
				})
			}
		})
	}
}

// TestHomeMakeRefusesOneAnotherUserMadeFirst: in a sticky directory anyone
// can create the home's name first; Make then refuses what it finds, and
// makes a missing home 0700 of the user's.
func TestHomeMakeRefusesOneAnotherUserMadeFirst(t *testing.T) {
	for _, v := range viewers(t) {
		t.Run(v.name, func(t *testing.T) {
			b := base(t, v)
			mkdir(t, b+"/s", 0, 0, 0o777|os.ModeSticky)
			mkdir(t, b+"/s/taken", v.other, v.other, 0o700)
			expect(t, run(t, v, "/", "make", b+"/s/taken"), "is owned by ")
			expect(t, run(t, v, "/", "make", b+"/s/mine/.airlock"), "ok")
			for _, d := range []string{b + "/s/mine", b + "/s/mine/.airlock"} {
				fi, err := os.Lstat(d)
				must(t, err)
				st := fi.Sys().(*syscall.Stat_t)
				if !fi.IsDir() || int(st.Uid) != v.me || fi.Mode().Perm() != 0o700 {
					t.Fatalf("%s made as %v uid %d", d, fi.Mode(), st.Uid)
				}
			}
		})
	}
}

// TestHomeGroupWritableOnlyForPrivateGroup: a group-writable home is the
// user's alone only when the group is the user's own private group.
func TestHomeGroupWritableOnlyForPrivateGroup(t *testing.T) {
	const gid = 61000
	cases := []struct {
		name, passwd, group, want string
	}{
		{"private group", "me:x:%[1]d:%[2]d::/:/bin/sh\n", "me:x:%[2]d:\n", "ok"},
		{"private group listing only me", "me:x:%[1]d:%[2]d::/:/bin/sh\n", "me:x:%[2]d:me\n", "ok"},
		{"shared group", "me:x:%[1]d:%[2]d::/:/bin/sh\n", "me:x:%[2]d:me,bob\n", "writable by group"},
		{"group named otherwise", "me:x:%[1]d:%[2]d::/:/bin/sh\n", "staff:x:%[2]d:\n", "writable by group"},
		{"another account's primary group", "me:x:%[1]d:%[2]d::/:/bin/sh\nbob:x:%[3]d:%[2]d::/:/bin/sh\n", "me:x:%[2]d:\n", "writable by group"},
		{"not my primary group", "me:x:%[1]d:%[3]d::/:/bin/sh\n", "me:x:%[2]d:\n", "writable by group"},
	}
	for _, v := range viewers(t) {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					b := base(t, v)
					db := mkdir(t, b+"/db", v.me, v.me, 0o755)
					pw := writeFile(t, db+"/passwd", v.me, 0o644, fmt.Sprintf(c.passwd, v.me, gid, v.other))
					gr := writeFile(t, db+"/group", v.me, 0o644, fmt.Sprintf(c.group, v.me, gid, v.other))
					h := mkdir(t, b+"/h", v.me, gid, 0o770)
					expect(t, run(t, v, "/", "groups", h, pw, gr), c.want)
					// a group-writable parent follows the same rule
					p := mkdir(t, b+"/p", v.me, gid, 0o770)
					mkdir(t, p+"/h", v.me, v.me, 0o700)
					expect(t, run(t, v, "/", "groups", p+"/h", pw, gr), c.want)
				})
			}
		})
	}
}

// TestHomeStateFilesAreNeverFollowed: a link, a FIFO, a file another user
// owns or can write, or a second hard link in place of one of Airlock's
// own files is refused, and the file it points at is left as it was
// (before: the hook appended JSON to /etc/passwd and chmodded it 0600).
func TestHomeStateFilesAreNeverFollowed(t *testing.T) {
	type plant func(t *testing.T, h, target string, v viewer)
	link := func(name string) plant {
		return func(t *testing.T, h, target string, v viewer) {
			must(t, os.Symlink(target, filepath.Join(h, name)))
			must(t, os.Lchown(filepath.Join(h, name), v.me, v.me))
		}
	}
	cases := []struct {
		name, op string
		plant    plant
		want     string
	}{
		{"audit.jsonl link", "audit", link("audit.jsonl"), "is a symbolic link"},
		{"audit.lock link", "audit", link("audit.lock"), "is a symbolic link"},
		{"audit.head link", "audit", link("audit.head"), "is a symbolic link"},
		{"audit ledger link", "verify", link(audit.LedgerFile), "is a symbolic link"},
		{"audit.key link", "audit-hmac", link("audit.key"), "is a symbolic link"},
		{"fingerprint link", "fingerprint", link("gate.hook.fingerprint"), "is a symbolic link"},
		{"gate.lock link", "fingerprint", link("gate.lock"), "is a symbolic link"},
		{"pins.json link", "pins", link("pins.json"), "is a symbolic link"},
		{"pins.lock link", "pins", link("pins.lock"), "is a symbolic link"},
		{"policy.yaml link", "policy", link("policy.yaml"), "is a symbolic link"},
		{"contracts.yaml link", "contracts", link("contracts.yaml"), "is a symbolic link"},
		{"feed.json link", "feed", link("feed.json"), "is a symbolic link"},
		{"setup/manifest.json link", "manifest", func(t *testing.T, h, target string, v viewer) {
			mkdir(t, h+"/setup", v.me, v.me, 0o700)
			link("setup/manifest.json")(t, h, target, v)
		}, "is a symbolic link"},
		{"setup dir a link", "manifest", func(t *testing.T, h, target string, v viewer) {
			d := mkdir(t, filepath.Dir(target)+"/elsewhere", v.me, v.me, 0o700)
			writeFile(t, d+"/manifest.json", v.me, 0o600, `{"version":1}`)
			must(t, os.Symlink(d, h+"/setup"))
			must(t, os.Lchown(h+"/setup", v.me, v.me))
		}, "is a symbolic link where Airlock keeps a directory of its own"},
		{"audit.jsonl FIFO", "audit", func(t *testing.T, h, _ string, v viewer) {
			must(t, syscall.Mkfifo(h+"/audit.jsonl", 0o600))
			must(t, os.Chown(h+"/audit.jsonl", v.me, v.me))
		}, "not a regular file"},
		{"audit.jsonl another user's", "audit", func(t *testing.T, h, _ string, v viewer) {
			writeFile(t, h+"/audit.jsonl", v.other, 0o666, "")
		}, "is owned by "},
		{"audit.jsonl hard link", "audit", func(t *testing.T, h, target string, v viewer) {
			must(t, os.Link(target, h+"/audit.jsonl"))
		}, "hard links"},
		{"policy.yaml another user's (mode: observe)", "policy", func(t *testing.T, h, _ string, v viewer) {
			writeFile(t, h+"/policy.yaml", v.other, 0o644, "version: 1\nmode: observe\nrules: []\n")
		}, "is owned by "},
		{"policy.yaml writable by every user", "policy", func(t *testing.T, h, _ string, v viewer) {
			writeFile(t, h+"/policy.yaml", v.me, 0o666, "version: 1\nmode: observe\nrules: []\n")
		}, "writable by every user"},
		{"pins.json another user's", "pins", func(t *testing.T, h, _ string, v viewer) {
			writeFile(t, h+"/pins.json", v.other, 0o644, "{}")
		}, "is owned by "},
	}
	for _, v := range viewers(t) {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					b := base(t, v)
					h := mkdir(t, b+"/h", v.me, v.me, 0o700)
					// the file a link points at: /etc/passwd for root, ~/.bashrc for a user
					target := writeFile(t, b+"/target", v.me, 0o644, "root:x:0:0::/root:/bin/sh\n")
					c.plant(t, h, target, v)
					got := run(t, v, h, c.op)
					expect(t, got, c.want)
					fi, err := os.Stat(target)
					must(t, err)
					data, _ := os.ReadFile(target)
					if fi.Mode().Perm() != 0o644 || string(data) != "root:x:0:0::/root:/bin/sh\n" {
						t.Fatalf("the file behind the link was changed: mode %v, %q", fi.Mode(), data)
					}
				})
			}
		})
	}
}

// TestExplicitPolicyOthersControlIsRefused: the policy AIRLOCK_POLICY
// names may be a link (the user chose it) and may be root's (a managed
// policy), but one another user owns or can write steers the gate.
func TestExplicitPolicyOthersControlIsRefused(t *testing.T) {
	const observe = "version: 1\nmode: observe\nrules: []\n"
	cases := []struct {
		name  string
		owner func(v viewer) int
		mode  os.FileMode
		want  string
	}{
		{"another user's", func(v viewer) int { return v.other }, 0o644, "is owned by "},
		{"mine, writable by every user", func(v viewer) int { return v.me }, 0o666, "writable by every user"},
		{"root's, writable by every user", func(v viewer) int { return 0 }, 0o666, "writable by every user"},
		{"root's (managed)", func(v viewer) int { return 0 }, 0o644, "loaded a policy in observe mode"},
		{"mine", func(v viewer) int { return v.me }, 0o600, "loaded a policy in observe mode"},
	}
	for _, v := range viewers(t) {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					b := base(t, v)
					h := mkdir(t, b+"/h", v.me, v.me, 0o700)
					pol := writeFile(t, b+"/policy.yaml", c.owner(v), c.mode, observe)
					link := b + "/link.yaml"
					must(t, os.Symlink(pol, link))
					must(t, os.Lchown(link, v.me, v.me))
					expect(t, runEnv(t, v, h, []string{"AIRLOCK_POLICY=" + link}, "policy"), c.want)
				})
			}
		})
	}
}
