package scan

import (
	"regexp/syntax"
	"sort"
	"strings"
)

// CollectorHosts returns the hosts the feed's exfiltration patterns name
// as plain literals — `newsink\.example`, `(?:a\.example|b\.example)\b`,
// `(?:^|\.)c\.example$` — for the hook's host forbid (airlock update
// compiles them into a file; see policy.FeedHostsRecord). A pattern with
// any other construct (a class, a repeat, an optional part) stays a
// scanner pattern only: its hosts cannot be listed without guessing.
func (f *Feed) CollectorHosts() []string {
	if f == nil {
		return nil
	}
	set := map[string]bool{}
	for _, in := range f.Indicators {
		if in.Pattern == "" {
			continue
		}
		if in.ID != "exfil.collector" && in.Category != Exfiltration {
			continue
		}
		re, err := syntax.Parse(in.Pattern, syntax.Perl)
		if err != nil {
			continue
		}
		var lits []string
		if !hostLiterals(re.Simplify(), &lits) {
			continue
		}
		for _, l := range lits {
			if h := literalHost(l); h != "" {
				set[h] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// maxHostExpansions bounds the strings one pattern may expand to.
const maxHostExpansions = 64

// hostLiterals expands a pattern made only of literals, alternations,
// optional parts and small character classes — framed by anchors, word
// boundaries or a leading "(?:^|\.)" — into the strings it matches; it
// reports false for any other shape or more than maxHostExpansions.
func hostLiterals(re *syntax.Regexp, out *[]string) bool {
	l, ok := expandLiterals(re)
	if !ok {
		return false
	}
	*out = append(*out, l...)
	return true
}

func expandLiterals(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return []string{""}, true
	case syntax.OpCapture:
		return expandLiterals(re.Sub[0])
	case syntax.OpQuest:
		l, ok := expandLiterals(re.Sub[0])
		return append([]string{""}, l...), ok && len(l) < maxHostExpansions
	case syntax.OpCharClass:
		var l []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(l) == 8 {
					return nil, false
				}
				l = append(l, string(r))
			}
		}
		return l, true
	case syntax.OpAlternate:
		var l []string
		for _, s := range re.Sub {
			x, ok := expandLiterals(s)
			if !ok || len(l)+len(x) > maxHostExpansions {
				return nil, false
			}
			l = append(l, x...)
		}
		return l, true
	case syntax.OpConcat:
		l := []string{""}
		for i, s := range re.Sub {
			if i == 0 && isStartOrDot(s) {
				continue // (?:^|\.) before the name: subdomains too
			}
			x, ok := expandLiterals(s)
			if !ok || len(l)*len(x) > maxHostExpansions {
				return nil, false
			}
			next := make([]string, 0, len(l)*len(x))
			for _, a := range l {
				for _, b := range x {
					next = append(next, a+b)
				}
			}
			l = next
		}
		return l, true
	}
	return nil, false
}

// isStartOrDot: (^|\.), (?:\A|\.), (\b|\.) and friends.
func isStartOrDot(re *syntax.Regexp) bool {
	if re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpAlternate {
		return false
	}
	for _, s := range re.Sub {
		switch s.Op {
		case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpWordBoundary:
		case syntax.OpLiteral:
			if string(s.Rune) != "." {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// literalHost returns l when it is a host name (letters, digits, dashes,
// dots; at least one dot, no empty label), lower-cased; a path after the
// host ("discord.com/api/webhooks") is not a host and is skipped.
func literalHost(l string) string {
	l = strings.ToLower(strings.TrimSuffix(l, "."))
	if !strings.Contains(l, ".") || len(l) > 253 {
		return ""
	}
	for _, lab := range strings.Split(l, ".") {
		if lab == "" || len(lab) > 63 {
			return ""
		}
		for i := 0; i < len(lab); i++ {
			c := lab[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return ""
			}
		}
	}
	return l
}
