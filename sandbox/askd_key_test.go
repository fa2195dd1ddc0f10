package sandbox

import (
	"path/filepath"
	"testing"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/policy"
)

// askd shows only questions MACed with askd.key: the key is worth what it
// takes to read it, so every bundled profile's forbids must keep it from
// the sandbox's grants (the walk leaves out every path KernelPaths denies),
// including when the Airlock home is not ~/.airlock.
func TestAskdKeyIsNeverGranted(t *testing.T) {
	home := t.TempDir()
	for _, airlockHome := range []string{filepath.Join(home, ".airlock"), filepath.Join(home, "elsewhere", "state")} {
		for _, profile := range []string{"yolo", "default", "paranoid"} {
			p, err := policy.LoadProfile(profile, policy.Vars{Workspace: filepath.Join(home, "proj"), Home: home, Tmp: filepath.Join(home, "tmp"), User: "dev", AirlockHome: airlockHome})
			if err != nil {
				t.Fatal(err)
			}
			key := ask.KeyPath(airlockHome)
			read, write := p.KernelPaths().DeniedAccess(key)
			if !read || !write {
				t.Errorf("%s, home %s: the sandbox may read (%v) or write (%v) %s, the key that proves a question came from Airlock", profile, airlockHome, !read, !write, key)
			}
		}
	}
}
