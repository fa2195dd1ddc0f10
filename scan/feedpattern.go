package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compileFeedPattern compiles a feed pattern and refuses what would make
// it useless or costly: a pattern over the size cap, one whose program is
// too large, one that can match the empty string (a finding at every
// position), and one with upper-case letters (the folded text has none,
// so it could never match them).
func compileFeedPattern(p string) (*feedPattern, error) {
	if len(p) > maxFeedPattern {
		return nil, fmt.Errorf("pattern is %d bytes, over the cap of %d", len(p), maxFeedPattern)
	}
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression: %w", err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("pattern: %w", err)
	}
	if len(prog.Inst) > maxFeedProgram {
		return nil, fmt.Errorf("pattern compiles to %d instructions, over the cap of %d (counted repeats multiply the size)", len(prog.Inst), maxFeedProgram)
	}
	if canBeEmpty(tree) {
		return nil, errors.New("pattern can match the empty string")
	}
	if r, ok := upperLiteral(tree); ok {
		return nil, fmt.Errorf("pattern has the upper-case letter %q, but it runs on lower-cased text; write it in lower case", r)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression: %w", err)
	}
	return &feedPattern{re: re, needles: needles(tree), size: len(prog.Inst)}, nil
}

// needles returns strings of which every match of re contains at least
// one, or nil when it finds no such set. A wrong set would hide matches,
// so every case is conservative: a case-insensitive literal counts only
// when it is ASCII (the folded text is lower case, and NFKC has already
// turned the Kelvin sign and long s into k and s).
func needles(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if s == "" {
			return nil
		}
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if r >= utf8.RuneSelf {
					return nil
				}
			}
			s = strings.ToLower(s)
		}
		return []string{s}
	case syntax.OpCapture, syntax.OpPlus:
		return needles(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needles(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part must match: the part with the longest needles wins.
		var best []string
		for _, sub := range re.Sub {
			if n := needles(sub); n != nil && (best == nil || shortest(n) > shortest(best)) {
				best = n
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			n := needles(sub)
			if n == nil {
				return nil
			}
			all = append(all, n...)
		}
		if len(all) > 32 {
			return nil
		}
		return all
	}
	return nil
}

func shortest(ss []string) int {
	n := len(ss[0])
	for _, s := range ss[1:] {
		n = min(n, len(s))
	}
	return n
}

// canBeEmpty reports whether re matches an empty string somewhere:
// assertions such as \b are taken to hold.
func canBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpPlus, syntax.OpCapture:
		return canBeEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || canBeEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	}
	return true // empty match, ^ $ \A \z \b \B
}

func upperLiteral(re *syntax.Regexp) (rune, bool) {
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 {
		for _, r := range re.Rune {
			if unicode.IsUpper(r) {
				return r, true
			}
		}
	}
	for _, s := range re.Sub {
		if r, ok := upperLiteral(s); ok {
			return r, true
		}
	}
	return 0, false
}

// decodeStrict decodes one JSON value, refusing unknown fields (there is
// no "disabled" to smuggle in), keys encoding/json would take although a
// reader of the feed would not (see exactKeys) and anything after the
// value.
func decodeStrict(b []byte, v any) error {
	if err := exactKeys(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// exactKeys refuses a key given twice in one object, or not in lower-case
// ASCII: encoding/json keeps the last of two keys and matches them without
// regard to case, Unicode folding included, so {"severity": "high",
// "Severity": "med"} (or "ſeverity", with a long s) would be read as med
// by Airlock and as high by a person reviewing the feed. The
// error names the key's path and its line (and the line of the first).
func exactKeys(b []byte) error {
	type level struct {
		keys    map[string]int // key → its line; nil in an array
		wantKey bool
		path    string // of this object or array
		key     string // the key whose value is read next
		index   int    // of the next item, in an array
	}
	var stack []level
	lineAt := lineCounter(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	// child is the path of the value about to be read
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		l := &stack[len(stack)-1]
		if l.keys == nil {
			l.index++
			return fmt.Sprintf("%s[%d]", l.path, l.index-1)
		}
		if l.path == "" {
			return l.key
		}
		return l.path + "." + l.key
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top := len(stack) - 1
		if t, ok := tok.(string); ok && top >= 0 && stack[top].keys != nil && stack[top].wantKey {
			line := lineAt(dec.InputOffset())
			path := clip(t, 40)
			if p := stack[top].path; p != "" {
				path = p + "." + path
			}
			if first, dup := stack[top].keys[t]; dup {
				return fmt.Errorf("line %d: key %q repeated (first at line %d); remove one", line, path, first)
			}
			if !lowerASCII(t) {
				// not only case: encoding/json folds Unicode too, so
				// "ſeverity" (a long s) is read as "severity"
				return fmt.Errorf("line %d: key %q is not in lower case: every key of a feed is lower-case ASCII", line, path)
			}
			stack[top].keys[t] = line
			stack[top].key = clip(t, 40)
			stack[top].wantKey = false
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:top]
			top--
		} else if ok {
			path := child()
			if d == '{' {
				stack = append(stack, level{keys: map[string]int{}, wantKey: true, path: path})
			} else {
				stack = append(stack, level{path: path})
			}
			continue
		} else {
			child()
		}
		if top >= 0 && stack[top].keys != nil {
			stack[top].wantKey = true // a value was read: a key comes next
		}
	}
}

// lowerASCII says every byte of key is a lower-case ASCII letter, a digit
// or '_', as every key of a feed is: no two such keys fold to one.
func lowerASCII(key string) bool {
	for _, c := range []byte(key) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// lineCounter returns the line of an offset into b, for offsets that only
// grow (as a decoder reads on).
func lineCounter(b []byte) func(off int64) int {
	line, at := 1, 0
	return func(off int64) int {
		end := min(int(off), len(b))
		if end > at {
			line += bytes.Count(b[at:end], []byte{'\n'})
			at = end
		}
		return line
	}
}

// match raises the bundled hits the feed raises and adds the hits of its
// patterns. Patterns run on the whole folded text (RE2 is linear), once
// one of their needles is found in it.
func (f *Feed) match(src string, fs folded, hits []hit) []hit {
	f.raiseHits(hits)
	for i := range f.rules {
		r := &f.rules[i]
		if !r.mayMatch(fs.s) {
			continue
		}
		for _, m := range r.re.FindAllStringIndex(fs.s, MaxPerID) {
			oa, ob := fs.orig(src, m[0], m[1])
			hits = append(hits, hit{
				Finding: Finding{ID: r.id, Category: r.cat, Severity: r.sev, Explain: r.explain},
				fa:      m[0], fb: m[1], oa: oa, ob: ob,
				quoted: r.quotable && quotedMention(fs.s, m[0], m[1]),
			})
		}
	}
	return hits
}

func (r *feedRule) mayMatch(s string) bool {
	if r.needles == nil {
		return true
	}
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// raiseHits applies raised severities, before context weighting.
func (f *Feed) raiseHits(hits []hit) {
	if len(f.raise) == 0 {
		return
	}
	for i := range hits {
		if s, ok := f.raise[hits[i].ID]; ok && s > hits[i].Severity {
			hits[i].Severity = s
		}
	}
}
