package sandbox

import "path/filepath"

// The trees a sandboxed command may use, before any platform's rules: the
// same list whatever enforces it (Landlock's walked ruleset on Linux, a
// Seatbelt profile on macOS). The forbids are carved out of these by each
// backend: the Linux walk leaves out every entry policy.KernelPaths
// denies, the Seatbelt profile denies policy.KernelPaths().Globs() after
// its allows.

// allowedRoots are the trees the policy's sandbox grants: Options.Roots
// when set (a per-server profile), else the workspace (or, with no
// repository, the directory the command runs in) and the temp directory
// read-write and the home read-only; /etc read-only either way.
func allowedRoots(o Options) []Root {
	var out []Root
	if o.Roots != nil {
		out = append(out, o.Roots...)
	} else {
		vars := o.Policy.Vars
		ws := vars.Workspace
		if ws == "" && o.Dir != vars.Home && o.Dir != "/" {
			ws = o.Dir // no repository: the directory the command runs in
		}
		out = append(out, Root{Path: ws, Write: true}, Root{Path: vars.Tmp, Write: true}, Root{Path: vars.Home})
	}
	return append(out, Root{Path: "/etc"})
}

// resolveRoots resolves each root's symlinks (a kernel judges the file a
// path names, not the name) and drops the empty, the unresolvable, "/"
// and repeats; the first mention of a tree decides its level.
func resolveRoots(roots []Root, eval func(string) (string, error)) []Root {
	seen := map[string]bool{}
	var out []Root
	for _, r := range roots {
		if r.Path == "" || r.Path == "/" {
			continue
		}
		clean, err := eval(r.Path)
		if err != nil {
			continue
		}
		clean = filepath.Clean(clean)
		if clean == "/" || seen[clean] {
			continue
		}
		seen[clean] = true
		out = append(out, Root{Path: clean, Write: r.Write})
	}
	return out
}
