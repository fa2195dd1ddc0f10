//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/testrecv"
)

// TestForwardToRsyslogAndVerifyTheCopy: the hook writes records, the
// built airlock forward ships them over RELP to a real rsyslogd until
// SIGTERM, and airlock verify --export proves the receiver's copy whole —
// and finds an edit in it.
func TestForwardToRsyslogAndVerifyTheCopy(t *testing.T) {
	r := testrecv.StartRsyslog(t, nil)
	root := t.TempDir()
	home := filepath.Join(root, ".airlock")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "AIRLOCK_HOME=" + home, "LANG=C.UTF-8"}
	for i := 0; i < 5; i++ {
		run(t, env, event(t, "Read", fmt.Sprintf(`{"file_path":"/tmp/e2e-forward-%d.txt"}`, i), root), "airlock-hook")
	}
	run(t, env, event(t, "Read", `{"file_path":"~/.ssh/id_rsa"}`, root), "airlock-hook")

	cmd := exec.Command(filepath.Join(bin, "airlock"), "forward", "--target", fmt.Sprintf("relp://127.0.0.1:%d", r.RELP), "--poll", "50ms")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, _ := os.ReadFile(r.Out)
			if ok(string(b)) {
				return
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("%s: not in the receiver's copy after 20s; forwarder:\n%s", what, stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("the block", func(s string) bool { return strings.Contains(s, `effective="block"`) })
	// records written while it runs are shipped too
	run(t, env, event(t, "Read", `{"file_path":"/tmp/e2e-forward-late.txt"}`, root), "airlock-hook")
	waitFor("the late record", func(s string) bool { return strings.Contains(s, "e2e-forward-late") })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("airlock forward after SIGTERM: %v\n%s", err, stderr.String())
	}

	res := run(t, env, nil, "airlock", "verify", "--export", r.Out)
	if res.code != 0 || !strings.Contains(res.stdout, "complete and unedited") || !strings.Contains(res.stdout, "from the chain's first record") {
		t.Fatalf("verify --export of the copy: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// an edit in the copy (a block turned into an allow) is found
	b := mustRead(t, r.Out)
	edited := strings.Replace(string(b), `"effective":"block"`, `"effective":"allow"`, 1)
	if edited == string(b) {
		t.Fatalf("no block record in the copy:\n%.2000s", b)
	}
	path := filepath.Join(root, "edited.log")
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	res = run(t, env, nil, "airlock", "verify", "--export", path)
	if res.code != 1 || !strings.Contains(res.stdout, "BROKEN") || !strings.Contains(res.stdout, "edited") {
		t.Fatalf("verify --export of an edited copy: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
