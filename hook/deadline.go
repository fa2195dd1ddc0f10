package hook

import (
	"bytes"
	"fmt"
	"time"
)

// AgentTimeout is the hook timeout `airlock init` writes for Claude Code
// (setup.HookTimeout; a test holds the two together). A hook still
// running when it passes is killed, and Claude Code lets the call
// through: a stuck hook is an allow.
const AgentTimeout = 30 * time.Second

// DefaultDeadline is when airlock-hook stops waiting for its own decision
// and refuses the call: 5 s before the agent's timeout, room for a loaded
// machine to schedule the answer, write it and exit, and for the agent to
// read it. Nothing a healthy call does comes near it (a call takes a few
// milliseconds); only a stuck read, a held lock or a dead disk does.
const DefaultDeadline = AgentTimeout - 5*time.Second

// DeadlineEnv shortens the deadline (a Go duration: "2s", "300ms"), for
// tests and for agents run with a shorter hook timeout. It never
// lengthens it: past DefaultDeadline the agent may already have let the
// call through.
const DeadlineEnv = "AIRLOCK_HOOK_DEADLINE"

// Deadline is the deadline in force: DeadlineEnv when it is a positive
// duration no longer than DefaultDeadline, else DefaultDeadline (with a
// warning for the caller to print when the variable was set).
func Deadline(getenv func(string) string) (time.Duration, string) {
	v := getenv(DeadlineEnv)
	if v == "" {
		return DefaultDeadline, ""
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d <= 0:
		return DefaultDeadline, fmt.Sprintf("%s=%q is not a positive duration (write e.g. 10s): using %s", DeadlineEnv, v, DefaultDeadline)
	case d > DefaultDeadline:
		return DefaultDeadline, fmt.Sprintf("%s=%s is past %s, too close to the agent's %s hook timeout: using %s", DeadlineEnv, v, DefaultDeadline, AgentTimeout, DefaultDeadline)
	}
	return d, ""
}

// RunWithin is Run with an answer guaranteed by the deadline: Run decides
// in a goroutine whose output is held back; when it has not returned by
// the deadline, the call is refused in Claude Code's format (exit 2, the
// reason on stderr; a --post hook or AIRLOCK_FAIL_OPEN=1 passes) and the
// goroutine is abandoned — the binary exits, which ends it wherever it is
// stuck. Exactly one answer is written.
func RunWithin(o Options) int {
	code, _ := runWithin(o)
	return code
}

// runWithin is RunWithin that also returns a channel closed when Run has
// returned, so a test can wait for an abandoned decision to end.
func runWithin(o Options) (int, <-chan struct{}) {
	d, warn := Deadline(o.Getenv)
	var out, errb bytes.Buffer
	inner := o
	inner.Stdout, inner.Stderr = &out, &errb
	done := make(chan int, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- Run(inner)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case code := <-done:
		if warn != "" {
			fmt.Fprintf(o.Stderr, "airlock: warning: %s\n", warn)
		}
		// Run has returned: nothing writes to the buffers any more
		_, _ = o.Stdout.Write(out.Bytes())
		_, _ = o.Stderr.Write(errb.Bytes())
		return code, finished
	case <-timer.C:
		pass := o.Post || o.Getenv("AIRLOCK_FAIL_OPEN") == "1"
		return fail(o, pass, fmt.Errorf("airlock-hook did not decide within %s: something it reads or waits for is stuck (a policy file, a lock held by another process, the disk); it refuses before Claude Code's %s hook timeout, which would let the call through. Run `airlock doctor` to find it", d, AgentTimeout)), finished
	}
}
