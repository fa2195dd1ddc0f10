package gate

import (
	"encoding/json"
	"testing"

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
