package policy

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
)

// The gate's own binaries, as `airlock init` and `airlock doctor` found
// them: whatever the agents' configs point at as airlock-hook and
// airlock-mcp (and airlock itself), wherever they are installed. Recorded
// in the Airlock home, never read from the agents' configs on the call
// path; every policy load reads the small file (one open when it is
// missing) into the forbid gate.binaries-recorded, beside the name-shaped
// gate.binaries.

// BinariesFile is the record, in the Airlock home.
const BinariesFile = "binaries"

// binariesForbid is the id of the forbid the record makes.
const binariesForbid = "gate.binaries-recorded"

const maxBinariesBytes = 16 << 10

// BinariesRecord is the record of paths (made absolute and cleaned, with
// their symlink-resolved forms) as BinariesFile holds it; nil when there is
// none. Empty paths are skipped. The caller writes it (policy writes
// nothing).
func BinariesRecord(paths ...string) []byte {
	set := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		set[filepath.ToSlash(abs)] = true
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			set[filepath.ToSlash(r)] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	list := make([]string, 0, len(set))
	for p := range set {
		list = append(list, p)
	}
	sort.Strings(list)
	var b bytes.Buffer
	b.WriteString("# Airlock's binaries, recorded by airlock init and airlock doctor; read by every hook (forbid " + binariesForbid + ")\n")
	for _, p := range list {
		b.WriteString(p + "\n")
	}
	return b.Bytes()
}

// binariesRule reads the record, if there is one, into a write forbid on
// the recorded paths. Lines that are not absolute paths, or hold glob
// characters, are skipped (the record is Airlock's own file, written
// above; a path with a '*' cannot be matched literally).
func binariesRule(airlockHome string) (*Rule, error) {
	if airlockHome == "" {
		return nil, nil
	}
	path, data, err := readRecord(airlockHome, BinariesFile, maxBinariesBytes, "binaries record")
	if data == nil || err != nil {
		return nil, err
	}
	pm := &pathMatcher{access: accessWrite}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || strings.ContainsAny(line, "*?[]{}") || !(strings.HasPrefix(line, "/") || filepath.IsAbs(line)) {
			continue
		}
		g, err := CompilePathGlob(FoldText(line))
		if err != nil {
			continue
		}
		pm.globs = append(pm.globs, g)
		pm.src = append(pm.src, line)
	}
	if len(pm.globs) == 0 {
		return nil, nil
	}
	return &Rule{ID: binariesForbid, Action: Block, File: path, path: pm, hasFacts: true,
		Reason: "this is one of Airlock's own binaries, which the agents' hooks run; replacing, disabling or moving it turns the gate off"}, nil
}
