package policy

import "github.com/agentairlock/airlock/internal/home"

// LoadEnv loads the policy for calls made in cwd, in the environment env
// (home.FromOS in the binaries).
func LoadEnv(env home.Env, cwd string) (*Policy, error) {
	return Load(Options{
		Cwd: cwd, Home: env.Home, User: env.User, Tmp: env.Tmp,
		AirlockHome: env.AirlockHome, Getenv: env.Getenv,
	})
}
