package policy

import "strings"

// Deny matching for path facts that are not one file: a shell pattern
// (Glob), everything under a directory (Tree), or a name whose content
// never reaches the caller (Names). Kept apart from match.go so the
// literal-path fast path stays as it is.

// maxWitnesses bounds the sample paths an except list is checked against.
const maxWitnesses = 24

// otherHomes are the homes a forbid's leading "**" stands for when a tree
// is read, besides the caller's own (folded: /Users is /users).
var otherHomes = [...]string{"/root", "/home/*", "/users/*", "c:/users/*"}

// denyShaped decides a Glob, Tree or Names fact against the matcher, in
// the folded form form.
func (m *pathMatcher) denyShaped(p *PathFact, form string) bool {
	if p.Names {
		// only names or metadata reach the caller (ls, stat, du, sed -i):
		// the read is no access; a write or an exec still is
		if p.Access&^AccessRead&m.access == 0 {
			return false
		}
		return matchAny(m.globs, form) && !matchAny(m.except, form)
	}
	if p.Tree && !p.Glob && matchAny(m.globs, form) && !matchAny(m.except, form) {
		return true
	}
	b := splitPattern(form, p.Glob, p.Glob && !p.search)
	root := -1
	if p.Tree {
		root = len(b) - 1
		b = append(b, segPat{deep: true})
	}
	for i := range m.globs {
		for _, alt := range m.globs[i].alts {
			if !p.Tree {
				if m.meetsOutsideExcept(alt, b, -1) {
					return true
				}
				continue
			}
			// A recursive read meets a forbid when the place the forbid
			// names is under the tree: a leading "**" stands for a home
			// (the caller's or another user's) and what is below it, and
			// the forbid must name the tree's own directory or lie above
			// it (segsMeetRoot), so `tar ~` and `grep -r /home` meet
			// ~/.ssh while `grep -r .` in the workspace does not meet every
			// **/.env a project might hold.
			rest, lead := strings.CutPrefix(alt, "**/")
			if !lead {
				if m.meetsOutsideExcept(alt, b, root) {
					return true
				}
				continue
			}
			if p.home != "" && m.meetsOutsideExcept(strings.TrimSuffix(p.home, "/")+"/**/"+rest, b, root) {
				return true
			}
			for _, h := range otherHomes {
				if m.meetsOutsideExcept(h+"/**/"+rest, b, root) {
					return true
				}
			}
		}
	}
	return false
}

// meetsOutsideExcept: the brace-free forbid alternative alt and the
// pattern b share a path that no except covers.
func (m *pathMatcher) meetsOutsideExcept(alt string, b []segPat, root int) bool {
	a := splitPattern(alt, false, false)
	if !segsMeetRoot(a, b, false, root) {
		return false
	}
	if len(m.except) == 0 {
		return true
	}
	ws := witnesses(a, b, maxWitnesses)
	if len(ws) == 0 {
		return true // they meet, but no sample came out: the safe reading
	}
	for _, w := range ws {
		if !matchAny(m.except, w) {
			return true
		}
	}
	return false
}
