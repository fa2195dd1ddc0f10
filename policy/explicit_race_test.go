//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// DEFECT (found in review of issue 14): the policy AIRLOCK_POLICY names was
// checked (owner, mode) by a Stat of its path and then opened by that path
// again, so a file swapped in between — by whoever can write the directory
// holding it, or retarget a link on the way — was read unchecked: another
// user's "mode: observe" turned the gate off in the window. The check is
// made on the file that is read (its descriptor).
//
// The swap is a race, so the test runs it many times: before the fix a few
// hundred loads took the other file at least once on this machine; after
// it, no load ever can.
func TestExplicitPolicyCheckedOnTheFileRead(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("mode: enforce\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("mode: observe\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bad, 0o666); err != nil { // anyone can write it: refused
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.yaml")
	if err := os.Symlink(good, path); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			target := good
			if i%2 == 1 {
				target = bad
			}
			tmp := filepath.Join(dir, "tmp"+strconv.Itoa(i))
			if os.Symlink(target, tmp) == nil {
				_ = os.Rename(tmp, path)
			}
		}
	}()
	env := func(k string) string {
		if k == "AIRLOCK_POLICY" {
			return path
		}
		return ""
	}
	home := t.TempDir()
	observed := 0
	for i := 0; i < 3000 && observed == 0; i++ {
		p, err := Load(Options{Home: home, AirlockHome: filepath.Join(home, ".airlock"), Cwd: home, Getenv: env})
		if err == nil && p.Mode == Observe {
			observed++
		}
	}
	stop.Store(true)
	wg.Wait()
	if observed > 0 {
		t.Fatal("a policy file anyone can write was loaded (mode: observe) in place of the one checked")
	}
}
