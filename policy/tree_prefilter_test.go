package policy

import (
	"strings"
	"testing"
)

// TestMayMeetTreeNeverHidesAMeeting: the cheap prefilter in front of the
// tree check only ever skips forbid alternatives the full check would not
// meet, over every built-in glob and a spread of trees (the home and
// above it, config roots, the workspace and below it, system places,
// other users' homes, Windows drives).
func TestMayMeetTreeNeverHidesAMeeting(t *testing.T) {
	home := "/var/tmp/x/home/dev"
	rs, _, err := builtins(Vars{Home: home, Workspace: home + "/proj", Tmp: "/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	trees := []string{"/", "/var", "/var/tmp/x/home", home, home + "/.config", home + "/.config/gh", home + "/.ssh",
		home + "/proj", home + "/proj/src", home + "/proj/.git", home + "/library/application support", home + "/.local/share",
		"/etc", "/etc/ssh", "/root", "/home", "/home/alice", "/home/alice/.aws", "/users/bob", "/usr/share/doc", "/proc", "/proc/self"}
	checked, skipped := 0, 0
	for _, r := range rs {
		m := r.path
		if m == nil {
			continue
		}
		for _, tree := range trees {
			b := splitPattern(tree, false, false)
			root := len(b) - 1
			b = append(b, segPat{deep: true})
			for _, g := range m.globs {
				for _, alt := range g.alts {
					try := func(head, rest, full string) {
						checked++
						if mayMeetTree(head, rest, tree, false) {
							return
						}
						skipped++
						if m.meetsOutsideExcept(full, b, root) {
							t.Errorf("%s: the prefilter skips %q, which meets the tree %s", r.ID, full, tree)
						}
					}
					rest, lead := strings.CutPrefix(alt, "**/")
					if !lead {
						try("", alt, alt)
						continue
					}
					for _, h := range append([]string{home}, otherHomes[:]...) {
						try(h, rest, h+"/**/"+rest)
					}
				}
			}
		}
	}
	if skipped < checked/2 {
		t.Errorf("the prefilter skipped only %d of %d: it no longer pays for itself", skipped, checked)
	}
	t.Logf("%d alternatives × trees, %d skipped", checked, skipped)
}
