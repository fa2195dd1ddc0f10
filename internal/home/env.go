package home

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"time"
)

// policyName is the policy file's name in the Airlock home.
const policyName = "policy.yaml"

// Env is the user's environment as Airlock sees it: the user's home and
// name, the temporary directory, the Airlock home, and the AIRLOCK_*
// settings (through Getenv).
type Env struct {
	Home        string
	User        string
	Tmp         string
	AirlockHome string
	Getenv      func(string) string
	Now         func() time.Time
}

// FromOS reads the process environment. It fails when no home
// directory can be found: without one neither the policy nor the secret
// paths it protects can be placed; and when the Airlock home is relative
// or not controlled by the user alone (Check).
func FromOS() (Env, error) {
	e := Env{Getenv: os.Getenv, Now: time.Now}
	e.Home = os.Getenv("HOME")
	if e.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return e, fmt.Errorf("find home directory: %w", err)
		}
		e.Home = h
	}
	e.User = os.Getenv("USER")
	if e.User == "" {
		e.User = os.Getenv("USERNAME")
	}
	if e.User == "" {
		if u, err := user.Current(); err == nil {
			e.User = u.Username
		}
	}
	e.Tmp = os.TempDir()
	// The home steers the gate (policy, pins, the chain): one another user
	// can write, or a relative one inside the agent's project, is refused
	// before anything in it is read.
	h, err := Locate(os.Getenv, e.Home)
	if err != nil {
		return e, err
	}
	e.AirlockHome = h
	if err := Check(h); err != nil {
		return e, fmt.Errorf("refusing the Airlock home %s: %w", h, err)
	}
	return e, nil
}

// PolicyFile is the policy file kept in the Airlock home at airlockHome.
func PolicyFile(airlockHome string) string {
	return filepath.Join(airlockHome, policyName)
}

// ExplicitPolicy is the policy file AIRLOCK_POLICY names, "" when unset.
// Such a file is taken whole: no repository overlay.
func (e Env) ExplicitPolicy() string { return e.Getenv("AIRLOCK_POLICY") }

// PolicyFile is the policy file in force: the one AIRLOCK_POLICY names,
// else the one in the Airlock home (which may not exist yet).
func (e Env) PolicyFile() string {
	if f := e.ExplicitPolicy(); f != "" {
		return f
	}
	return PolicyFile(e.AirlockHome)
}

// Profile is the bundled profile AIRLOCK_PROFILE names, and whether it
// was set; "default" when it is not.
func (e Env) Profile() (name string, set bool) {
	if p := e.Getenv("AIRLOCK_PROFILE"); p != "" {
		return p, true
	}
	return "default", false
}

// WeakeningVars are the AIRLOCK_* variables that change what the gate
// enforces or how much it records. A run with any of them set differently
// is a different gate, and the log says so.
var WeakeningVars = []string{
	"AIRLOCK_POLICY", "AIRLOCK_PROFILE", "AIRLOCK_MODE", "AIRLOCK_FAIL_OPEN",
	"AIRLOCK_MAX_ARG_VALUES", "AIRLOCK_MAX_ARG_CHARS", "AIRLOCK_MAX_ARG_DEPTH",
	"AIRLOCK_AUDIT_FSYNC", "AIRLOCK_AUDIT_MAX_MB", "AIRLOCK_SIGN", "AIRLOCK_SIGN_KEY",
	"AIRLOCK_VERIFY_KEY", "AIRLOCK_ANCHOR_DIR",
}
