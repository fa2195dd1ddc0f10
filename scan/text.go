package scan

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// MaxText is the most of one string Text reads. Beyond it Text reports
// scan.truncated at High: text that was not read is not clean.
const MaxText = 4 << 20

// MaxPerID bounds how many findings one indicator reports per string, so a
// text made of ten thousand zero-width spaces yields a finding, not a flood.
const MaxPerID = 16

// hit is a finding still in folded coordinates, before positions are
// resolved and context weighting applied.
type hit struct {
	Finding
	fa, fb int  // span in the folded text (-1 when found on the original)
	oa, ob int  // span in the original
	quoted bool // mention, not use
}

// Text runs every indicator over s. Line and Col refer to s as given.
func Text(s string, ctx Context) []Finding {
	return scanText(s, s, ctx, 0)
}

// scanText is Text with a recursion depth, for text found decoded inside
// text (base64), and with shown, the text as a person should see it in
// Match: s with identifier punctuation read as spaces must be the same
// length as shown, byte for byte.
func scanText(s, shown string, ctx Context, depth int) []Finding {
	var extra []Finding
	if len(s) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, shown = s[:cut], shown[:cut]
		extra = append(extra, Finding{
			ID: "scan.truncated", Category: Stealth, Severity: High, Line: 1, Col: 1,
			Explain: fmt.Sprintf("text longer than %d bytes; only the start was read", MaxText),
		})
	}
	f := fold(s)
	e := compiled()
	hits := e.match(s, f)
	feed := activeFeed.Load()
	if feed != nil {
		hits = feed.match(s, f, hits)
	}
	if !f.plain {
		hits = append(hits, hiddenChars(s)...)
		if hasControl(s) {
			hits = append(hits, ansiSequences(s)...)
		}
	}
	hits = append(hits, hiddenBlocks(s, f, hits)...)
	if depth == 0 {
		hits = append(hits, base64Blobs(s)...)
	}
	if feed != nil {
		feed.raiseHits(hits) // the stealth detectors' hits too
	}
	if len(hits) == 0 && extra == nil {
		return nil
	}
	lines := NewLineIndex(shown)
	paras := newParaIndex(shown)
	out := make([]Finding, 0, len(hits)+len(extra))
	count := map[string]int{}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.oa - b.oa })
	type span struct {
		id     string
		oa, ob int
	}
	same := map[span]bool{}
	for _, h := range hits {
		// Two parts of one pattern can grow to the same text
		// (".ssh" and "id_rsa" both to "~/.ssh/id_rsa"): one finding.
		k := span{h.ID, h.oa, h.ob}
		if same[k] {
			continue
		}
		same[k] = true
		if count[h.ID]++; count[h.ID] > MaxPerID {
			continue
		}
		fd := h.Finding
		fd.off, fd.end = h.oa, h.ob
		fd.Line, fd.Col = lines.Pos(h.oa)
		fd.para = paras.of(h.oa)
		if fd.Match == "" {
			fd.Match = clip(shown[h.oa:h.ob], maxMatch)
		}
		if down := ctx.weighsDown(fd.Category); down || h.quoted {
			fd.Severity = weighDown(fd.Severity)
			if h.quoted && !down {
				fd.Explain += " (quoted as an example)"
			}
		}
		if fd.Category != Stealth {
			if hidden := tagText(s[h.oa:h.ob]); hidden != "" {
				fd.Explain += fmt.Sprintf(" (hidden in Unicode tag characters: %q)", clip(hidden, 80))
			} else if strings.ContainsFunc(s[h.oa:h.ob], textsafe.Invisible) {
				fd.Explain += " (split by invisible characters)"
			}
		}
		out = append(out, fd)
	}
	return append(out, extra...)
}

// weighDown is the Prose/Code weighting: the same indicator, one step
// lower, never above Med.
func weighDown(s Severity) Severity {
	switch s {
	case High:
		return Med
	case Med:
		return Low
	}
	return s
}

