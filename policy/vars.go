package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Vars are the values of ${workspace}, ${home}, ${tmp}, ${user} and
// ${airlock_home}, so a shared policy file needs no absolute paths.
type Vars struct {
	Workspace   string // "" when the call is not inside a repository
	Home        string
	Tmp         string
	User        string
	AirlockHome string
}

// FindWorkspace returns the nearest directory at or above dir that holds a
// .git entry, found by walking up the file system (never by running git:
// a PATH-planted git must not choose the workspace). $HOME and / are never
// a workspace, so `git init ~` cannot widen every ${workspace} rule to the
// whole home directory.
func FindWorkspace(dir, home string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	dir = filepath.Clean(dir)
	home = filepath.Clean(home)
	for {
		if dir == home || isRoot(dir) {
			return ""
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isRoot(dir string) bool {
	return dir == "/" || dir == filepath.VolumeName(dir)+string(filepath.Separator)
}

// expand replaces ${name} references. ok is false when a referenced
// variable is empty (no workspace): such a pattern can never match,
// which is the safe reading for allow and deny rules alike.
func (v Vars) expand(s string) (out string, ok bool, err error) {
	if !strings.Contains(s, "${") {
		return s, true, nil
	}
	var b strings.Builder
	ok = true
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", false, fmt.Errorf("unclosed ${ in %q", s)
		}
		name := s[i+2 : i+j]
		var val string
		switch name {
		case "workspace":
			val = v.Workspace
		case "home":
			val = v.Home
		case "tmp":
			val = v.Tmp
		case "user":
			val = v.User
		case "airlock_home":
			val = v.AirlockHome
		default:
			return "", false, fmt.Errorf("unknown variable ${%s}: use ${workspace}, ${home}, ${tmp}, ${user} or ${airlock_home}", name)
		}
		if val == "" {
			ok = false
		}
		b.WriteString(s[:i])
		b.WriteString(filepath.ToSlash(val))
		s = s[i+j+1:]
	}
	return b.String(), ok, nil
}
