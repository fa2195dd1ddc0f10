//go:build !unix

package policy

import "testing"

func mkfifo(t *testing.T, path string) {
	t.Skip("no FIFOs on this platform")
}
