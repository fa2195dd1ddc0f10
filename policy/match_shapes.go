package policy

import (
	"path"
	"strings"
)

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
		if p.Access&^accessRead&m.access == 0 {
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
				if mayMeetTree("", alt, form, p.Glob) && m.meetsOutsideExcept(alt, b, root) {
					return true
				}
				continue
			}
			if p.home != "" {
				h := strings.TrimSuffix(p.home, "/")
				if mayMeetTree(h, rest, form, p.Glob) && m.meetsOutsideExcept(h+"/**/"+rest, b, root) {
					return true
				}
			}
			for _, h := range otherHomes {
				if mayMeetTree(h, rest, form, p.Glob) && m.meetsOutsideExcept(h+"/**/"+rest, b, root) {
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

// mayMeetTree is a cheap necessary condition for the forbid alternative
// head + "/**/" + rest (rest alone when head is "") to meet the tree at the
// literal directory t (segsMeetRoot decides when it holds): the literal
// directories the alternative starts with and t must lie on one line, and
// when t is deeper, the alternative must name t's own directory by a
// later segment, since a forbid's wildcards may not stand for the tree's
// root. Any doubt (t is a pattern, a relative alternative, a segment that
// is a wildcard but not a whole "*" or "**") answers true. It allocates
// nothing: a Grep of a directory tries every forbid's alternatives.
func mayMeetTree(head, rest, t string, tGlob bool) bool {
	a := rest
	if head != "" {
		a = head
	}
	if len(a) > 2 && a[1] == ':' && a[2] == '/' {
		// a Windows drive: apart from a Unix tree below the root, else
		// judged in full
		return tGlob || !strings.HasPrefix(t, "/") || strings.TrimSuffix(t, "/") == ""
	}
	if tGlob || !strings.HasPrefix(a, "/") {
		return true
	}
	tt := strings.TrimSuffix(t, "/")
	if tt == "" {
		return true
	}
	last := tt[strings.LastIndexByte(tt, '/')+1:]
	// walk the segments of head, then "**", then rest
	parts := [3]string{head, "**", rest}
	if head == "" {
		parts = [3]string{rest, "", ""}
	}
	litEnd := -1 // bytes of the literal start, as a prefix of the alternative
	inLit := true
	lit := 0
	named := false
	for k, part := range parts {
		if part == "" {
			continue
		}
		for i := 0; i < len(part); {
			j := strings.IndexByte(part[i:], '/')
			if j < 0 {
				j = len(part)
			} else {
				j += i
			}
			sg := part[i:j]
			if sg != "" {
				wild := strings.ContainsAny(sg, "*?[{\\")
				if inLit && !wild && k == 0 {
					lit = j
				} else if inLit {
					inLit = false
					litEnd = lit
				}
				if !inLit {
					switch {
					case sg == last:
						named = true
					case sg == "*" || sg == "**":
					case wild:
						// a partial wildcard may name it ("*.d"): the full
						// check decides when it can
						if ok, err := path.Match(sg, last); ok || err != nil {
							named = true
						}
					}
				}
			}
			i = j + 1
		}
	}
	if litEnd < 0 {
		litEnd = lit
	}
	l := parts[0][:litEnd] // the literal start, e.g. "/home/dev" or "/home"
	switch {
	case tt == l || l == "" || strings.HasPrefix(l, tt+"/"):
		return true // the tree holds the literal start
	case !strings.HasPrefix(tt, l+"/"):
		return false // apart
	}
	return named
}
