package policy

import (
	"fmt"
	"os"

	"github.com/agentairlock/airlock/internal/home"
)

// loadExplicit loads the policy AIRLOCK_POLICY names. The user chose the
// path (links are followed), but a file another user owns or can write
// would let them steer the gate: it is refused.
func loadExplicit(path string, vars Vars) (*Policy, error) {
	if fi, err := os.Stat(path); err == nil {
		if err := home.Trusted(path, fi); err != nil {
			return nil, fmt.Errorf("AIRLOCK_POLICY: %w", err)
		}
	}
	return LoadFile(path, vars)
}