// match runs the regex indicators whose anchor words occur in the text.
func (e *engine) match(src string, f folded) []hit {
	mask := e.candidates(f.s)
	if mask == 0 {
		return nil
	}
	var hits []hit
	var ws *wordStarts // built for the first part that starts a word
	for i := range e.rules {
		if mask&(1<<i) == 0 {
			continue
		}
		r := &e.rules[i]
		var spans [][2]int
		if r.find != nil {
			spans = r.find(f.s)
		}
		for _, p := range r.parts() {
			if ws == nil && p.wordStart && len(f.s) <= math.MaxInt32 {
				ws = newWordStarts(f.s)
			}
			spans = p.find(f.s, r.notAfter, spans, ws)
		}
		for _, sp := range spans {
			a, b := sp[0], sp[1]
			for r.extend != "" && a > 0 && strings.IndexByte(r.extend, f.s[a-1]) >= 0 {
				a--
			}
			if r.negatable && strings.HasPrefix(f.s[a:b], "without") && negatedBefore(f.s, a) {
				continue
			}
			oa, ob := f.orig(src, a, b)
			sev := r.sev
			if r.adjust != nil {
				var ok bool
				if sev, ok = r.adjust(f.s[a:b], src[oa:ob], sev); !ok {
					continue
				}
			}
			hits = append(hits, hit{
				Finding: Finding{ID: r.id, Category: r.cat, Severity: sev, Explain: r.explain},
				fa:      a, fb: b, oa: oa, ob: ob,
				quoted: r.quotable && quotedMention(f.s, a, b),
			})
		}
	}
	return dropSuperseded(hits)
}

// negatedBefore reports whether the sentence before position a (in
// folded text) holds a negation: "never", "do not", "don't", "must not".
func negatedBefore(s string, a int) bool {
	start := max(0, a-160)
	if i := strings.LastIndexAny(s[start:a], ".!?\n;"); i >= 0 {
		start += i + 1
	}
	seg := " " + s[start:a]
	for _, neg := range []string{" never ", " do not ", " don't ", " dont ", " must not ", " mustn't ", " should not ", " shouldn't ", " no "} {
		if strings.Contains(seg, neg) {
			return true
		}
	}
	return false
}

// matchWindow bounds how far one match may run from where it starts.
// The anchored regexp is run on this window, not the rest of the text, so
// each attempt costs the same however long the text is.
const matchWindow = 1024

