package policy

import "strings"

// KernelPathRules is the part of a policy the kernel sandbox can enforce
// on files: every forbid and every non-allow rule (the overlay's included)
// that names paths and nothing else a kernel cannot see (no command, host,
// text, signal or environment condition). A kernel cannot ask, so an ask
// rule refuses here.
//
// The sandbox asks about every entry of the trees it walks (tens of
// thousands), so the rules are indexed by the one segment each glob cannot
// match without: its last segment, which must be the path's base name, or,
// for a glob ending in "/**", a segment somewhere in the path. A path no
// index entry fits is denied by no rule, and the full match is skipped.
type KernelPathRules struct {
	rules []*Rule

	always   bool            // a glob with no segment to index ("**")
	lastLit  map[string]bool // literal last segments: the base name must be one
	lastWild []wildSeg       // wildcard last segments
	anyLit   map[string]bool // literal anchors of "…/x/**": some segment must be one
	anyWild  []wildSeg

	// The walk asks about every entry of one directory in a row: whether
	// the directory part already holds an anchor is remembered for it.
	last *dirHit
}

// KernelPaths values are not safe for concurrent use.

type dirHit struct {
	dir string
	hit bool
}

// wildSeg is a segment pattern with its literal ends, checked first.
type wildSeg struct {
	pat, prefix, suffix string
}

func newWildSeg(pat string) wildSeg {
	i := strings.IndexAny(pat, "*?")
	j := strings.LastIndexAny(pat, "*?")
	return wildSeg{pat: pat, prefix: pat[:i], suffix: pat[j+1:]}
}

func (w wildSeg) match(seg string) bool {
	return len(seg) >= len(w.prefix)+len(w.suffix) && strings.HasPrefix(seg, w.prefix) &&
		strings.HasSuffix(seg, w.suffix) && matchPath(w.pat, seg)
}

// KernelPaths collects the policy's path-only deny rules.
func (p *Policy) KernelPaths() KernelPathRules {
	k := KernelPathRules{lastLit: map[string]bool{}, anyLit: map[string]bool{}, last: &dirHit{}}
	add := func(list []*Rule) {
		for _, r := range list {
			if r.never || r.path == nil || r.Action == Allow || len(r.tools) > 0 ||
				len(r.hosts) > 0 || len(r.commands) > 0 || len(r.texts) > 0 ||
				len(r.signals) > 0 || len(r.env) > 0 {
				continue
			}
			k.rules = append(k.rules, r)
			for _, g := range r.path.globs {
				for _, alt := range g.alts {
					k.index(alt)
				}
			}
		}
	}
	add(p.Forbids)
	add(p.Rules)
	if p.Overlay != nil {
		add(p.Overlay.Rules)
	}
	return k
}

func (k *KernelPathRules) index(glob string) {
	var segs []string
	for _, s := range strings.Split(glob, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	subtree := false
	for len(segs) > 0 && segs[len(segs)-1] == "**" {
		segs, subtree = segs[:len(segs)-1], true
	}
	if len(segs) == 0 {
		k.always = true
		return
	}
	key := segs[len(segs)-1]
	wild := strings.ContainsAny(key, "*?")
	switch {
	case subtree && wild:
		k.anyWild = append(k.anyWild, newWildSeg(key))
	case subtree:
		k.anyLit[key] = true
	case wild:
		k.lastWild = append(k.lastWild, newWildSeg(key))
	default:
		k.lastLit[key] = true
	}
}

// candidate reports whether some indexed glob could match the folded path.
func (k *KernelPathRules) candidate(fp string) bool {
	if k.always {
		return true
	}
	cut := strings.LastIndexByte(fp, '/')
	dir, base := fp[:max(cut, 0)], fp[cut+1:]
	if k.lastLit[base] || k.anchor(base) {
		return true
	}
	for _, w := range k.lastWild {
		if w.match(base) {
			return true
		}
	}
	if k.last != nil && k.last.dir == dir && dir != "" {
		return k.last.hit
	}
	hit := false
	for rest := dir; rest != "" && !hit; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		hit = seg != "" && k.anchor(seg)
	}
	if k.last != nil {
		*k.last = dirHit{dir: dir, hit: hit}
	}
	return hit
}

func (k *KernelPathRules) anchor(seg string) bool {
	if k.anyLit[seg] {
		return true
	}
	for _, w := range k.anyWild {
		if w.match(seg) {
			return true
		}
	}
	return false
}

// Denied reports the first rule that refuses access a to path, an
// absolute, cleaned path as the kernel would see it (no symlink in it is
// resolved: the sandbox never grants a symlink, only what it points to).
func (k KernelPathRules) Denied(path string, a Access) (rule string, denied bool) {
	fold := FoldPath(path)
	if !k.candidate(fold) {
		return "", false
	}
	return k.denied(fold, path, a)
}

// DeniedAccess is Denied for reading (with executing) and for writing at
// once: the walk's question for every entry.
func (k KernelPathRules) DeniedAccess(path string) (read, write bool) {
	return k.deniedAccess(FoldPath(path), path)
}

// DeniedEntry is DeniedAccess for the entry name of a directory whose
// path folds to dirFold (FoldPath of the directory, computed once for all
// its entries): a plain ASCII name folds on its own.
func (k KernelPathRules) DeniedEntry(dirFold, name, path string) (read, write bool) {
	fold := ""
	if isPlainName(name) && isCleanAbs(dirFold) {
		fold = dirFold + "/" + FoldText(name)
	} else {
		fold = FoldPath(path)
	}
	return k.deniedAccess(fold, path)
}

// isPlainName: a name FoldText only lowercases and path.Clean keeps.
func isPlainName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 0x80 || c == '%' || c == '\\' || c == '/' {
			return false
		}
	}
	return true
}

func (k KernelPathRules) deniedAccess(fold, path string) (read, write bool) {
	if !k.candidate(fold) {
		return false, false
	}
	_, read = k.denied(fold, path, accessRead|accessExec)
	_, write = k.denied(fold, path, accessWrite)
	return read, write
}

func (k KernelPathRules) denied(fold, path string, a Access) (string, bool) {
	fact := []PathFact{{Path: path, Access: a, fold: fold}}
	fact[0].setKeys()
	for _, r := range k.rules {
		if _, ok := r.path.deny(fact); ok {
			return r.ID, true
		}
	}
	return "", false
}
