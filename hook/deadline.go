package hook

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
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

// deadlineEnv shortens the deadline (a Go duration: "2s", "300ms"), for
// tests and for agents run with a shorter hook timeout. It never
// lengthens it: past DefaultDeadline the agent may already have let the
// call through.
const deadlineEnv = "AIRLOCK_HOOK_DEADLINE"

// deadline is Claude Code's deadline in force (deadlineFor).
func deadline(getenv func(string) string) (time.Duration, string) {
	return deadlineFor(Claude, getenv)
}

// deadlineFor is the deadline in force for an agent: DeadlineEnv when it
// is a positive duration no longer than the agent's deadline (5 s before
// its hook timeout, TimeoutOf), else that deadline (with a warning for the
// caller to print when the variable was set).
func deadlineFor(a Agent, getenv func(string) string) (time.Duration, string) {
	max := TimeoutOf(a).Deadline()
	v := getenv(deadlineEnv)
	if v == "" {
		return max, ""
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d <= 0:
		return max, fmt.Sprintf("%s=%q is not a positive duration (write e.g. 10s): using %s", deadlineEnv, v, max)
	case d > max:
		return max, fmt.Sprintf("%s=%s is past %s, too close to the agent's %s hook timeout: using %s", deadlineEnv, v, max, max+deadlineMargin, max)
	}
	return d, ""
}

// RunWithin is Run with an answer guaranteed by the deadline: Run decides
// in a goroutine whose output is held back; when it has not returned by
// the deadline, the call is refused in the agent's format (Claude Code's:
// exit 2, the reason on stderr; a --post hook or AIRLOCK_FAIL_OPEN=1
// passes) and the
// goroutine is abandoned — the binary exits, which ends it wherever it is
// stuck. Exactly one answer is written. The refusal is recorded when the
// log can take a record within recordWait (a hook_error record, rule
// hook-deadline); when the log is what is stuck, it is not.
func RunWithin(o Options) int {
	code, _ := runWithin(o)
	return code
}

// runWithin is RunWithin that also returns a channel closed when Run (and
// a timeout's record) has returned, so a test can wait for an abandoned
// decision to end.
func runWithin(o Options) (int, <-chan struct{}) {
	d, warn := deadlineFor(o.Agent, o.Getenv)
	var out, errb bytes.Buffer
	inner := o
	inner.askBy = time.Now().Add(d - min(askMargin, d/4))
	inner.Stdout, inner.Stderr = &out, &errb
	done := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		growStack(0, 1)
		done <- Run(inner)
	}()
	finished := make(chan struct{})
	defer func() {
		go func() {
			wg.Wait()
			close(finished)
		}()
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
		failOpen := home.FailOpen(o.Getenv) // never on a managed machine
		err := fmt.Errorf("airlock-hook did not decide within %s: something it reads or waits for is stuck (a policy file, a lock held by another process, the disk); it refuses before the agent's %s hook timeout, which could let the call through. Run `airlock doctor` to find it", d, d+deadlineMargin)
		if !o.Post {
			recordTimeout(o, failOpen, err, &wg)
		}
		return fail(o, failOpen || o.Post, err), finished
	}
}

// growStack grows the calling goroutine's stack in one step, while it is
// shallow, to what a decision needs (the deepest seen: a Read resolving
// its path, ~9 KB; 16 KB after this). A goroutine starts with 2 KB and
// grows by doubling, each time copying the stack and adjusting every
// frame on it: three such copies under a deep decision were ~5% of a
// hook process (issue 16). The array is what asks for the room; i and j
// keep the compiler from dropping it.
//
//go:noinline
func growStack(i, j int) byte {
	var b [12 << 10]byte
	b[i] = 1
	return b[j]
}

// recordWait bounds how long a refusal past the deadline waits for its
// record: the log may be what is stuck (its lock held, the disk gone), and
// the answer must still reach Claude Code well before its timeout.
const recordWait = 2 * time.Second

// recordTimeout tries to record a refusal past the deadline, waiting for
// it at most recordWait. What the stuck decision was about (the event may
// not even have been read) is not known: the record says what happened.
func recordTimeout(o Options, failOpen bool, cause error, wg *sync.WaitGroup) {
	written := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(written)
		env, err := o.EnvFunc()
		if err != nil {
			return
		}
		// as the managed layer requires (signed, anchored), if it loads
		wd, _ := os.Getwd()
		log, err := gate.OpenLogEnv(env, wd)
		if err != nil {
			return
		}
		defer log.Close()
		_, _ = log.Append(audit.Record{Event: "hook_error", Source: "hook", Decision: "block",
			Effective: effectiveOnFailure(failOpen), Rule: "hook-deadline", Reason: oneLine(cause.Error())})
	}()
	t := time.NewTimer(recordWait)
	defer t.Stop()
	select {
	case <-written:
	case <-t.C:
	}
}
