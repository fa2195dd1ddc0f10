//go:build linux

package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOverlayOpenStaysBeneathTheRepository: a directory of the repository
// swapped for a link to outside between resolving the overlay's path and
// opening it (a race a steered agent could run) does not lead the open
// out: the kernel refuses it.
func TestOverlayOpenStaysBeneathTheRepository(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{repo, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "policy.yaml"), "rules: []\n")
	// the path was resolved as repo/.airlock/policy.yaml; .airlock is now
	// a link out
	link(t, outside, filepath.Join(repo, ".airlock"))
	f, err := openOverlay(repo, filepath.Join(repo, ".airlock", "policy.yaml"))
	if err == nil {
		f.Close()
		t.Fatal("opened a file outside the repository through a swapped directory")
	}
	if !errors.Is(err, ErrOverlayOutside) {
		t.Fatalf("err = %v, want ErrOverlayOutside", err)
	}
}
