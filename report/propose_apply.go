package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/policy"
	"gopkg.in/yaml.v3"
)

// ApplyGrants appends grants to the policy file at path (starting from
// fallback, the bundled profile in force, when there is no file yet) and
// returns how many it added. It edits the YAML tree through
// policy.AppendGrant — the same writer as airlock allow — so the user's
// comments and order survive; a grant already in the file (same tool and
// match) is not written twice. The result is loaded with the policy loader
// before it replaces the file atomically (through a symlink, keeping the
// file's mode), so a bad edit never lands: the old file stays as it was.
func ApplyGrants(file string, fallback []byte, grants []ProposedGrant, today string, vars policy.Vars) (int, error) {
	// The home's policy.yaml is Airlock's own state (never through a link,
	// never another user's); a file AIRLOCK_POLICY names is the user's.
	read, write := os.ReadFile, atomicfile.Write
	if vars.AirlockHome != "" && filepath.Dir(file) == filepath.Clean(vars.AirlockHome) {
		read = func(p string) ([]byte, error) { return regular.ReadState(p, 16<<20) }
		write = atomicfile.WriteState
	}
	data, err := read(file)
	mode := os.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = fallback
	case err != nil:
		return 0, fmt.Errorf("read policy %s: %w", file, err)
	default:
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, added, err := addGrants(data, grants, today)
	if err != nil {
		return 0, fmt.Errorf("edit policy %s: %w", file, err)
	}
	if added == 0 {
		return 0, nil
	}
	if _, err := policy.CheckEdit(out, file, vars); err != nil {
		return 0, fmt.Errorf("the edited policy does not load, %s was left as it was: %w", file, err)
	}
	if err := write(file, out, mode); err != nil {
		return 0, fmt.Errorf("write policy %s: %w", file, err)
	}
	return added, nil
}

// addGrants appends the grants not already in the document.
func addGrants(data []byte, grants []ProposedGrant, today string) ([]byte, int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, 0, err
	}
	have := map[[2]string]bool{}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		top := doc.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == "grants" {
				for _, g := range top.Content[i+1].Content {
					have[[2]string{field(g, "tool"), field(g, "match")}] = true
				}
			}
		}
	}
	added := 0
	for _, g := range grants {
		k := [2]string{g.Tool, g.Match}
		if have[k] {
			continue
		}
		have[k] = true
		var err error
		if data, err = policy.AppendGrant(data, policy.GrantSpec{Tool: g.Tool, Match: g.Match, Reason: g.Reason, Added: today}); err != nil {
			return nil, 0, err
		}
		added++
	}
	return data, added, nil
}

func field(m *yaml.Node, key string) string {
	if m.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Value
		}
	}
	return ""
}
