package shell

import "testing"

// A clone's destination is filled from the remote: running a file under it
// later in the same command runs downloaded bytes; a local clone is not a
// download.
func TestIsRemoteRepo(t *testing.T) {
	for s, want := range map[string]bool{
		"https://github.com/x/y": true,
		"git@github.com:x/y.git": true,
		"ssh://git@host/x":       true,
		"file:///srv/git/x":      false,
		"../local":               false,
		"/srv/git/x":             false,
		"./x":                    false,
		"host:path/x":            true,
		"C:/repos/x":             false, // a drive letter, not a host
		"x":                      false,
	} {
		if got := isRemoteRepo(s); got != want {
			t.Errorf("isRemoteRepo(%q) = %v, want %v", s, got, want)
		}
	}
}
