package policy

// KernelGlob is one rule of KernelPathRules as patterns, for a sandbox
// that matches paths itself instead of being handed a walked list of
// grants (macOS Seatbelt compiles its own path regexes): the rule's
// brace-expanded globs with its variables already expanded, the
// exceptions that lift it, and the accesses it denies. The patterns are
// folded (FoldPath's lower case), and PathGlob's syntax: '*' and '?'
// within a segment, "**" as a whole segment for any number of them.
type KernelGlob struct {
	Rule   string
	Globs  []string
	Except []string
	Read   bool // reading (and executing) is denied
	Write  bool // writing is denied
}

// Globs lists the rules as patterns, in the policy's order (forbids,
// rules, the overlay's rules). A rule that denies neither reading nor
// writing is left out.
func (k KernelPathRules) Globs() []KernelGlob {
	out := make([]KernelGlob, 0, len(k.rules))
	for _, r := range k.rules {
		m := r.path
		g := KernelGlob{Rule: r.ID, Read: m.access&(accessRead|accessExec) != 0, Write: m.access&accessWrite != 0}
		if !g.Read && !g.Write {
			continue
		}
		for _, pp := range m.globs {
			g.Globs = append(g.Globs, pp.alts...)
		}
		for _, pp := range m.except {
			g.Except = append(g.Except, pp.alts...)
		}
		out = append(out, g)
	}
	return out
}
