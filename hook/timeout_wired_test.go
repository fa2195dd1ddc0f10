package hook

import (
	"testing"
	"time"

	"github.com/agentairlock/airlock/setup"
)

// What airlock init writes as each agent's hook timeout is what the hook
// times its deadline and ask channel by: a shorter written timeout would
// let the agent kill a hook still waiting for a person (and Codex, Gemini
// CLI and Copilot let a killed hook's call through).
func TestInitWritesTheTimeoutTheHookNestsIn(t *testing.T) {
	for _, a := range Agents {
		want := TimeoutOf(a).Timeout
		got := time.Duration(setup.HookTimeoutOf(string(a))) * time.Second
		if got != want {
			t.Errorf("%s: init writes a %s hook timeout, the hook nests its deadline in %s", a, got, want)
		}
	}
}
