package main

import (
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// The home's policy.yaml is Airlock's own state: read and written without
// following a link, and refused when another user owns or can write it. A
// file AIRLOCK_POLICY names is the user's choice, links and all.

// maxPolicyBytes bounds a policy file read for an edit.
const maxPolicyBytes = 16 << 20

func inHome(env home.Env, path string) bool { return filepath.Dir(path) == env.AirlockHome }

// readPolicy reads the policy file at path.
func readPolicy(env home.Env, path string) ([]byte, error) {
	if inHome(env, path) {
		return regular.ReadState(path, maxPolicyBytes)
	}
	return os.ReadFile(path)
}

// makePolicyDir makes the directory that holds the policy file.
func makePolicyDir(env home.Env, path string) error {
	if inHome(env, path) {
		return home.Make(env.AirlockHome)
	}
	return os.MkdirAll(filepath.Dir(path), 0o700)
}

// writePolicy writes a policy file so that a reader never sees half a
// policy (a truncated policy can parse as a weaker one).
func writePolicy(env home.Env, path string, data []byte, mode os.FileMode) error {
	if inHome(env, path) {
		return atomicfile.WriteState(path, data, mode)
	}
	return atomicfile.Write(path, data, mode)
}