// find appends the part's matches in s to spans, at most MaxPerID, each
// starting at a word boundary when the pattern began with \b and never
// right after a byte in notAfter. Candidates are found by the literal
// prefix (among the text's word starts, ws, when the part starts a word;
// else with a substring search); the regexp then runs anchored there.
func (p part) find(s, notAfter string, spans [][2]int, ws *wordStarts) [][2]int {
	if p.lit == "" {
		if !p.re.ready() && !exhaustive && !p.mayMatch(s) {
			return spans
		}
		for _, m := range p.re.get().FindAllStringIndex(s, MaxPerID) {
			if m[0] == 0 || strings.IndexByte(notAfter, s[m[0]-1]) < 0 {
				spans = append(spans, [2]int{m[0], m[1]})
			}
		}
		return spans
	}
	// A part that starts a word with a word byte can only start where a
	// word does: its candidates are those of ws that spell its literal,
	// the same positions, in the same order, as the substring search
	// leaves once it has dropped those inside a word.
	var starts []int32
	byWord := ws != nil && p.wordStart && isWordByte(p.lit[0]) && !exhaustive
	if byWord {
		starts = ws.of(p.lit[0])
	}
	budget := 4*len(s) + 1<<15 // bytes the anchored attempts may examine
	checks := 0
	for from, n := 0, 0; from < len(s) && n < MaxPerID; {
		var a int
		if byWord {
			for len(starts) > 0 && (int(starts[0]) < from || !strings.HasPrefix(s[starts[0]:], p.lit)) {
				starts = starts[1:]
			}
			if len(starts) == 0 {
				break
			}
			a = int(starts[0])
			starts = starts[1:]
		} else {
			i := strings.Index(s[from:], p.lit)
			if i < 0 {
				break
			}
			a = from + i
		}
		from = a + 1
		if a > 0 && ((p.wordStart && isWordByte(s[a-1]) && isWordByte(s[a])) || strings.IndexByte(notAfter, s[a-1]) >= 0) {
			continue
		}
		window := s[a:min(len(s), a+matchWindow)]
		if budget -= len(window); budget < 0 {
			// Too many candidates: one linear-time pass over the rest.
			for _, m := range p.whole().FindAllStringIndex(s[a:], MaxPerID-n) {
				if b := a + m[0]; b == 0 || strings.IndexByte(notAfter, s[b-1]) < 0 {
					spans = append(spans, [2]int{b, a + m[1]})
				}
			}
			break
		}
		// Until the part is compiled, a window without its needs costs
		// neither the compilation nor the attempt; once it is, the
		// anchored attempt fails sooner than the needs' search, and
		// after maxNeedChecks windows so does compiling it.
		if !exhaustive && !p.headOK(window) {
			continue
		}
		if !p.re.ready() && checks < maxNeedChecks && !exhaustive {
			checks++
			if !p.mayMatch(window) {
				continue
			}
		}
		m := p.re.get().FindStringIndex(window)
		if m == nil {
			continue
		}
		spans = append(spans, [2]int{a, a + m[1]})
		n++
		from = max(a+m[1], a+1)
	}
	return spans
}

// exhaustive turns the candidates' prefilters off (the word starts and
// the needs): the tests compare what the engine finds with and without.
var exhaustive = false

// maxNeedChecks is how many windows of one text the needs are searched
// in before the part is compiled instead: each search reads the window
// once per need, about what compiling a part costs after a few.
const maxNeedChecks = 4

// wordStarts are the positions of a text where a word starts (a word
// byte at the start of the text or after a byte that is not one), by
// their first byte, in order: one pass over the text, instead of a
// substring search of the whole text for each of a rule's alternatives.
type wordStarts struct {
	at  [257]int32 // pos[at[c]:at[c+1]] start with c
	pos []int32
}

func newWordStarts(s string) *wordStarts {
	w := &wordStarts{}
	var count [256]int32
	prev := false
	for i := 0; i < len(s); i++ {
		word := wordByte[s[i]]
		if word && !prev {
			count[s[i]]++
		}
		prev = word
	}
	for c := 0; c < 256; c++ {
		w.at[c+1] = w.at[c] + count[c]
	}
	w.pos = make([]int32, w.at[256])
	next := w.at
	prev = false
	for i := 0; i < len(s); i++ {
		word := wordByte[s[i]]
		if word && !prev {
			w.pos[next[s[i]]] = int32(i)
			next[s[i]]++
		}
		prev = word
	}
	return w
}

// wordByte is isWordByte by table.
var wordByte = func() (t [256]bool) {
	for c := range t {
		t[c] = isWordByte(byte(c))
	}
	return t
}()

// of is the word starts whose first byte is c.
func (w *wordStarts) of(c byte) []int32 { return w.pos[w.at[c]:w.at[int(c)+1]] }

