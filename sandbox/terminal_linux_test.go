package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A terminal on stdin that this process is not in the foreground of (no
// relay: its first read would stop airlock run) is shared with the
// command, and the gap list must say what that leaves open: a process the
// command leaves behind reads what is typed after airlock run exits.
func TestSharedTerminalIsAGap(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	defer unix.Close(mfd)
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(mfd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	// O_NOCTTY: not this process's terminal, so not in its foreground
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	o := f.options(t)
	o.Stdin = slave
	plan, err := Prepare(o)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer plan.Close()
	r := plan.Report()
	if r.Terminal != terminalShared {
		t.Fatalf("terminal line %q, want %q", r.Terminal, terminalShared)
	}
	if !slices.Contains(r.Gaps, terminalSharedGap) {
		t.Errorf("the gap list does not name the shared terminal: %q", r.Gaps)
	}

	// stdin not a terminal: no terminal line, and no such gap
	o.Stdin = nil
	plan2, err := Prepare(o)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer plan2.Close()
	if slices.Contains(plan2.Report().Gaps, terminalSharedGap) {
		t.Errorf("the shared-terminal gap without a terminal: %q", plan2.Report().Gaps)
	}
}

// A denied entry inside a writable tree cannot be moved away (and a file
// of the command's own put in its place) in the namespace launch: it is a
// mount point there (EBUSY). Without the namespace Landlock lets the
// directory's remove and make rights move it, so the gap list must say so.
func TestDeniedEntryRenamedOrGap(t *testing.T) {
	requireLandlock(t, 2)
	f := newFixture(t)
	for _, ns := range []bool{true, false} {
		o := f.options(t, "rename", f.ws+"/.env", f.ws+"/env-moved")
		o.NoMountNS = !ns
		o.ReExec = true
		plan, err := Prepare(o)
		if err != nil {
			t.Fatal(err)
		}
		gaps := plan.Report().Gaps
		mounts := plan.Report().ReadOnlyMounts > 0
		plan.Close()
		out, _ := f.runOnce(t, o)
		if out == "ok" {
			_ = os.Rename(f.ws+"/env-moved", f.ws+"/.env")
		}
		named := false
		for _, g := range gaps {
			if strings.Contains(g, "renamed or removed") {
				named = true
			}
		}
		switch {
		case mounts && out != "EBUSY":
			t.Errorf("namespace launch: renaming the denied .env got %q, want EBUSY", out)
		case !mounts && out == "ok" && !named:
			t.Errorf("launch without the namespace: the denied .env was renamed away and the gap list does not say so: %q", gaps)
		}
	}
}
