//go:build !linux

package policy

import (
	"os"

	"github.com/agentairlock/airlock/internal/regular"
)

// openOverlay opens real (resolved, beneath the resolved repository
// root) without blocking and without following its last component; only
// a regular file is returned.
func openOverlay(_, real string) (*os.File, error) {
	return regular.Open(real, os.O_RDONLY|noFollow, 0)
}
