package gate

import "github.com/agentairlock/airlock/internal/home"

// The gate reads no environment of its own: every AIRLOCK_* setting it
// honours (the argument budget, AIRLOCK_FAIL_OPEN, the weakening variables
// of the configuration record) comes through the home.Env its caller
// built once (home.FromOS in a binary, a fixed map in a test), so one
// process decides with one view of its settings and a test cannot be
// steered by the environment it runs in (gate_env_test.go holds it so).

// getenv is env's lookup; an Env without one has no variable set.
func getenv(env home.Env) func(string) string {
	if env.Getenv == nil {
		return noEnv
	}
	return env.Getenv
}

func noEnv(string) string { return "" }
