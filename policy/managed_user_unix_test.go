//go:build unix

package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	airlockhome "github.com/agentairlock/airlock/internal/home"
)

// The managed file is root's and read by every user: a user's hook loads
// it (the tests above run as root, the file's owner, and so cannot see a
// reader that wants the file to be the reader's own). Run as root, the
// test loads the policy again in a child process running as nobody.
func TestManagedLoadedByAUser(t *testing.T) {
	if dir := os.Getenv("AIRLOCK_TEST_MANAGED_CHILD"); dir != "" {
		airlockhome.SetManagedDirForTest(filepath.Join(dir, "managed"))
		home := filepath.Join(dir, "home")
		p, err := Load(Options{Cwd: home, Home: home, User: "nobody", Tmp: os.TempDir(), AirlockHome: filepath.Join(home, ".airlock"),
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("as uid %d: %v", os.Geteuid(), err)
		}
		if p.ManagedFile() == "" || p.Mode != Enforce {
			t.Fatalf("as uid %d: managed %q, mode %s: the managed layer is not applied", os.Geteuid(), p.ManagedFile(), p.Mode)
		}
		return
	}
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's and the reader another user: run as root (CI does)")
	}
	dir, err := os.MkdirTemp("", "airlock-managed-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md, home := filepath.Join(dir, "managed"), filepath.Join(dir, "home")
	for _, d := range []string{md, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(home, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(md, "managed.yaml"), []byte("mode: enforce\nrules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// the test binary where nobody can run it (go test's build directory is root's alone)
	bin := filepath.Join(dir, "policy.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestManagedLoadedByAUser$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "AIRLOCK_TEST_MANAGED_CHILD="+dir, "HOME="+home)
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("a user's load of the root-owned managed policy failed (%v):\n%s", err, out)
	}
}
