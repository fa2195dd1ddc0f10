package setup_test

import (
	"testing"
	"time"

	"github.com/agentairlock/airlock/hook"
	"github.com/agentairlock/airlock/setup"
)

// TestHookTimeoutLeavesTheHookItsDeadline: the timeout init writes for
// Claude Code is the one airlock-hook's deadline is measured from, so the
// hook refuses a stuck call before Claude Code gives up on it (and lets
// the call through).
func TestHookTimeoutLeavesTheHookItsDeadline(t *testing.T) {
	written := time.Duration(setup.HookTimeout) * time.Second
	if written != hook.AgentTimeout {
		t.Fatalf("init writes a %s hook timeout, airlock-hook assumes %s", written, hook.AgentTimeout)
	}
	if time.Duration(setup.HookDeadline)*time.Second != hook.DefaultDeadline {
		t.Fatalf("setup.HookDeadline is %d s, airlock-hook's deadline %s", setup.HookDeadline, hook.DefaultDeadline)
	}
	if margin := written - hook.DefaultDeadline; margin < 5*time.Second {
		t.Fatalf("airlock-hook answers by %s, only %s before the %s timeout", hook.DefaultDeadline, margin, written)
	}
}

// TestAgentHookTimeoutsAreTheHooks: for every agent whose hooks have a
// timeout field, the timeout init writes, less the 5 s margin doctor
// measures a wired timeout against, is airlock-hook's own deadline for that
// agent: a wired timeout doctor accepts never ends the hook (or its ask on
// Airlock's channel) first.
func TestAgentHookTimeoutsAreTheHooks(t *testing.T) {
	for _, a := range hook.Agents {
		sec := setup.HookTimeoutOf(string(a))
		if sec == 0 {
			continue
		}
		margin := time.Duration(setup.HookTimeout-setup.HookDeadline) * time.Second
		if got, want := time.Duration(sec)*time.Second-margin, hook.TimeoutOf(a).Deadline(); got != want {
			t.Errorf("%s: init writes %d s, doctor accepts a timeout past %s, airlock-hook's deadline is %s", a, sec, got, want)
		}
	}
}
