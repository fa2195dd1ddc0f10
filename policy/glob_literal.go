package policy

import "strings"

// literalMiss is an exact pre-check for matchPath: it reports true only
// when the brace-free pattern pat cannot match the absolute path p,
// because a literal segment of pat is not a segment of p (the last one is
// compared with p's last segment). It costs a scan of pat and a substring
// search, where matchPath would walk both; the shapes forbids are written
// in (**/<root>/**/<store>) are rejected here for almost every path.
func literalMiss(pat, p string) bool {
	if len(p) == 0 || p[0] != '/' {
		return false
	}
	// O(1) first: a pattern ending in a literal byte needs a path ending
	// in the same byte
	pe, se := len(pat)-1, len(p)-1
	for pe >= 0 && pat[pe] == '/' {
		pe--
	}
	for se >= 0 && p[se] == '/' {
		se--
	}
	if pe < 0 || se < 0 {
		return false
	}
	if c := pat[pe]; c != '*' && c != '?' {
		if c != p[se] {
			return true
		}
	} else if c == '?' || pe == 0 || pat[pe-1] != '*' {
		return false // a wildcard last segment: no cheap literal to check
	}
	last := lastSeg(pat)
	if last != "" && last != "**" && !hasWild(last) && last != lastSeg(p) {
		return true
	}
	// one more literal segment, the one before a trailing "**"
	if last == "**" {
		rest := strings.TrimRight(pat, "/")
		rest = strings.TrimRight(rest[:len(rest)-2], "/")
		seg := lastSeg(rest)
		if seg != "" && seg != "**" && !hasWild(seg) && !hasSegment(p, seg) {
			return true
		}
	}
	return false
}

// lastSeg returns the last non-empty segment of s.
func lastSeg(s string) string {
	s = strings.TrimRight(s, "/")
	return s[strings.LastIndexByte(s, '/')+1:]
}

// hasSegment reports whether seg is a whole segment of the path p.
func hasSegment(p, seg string) bool {
	for i := 0; ; {
		k := strings.Index(p[i:], seg)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(seg)
		if (k == 0 || p[k-1] == '/') && (end == len(p) || p[end] == '/') {
			return true
		}
		i = k + 1
	}
}

func hasWild(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '*' || s[i] == '?' {
			return true
		}
	}
	return false
}
