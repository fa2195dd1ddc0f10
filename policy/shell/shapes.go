package shell

import "strings"

// The shapes of path facts beyond "this one file": names only, trees.

// withMode adds m to the shape of the paths recorded until the returned
// function restores the previous one.
func (w *walker) withMode(m pathMode) func() {
	old := w.mode
	w.mode |= m
	return func() { w.mode = old }
}

// namesOnly reports whether c's operands reach the output only as names
// or metadata: listings, sizes, file types, and key tools that print only
// the public half (age-keygen -y).
func namesOnly(c *cmdCtx) bool {
	switch c.prog {
	case "ls", "dir", "vdir", "stat", "du", "tree", "exa", "eza", "lsd", "lsattr", "getfacl", "namei":
		return true
	case "age-keygen":
		return hasWord(c.argv, "-y")
	}
	return false
}

func hasWord(argv []argVal, w string) bool {
	for _, a := range argv[1:] {
		if a.s == w {
			return true
		}
	}
	return false
}

// hasFlagLetter reports whether a short-option cluster holds one of letters.
func hasFlagLetter(argv []argVal, letters string) bool {
	for _, a := range argv[1:] {
		s := a.s
		if len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s[1:], letters) {
			return true
		}
	}
	return false
}

// recursiveFlag reports whether argv holds one of the short letters in a
// cluster or one of the long names: the operands are trees.
func recursiveFlag(argv []argVal, letters string, long ...string) bool {
	for _, a := range argv[1:] {
		s := a.s
		if s == "--" {
			return false
		}
		if strings.HasPrefix(s, "--") {
			name, _, _ := strings.Cut(s[2:], "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			continue
		}
		if letters != "" && len(s) > 1 && s[0] == '-' && strings.ContainsAny(s[1:], letters) {
			return true
		}
	}
	return false
}
