package policy

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
// the folded form form whose key set is keys (glob_index.go: the form's
// own segments as a literal path, which is how it is matched first).
func (m *pathMatcher) denyShaped(p *PathFact, form string, keys *formIndex) bool {
	literal := func() bool {
		return !m.index.skips(keys) && matchAnyKeyed(m.globs, form, keys) && !matchAny(m.except, form)
	}
	if p.Names {
		// only names or metadata reach the caller (ls, stat, du, sed -i):
		// the read is no access; a write or an exec still is
		if p.Access&^accessRead&m.access == 0 {
			return false
		}
		return literal()
	}
	if p.Tree && !p.Glob && literal() {
		return true
	}
	if p.Tree {
		return m.denyTree(p, form) // tree_index.go
	}
	b := splitPattern(form, p.Glob, p.Glob && !p.search)
	for i := range m.globs {
		for _, alt := range m.globs[i].alts {
			if m.meetsOutsideExcept(alt, b, -1) {
				return true
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
