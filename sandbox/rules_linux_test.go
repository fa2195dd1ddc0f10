package sandbox

import (
	"path/filepath"
	"slices"
	"testing"
)

// The Seatbelt profile takes its trees from allowedRoots; the Linux walk
// chooses its own in addRules. Until addRules calls allowedRoots, this
// keeps the two from drifting: the walked roots Prepare reports are
// allowedRoots' trees, at their levels, in their order.
func TestAllowedRootsAreTheLinuxWalkRoots(t *testing.T) {
	if Probe().ABI == 0 {
		t.Fatal("this kernel has no Landlock: Prepare walks no roots to compare with")
	}
	f := newFixture(t)
	for _, o := range []Options{
		f.options(t, "read", "/dev/null"),
		func() Options {
			o := f.options(t, "read", "/dev/null")
			o.Roots = []Root{{Path: f.ws + "/src", Write: true}, {Path: f.outside}}
			return o
		}(),
	} {
		plan, err := Prepare(o)
		if err != nil {
			t.Fatal(err)
		}
		got := plan.Report().Roots
		plan.Close()
		var want []string
		for _, r := range resolveRoots(allowedRoots(plan.opt), filepath.EvalSymlinks) {
			lv := "ro"
			if r.Write {
				lv = "rw"
			}
			want = append(want, tildePath(r.Path, o.Policy.Vars.Home)+" ("+lv+")")
		}
		// the system trees come first, then the walked roots
		if len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
			t.Errorf("Roots %v: Prepare walks %q, allowedRoots says %q", o.Roots, got, want)
		}
	}
}