// mayMatch reports whether s holds one string of each of the part's
// needs: a match (which lies inside s) contains them, so without them
// there is none to look for.
func (p part) mayMatch(s string) bool {
	for _, any := range p.needs {
		found := false
		for _, n := range any {
			if strings.Contains(s, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// dropSuperseded removes general hits covered by a specific one.
func dropSuperseded(hits []hit) []hit {
	out := hits[:0]
	for i, h := range hits {
		covered := false
		for _, id := range supersededBy(h.ID) {
			for j, o := range hits {
				if j != i && o.ID == id && o.oa <= h.oa && h.ob <= o.ob {
					covered = true
				}
			}
		}
		if !covered {
			out = append(out, h)
		}
	}
	return out
}

// quotedMention reports whether folded[a:b] sits inside quotes in a
// sentence that talks about such text ("detects phrases like '…'"), which
// is how documentation and security tools mention an attack without
// performing it.
func quotedMention(s string, a, b int) bool {
	open := -1
	for i := a - 1; i >= 0 && i >= a-120; i-- {
		c := s[i]
		if c == '\n' {
			return false
		}
		if n := quoteLen(s, i); n > 0 && !apostrophe(s, i, n) {
			if i == 0 || !isWordByte(s[i-1]) {
				open = i
			}
			break
		}
	}
	if open < 0 {
		return false
	}
	closed := false
	for i := b; i < len(s) && i < b+200; i++ {
		c := s[i]
		if c == '\n' {
			return false
		}
		if n := quoteLen(s, i); n > 0 && !apostrophe(s, i, n) {
			closed = i+n >= len(s) || !isWordByte(s[i+n])
			break
		}
	}
	if !closed {
		return false
	}
	lo := max(0, open-160)
	if nl := strings.LastIndexByte(s[lo:open], '\n'); nl >= 0 {
		lo += nl + 1
	}
	return mentionCue().MatchString(s[lo:open])
}

var mentionCue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:detect\w*|flag\w*|scan\w*|such\s+as|e\.g|for\s+example|examples?|like|phrases?|patterns?|strings?|attacks?|injections?|jailbreaks?|classif\w*|catch\w*|recogni\w*|identif\w*|block\w*|warns?\s+about|looks?\s+for|contain\w*|includ\w*)\b`)
})

// quoteLen returns the byte length of a quote character at s[i], or 0.
func quoteLen(s string, i int) int {
	switch s[i] {
	case '\'', '"':
		return 1
	}
	if s[i] < utf8.RuneSelf {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '“', '”', '‘', '’', '«', '»', '„':
		return n
	}
	return 0
}

// apostrophe: a quote between two letters is part of a word (don't, it's).
func apostrophe(s string, i, n int) bool {
	return i > 0 && isWordByte(s[i-1]) && i+n < len(s) && isWordByte(s[i+n])
}

func isWordByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_'
}

// LineIndex turns byte offsets into 1-based line and rune column, the
// positions a Finding reports. The file scanner places what it finds in
// an agent config with it, so its findings count columns as Text does.
type LineIndex struct {
	s      string
	starts []int
}

// NewLineIndex indexes the lines of s.
func NewLineIndex(s string) LineIndex {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return LineIndex{s: s, starts: starts}
}

// Pos is the 1-based line and rune column of byte offset off (clamped
// to the text).
func (l LineIndex) Pos(off int) (line, col int) {
	off = min(max(off, 0), len(l.s))
	n, _ := slices.BinarySearch(l.starts, off+1)
	// starts[n-1] <= off < starts[n]
	start := l.starts[n-1]
	return n, utf8.RuneCountInString(l.s[start:off]) + 1
}

// Offset is the byte offset where 1-based line starts (the end of the
// text past the last line).
func (l LineIndex) Offset(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(l.starts) {
		return len(l.s)
	}
	return l.starts[line-1]
}

// paraIndex numbers paragraphs: runs of text between blank lines.
type paraIndex []int // offsets where a paragraph after the first starts

func newParaIndex(s string) paraIndex {
	var p paraIndex
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		k := i + j + 1
		// a line holding only white space ends the paragraph
		e := k
		for e < len(s) && (s[e] == ' ' || s[e] == '\t' || s[e] == '\r') {
			e++
		}
		if e < len(s) && s[e] == '\n' {
			p = append(p, e+1)
		}
		i = k
	}
	return p
}

func (p paraIndex) of(off int) int {
	n, _ := slices.BinarySearch(p, off+1)
	return n + 1
}
