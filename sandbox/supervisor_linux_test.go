package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command must never reach its supervisor: signal scoping (Landlock
// ABI 6) keeps it inside its domain, which holds only if no thread of
// this process carries that domain. The launch used to land on the main
// thread now and then (2–4 of 20 starts), which the runtime parks instead
// of ending; the command could then SIGKILL this process. Hundreds of
// starts, each of which must be refused.
func TestSandboxCommandCannotKillItsSupervisor(t *testing.T) {
	requireLandlock(t, 6)
	f := newFixture(t)
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	comm := filepath.Base(self)
	if len(comm) > 15 {
		comm = comm[:15]
	}
	for _, reexec := range []bool{false, true} {
		o := f.options(t, "kill-supervisor", comm)
		o.ReExec = reexec
		o.NoMountNS = !reexec // the namespace launches through the launcher child
		plan, err := Prepare(o)
		if err != nil {
			t.Fatal(err)
		}
		starts := 300
		if reexec {
			starts = 50 // the launcher child restricts a process of its own: no main thread to land on
		}
		for i := range starts {
			var out, errb bytes.Buffer
			plan.opt.Stdout, plan.opt.Stderr, plan.opt.Stdin = &out, &errb, strings.NewReader("")
			status, err := plan.Run()
			if err != nil || status != 0 {
				t.Fatalf("start %d (reexec %t): status %d, err %v, stderr %q", i, reexec, status, err, errb.String())
			}
			if got := strings.TrimSpace(out.String()); got != "EPERM 0" {
				t.Fatalf("start %d (reexec %t): the command's kill(getppid(), SIGKILL) and signal 0 to every %s: %q, want \"EPERM 0\"", i, reexec, comm, got)
			}
		}
		plan.Close()
		fmt.Fprintf(os.Stderr, "%d starts (reexec %t): none reached the supervisor\n", starts, reexec)
	}
}
