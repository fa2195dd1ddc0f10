//go:build linux

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSandboxRunStoppedAsCodexStopsItVerifiesClean stops airlock run the
// way Codex stops what it started: SIGTERM to the process group, SIGKILL
// a moment later. The command here ignores SIGTERM, so airlock run never
// sees it exit: the session's stop is recorded, with its checkpoint, at
// the signal, and `airlock verify` says intact with no warning. Before the
// fix airlock run recorded nothing until the command exited, and SIGKILL
// came first: the session had no end. A command that dies of the signal
// lets airlock run record its end as well, racing the SIGKILL. At Codex's own 12 ms a loaded
// machine may not schedule airlock run before the SIGKILL; the log must
// then still verify clean. Given 250 ms, the stop must be recorded.
func TestSandboxRunStoppedAsCodexStopsItVerifiesClean(t *testing.T) {
	runSbxNeedKernel(t)
	e := newRunSbxEnv(t)
	const deaf = `trap '' TERM HUP; echo ready; while :; do sleep 0.05; done`
	for _, c := range []struct {
		sig       syscall.Signal
		script    string
		killAfter time.Duration
		rounds    int
		wantStop  bool
	}{
		{syscall.SIGTERM, deaf, codexKillAfter, 5, false},
		{syscall.SIGTERM, deaf, 250 * time.Millisecond, 2, true},
		{syscall.SIGHUP, deaf, 250 * time.Millisecond, 1, true},
		// a command that dies of the signal: airlock run then records its
		// end too, racing the SIGKILL
		{syscall.SIGTERM, "echo ready; exec sleep 30", codexKillAfter, 5, false},
	} {
		for round := range c.rounds {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cmd := e.command(ctx, "run", "--", "sh", "-c", c.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			pipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errb := &syncBuffer{}
			cmd.Stderr = errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			if line, err := bufio.NewReader(pipe).ReadString('\n'); err != nil || line != "ready\n" {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = cmd.Wait()
				t.Fatalf("the command did not start: %q %v\n%s", line, err, errb.String())
			}
			if err := syscall.Kill(-pid, c.sig); err != nil {
				t.Fatal(err)
			}
			time.Sleep(c.killAfter) // the client's timing, replayed
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = syscall.Kill(-pid, syscall.SIGKILL) // the command, deaf to SIGTERM
			_ = cmd.Wait()
			cancel()

			recs := e.records(t)
			last := recs[len(recs)-1]
			stopped := last["event"] == "sandbox_stop" && strings.Contains(fmt.Sprint(last["detail"]), "stopped by "+map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[c.sig])
			if c.wantStop && !stopped {
				t.Errorf("SIGKILL %v after %v, round %d: airlock run did not record its stop at the signal: last record %v\n%s", c.killAfter, c.sig, round, last, errb.String())
			}
			v := e.run(t, "verify")
			if v.code != 0 || strings.Contains(strings.ToLower(v.stdout+v.stderr), "warning") {
				t.Fatalf("SIGKILL %v after %v, round %d: airlock verify: exit %d\n%s%s", c.killAfter, c.sig, round, v.code, v.stdout, v.stderr)
			}
		}
	}
}
