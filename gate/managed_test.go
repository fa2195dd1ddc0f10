package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// The agent cannot hide the managed directory: a mount over it (or an
// unmount of what holds it) takes the managed policy and its marker out of
// sight as surely as a delete does, and the machine would look unmanaged.
func TestManagedDirectoryNotMountedOver(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	for _, cmd := range []string{
		"sudo mount -t tmpfs none /etc/airlock",
		"sudo mount --bind /tmp/empty /etc/airlock",
		"sudo mount -o bind /tmp/empty /etc/airlock/",
		"sudo umount /etc/airlock",
		"sudo mount -t tmpfs none /etc",
		`sudo mount -t tmpfs none "/Library/Application Support/Airlock"`,
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		d := g.Decide(Call{Source: "cli", Tool: "Bash", Input: in, Cwd: fx.WS, Attended: true}).Decision
		if d.Action != policy.Block {
			t.Errorf("%s: %s by %s, want block", cmd, d.Action, d.Rule)
		}
	}
	for _, cmd := range []string{"mount", "sudo mount /dev/sdb1 /mnt/usb", "findmnt /etc/airlock"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if d := g.Decide(Call{Source: "cli", Tool: "Bash", Input: in, Cwd: fx.WS, Attended: true}).Decision; d.Source == policy.FromForbid {
			t.Errorf("%s: stopped by %s", cmd, d.Rule)
		}
	}
}

// On a managed machine a call refused because it could not be recorded is
// refused with AIRLOCK_FAIL_OPEN=1 too, and its reason does not send the
// agent after that variable.
func TestUnrecordedOnAManagedMachine(t *testing.T) {
	g, fx := fixtureGate(t, "default") // loaded unmanaged; the marker appears after
	dir := t.TempDir()
	old := home.SetManagedDirForTest(dir)
	t.Cleanup(func() { home.SetManagedDirForTest(old) })
	if err := os.WriteFile(filepath.Join(dir, "managed.required"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g.Log = failingLog{err: fmt.Errorf("audit: append: %w", syscall.ENOSPC)}
	g.Env.Getenv = func(k string) string {
		if k == FailOpenEnv {
			return "1"
		}
		return ""
	}
	res := g.Decide(Call{Source: "hook", Tool: "Bash", Input: []byte(`{"command":"ls"}`), Cwd: fx.WS, Attended: true})
	if res.Effective != policy.Block || res.Decision.Rule != ruleUnrecorded {
		t.Fatalf("an unrecorded call on a managed machine was %s (%+v)", res.Effective, res.Decision)
	}
	if strings.Contains(res.Decision.Reason, "set "+FailOpenEnv) {
		t.Errorf("the refusal names a variable refused here: %s", res.Decision.Reason)
	}
}
