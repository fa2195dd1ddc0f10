package scan

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Risk is the overall severity of a set of findings. It is the strongest
// single finding, raised to High by combinations that show intent even when
// each part alone is only Med:
//
//   - a credential named together with somewhere to send it (secret and
//     exfiltration), or any mention of secrets next to a known collector;
//   - an <IMPORTANT>-style block that names a credential;
//   - instructions about other tools or about a step before the call,
//     next to a credential or an exfiltration.
//
// Combinations count only findings at Med or above (the collector one
// excepted), so text weighted down as Prose or Code never combines into
// High. Findings from Tool combine per tool (Finding.Tool), findings from
// Text across the whole set.
func Risk(fs []Finding) Severity {
	r := None
	for _, v := range judge(fs) {
		r = max(r, v.sev)
	}
	return r
}

// Poisoned reports whether the findings amount to High risk and, if so, a
// short reason naming the strongest evidence, e.g.
// `tool "add": <IMPORTANT> block instructing the model; names ~/.ssh/id_rsa`.
func Poisoned(fs []Finding) (bool, string) {
	var reasons []string
	high := 0
	for _, v := range judge(fs) {
		if v.sev < High {
			continue
		}
		high++
		if len(reasons) < 2 {
			reasons = append(reasons, v.reason())
		}
	}
	if high == 0 {
		return false, ""
	}
	if high > len(reasons) {
		reasons = append(reasons, fmt.Sprintf("and %d more tools", high-len(reasons)))
	}
	return true, strings.Join(reasons, "; ")
}

type verdict struct {
	tool     string
	sev      Severity
	evidence []Finding
}

func judge(fs []Finding) []*verdict {
	var order []*verdict
	byTool := map[string][]Finding{}
	for _, f := range fs {
		if _, ok := byTool[f.Tool]; !ok {
			order = append(order, &verdict{tool: f.Tool})
		}
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}
	for _, v := range order {
		v.assess(byTool[v.tool])
	}
	return order
}

func (v *verdict) assess(fs []Finding) {
	var blocks, secrets, secretsAny, exfils, collectors, steers []*Finding
	var high []Finding
	for i := range fs {
		f := &fs[i]
		v.sev = max(v.sev, f.Severity)
		if f.Severity == High {
			high = append(high, *f)
		}
		if f.Category == Secret {
			secretsAny = append(secretsAny, f)
		}
		if f.Severity < Med {
			continue
		}
		switch {
		case f.ID == "inject.important-block":
			blocks = append(blocks, f)
		case f.ID == "inject.shadow" || f.ID == "inject.precall":
			steers = append(steers, f)
		case f.Category == Secret:
			secrets = append(secrets, f)
		case f.ID == "exfil.collector":
			collectors = append(collectors, f)
			exfils = append(exfils, f)
		case f.Category == Exfiltration:
			exfils = append(exfils, f)
		}
	}
	var combo []*Finding
	if a, b := pair(secrets, exfils); a != nil {
		combo = []*Finding{a, b}
	} else if a, b := pair(collectors, secretsAny); a != nil {
		combo = []*Finding{a, b}
	} else if a, b := pair(blocks, secrets); a != nil {
		combo = []*Finding{a, b}
	} else if a, b := pair(steers, append(slices.Clone(secrets), exfils...)); a != nil {
		combo = []*Finding{a, b}
	}
	block, secret := firstOf(blocks), firstOf(secrets)
	if len(combo) == 2 && combo[0].ID == "inject.important-block" {
		block = combo[0]
	}
	if combo != nil {
		v.sev = High
	}
	if v.sev < High {
		return
	}
	// Evidence, strongest first: the block that frames the attack, what
	// is High on its own, then the parts of the combination.
	if block != nil {
		v.evidence = append(v.evidence, *block)
	}
	slices.SortStableFunc(high, func(a, b Finding) int {
		return cmp.Compare(hidingFirst(a), hidingFirst(b))
	})
	v.evidence = append(v.evidence, high...)
	for _, f := range combo {
		v.evidence = append(v.evidence, *f)
	}
	if secret != nil {
		v.evidence = append(v.evidence, *secret)
	}
}

// comboLines is how close, in lines, two findings of plain text must sit
// to combine when their paragraphs are not known. A credential and a
// destination in one paragraph are one instruction; "never commit .env"
// in one section and "send the changelog to releases@…" in another are
// two. Findings of a tool definition combine wherever they sit in the
// tool.
const comboLines = 6

// pair returns the first a in as and b in bs that sit near each other.
func pair(as, bs []*Finding) (*Finding, *Finding) {
	for _, a := range as {
		for _, b := range bs {
			if near(a, b) {
				return a, b
			}
		}
	}
	return nil, nil
}

func near(a, b *Finding) bool {
	switch {
	case a.Tool != "" || a.Field != "" || b.Tool != "" || b.Field != "":
		return true
	case a.para > 0 && b.para > 0:
		return a.para == b.para || (abs(a.Line-b.Line) <= 2 && abs(a.para-b.para) <= 1)
	}
	return abs(a.Line-b.Line) <= comboLines
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func firstOf(fs []*Finding) *Finding {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

func hidingFirst(f Finding) int {
	if f.Category == Stealth {
		return 0
	}
	return 1
}

// reason renders a verdict as one line: the tool, then up to four
// distinct pieces of evidence.
func (v *verdict) reason() string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range v.evidence {
		// Text hidden in tag characters is already spelled out by the
		// stealth.tag-chars finding; its escaped matches add nothing.
		inTags := strings.Contains(f.Match, `\U000e00`) && f.Category != Stealth
		if seen[f.ID] || len(parts) == 4 || (inTags && seen["stealth.tag-chars"]) {
			continue
		}
		seen[f.ID] = true
		parts = append(parts, label(f))
	}
	s := strings.Join(parts, "; ")
	if v.tool != "" {
		return fmt.Sprintf("tool %q: %s", v.tool, s)
	}
	return s
}

var stealthLabels = [...][2]string{
	{"stealth.bidi", "bidi control characters reorder the text"},
	{"stealth.zero-width", "zero-width characters inside words"},
	{"stealth.html-comment", "instructions hidden in an HTML comment"},
	{"stealth.details", "instructions folded away in a <details> block"},
	{"stealth.ansi", "terminal control sequences hide or rewrite what a person sees"},
}

func label(f Finding) string {
	m := f.Match
	if strings.Contains(m, `\U000e00`) {
		m = "hidden: " + untag(m)
	}
	if utf8.RuneCountInString(m) > 48 {
		m = string([]rune(m)[:47]) + "…"
	}
	switch f.ID {
	case "stealth.tag-chars", "stealth.base64", "scan.unreadable", "scan.truncated", "inject.native-name":
		return f.Explain
	}
	for _, l := range stealthLabels {
		if l[0] == f.ID {
			return l[1]
		}
	}
	for _, r := range rules {
		if r.id == f.ID {
			if strings.Contains(r.label, "%s") {
				return fmt.Sprintf(r.label, m)
			}
			return r.label
		}
	}
	return f.ID + " " + m
}

// untag turns escaped tag characters in a Match (\U000e0049) back into the
// ASCII they stand for, so a reason shows what was hidden.
func untag(m string) string {
	var b strings.Builder
	for i := 0; i < len(m); {
		if strings.HasPrefix(m[i:], `\U000e00`) && i+10 <= len(m) {
			if c, err := strconv.ParseUint(m[i+8:i+10], 16, 8); err == nil && c >= 0x20 && c < 0x7f {
				b.WriteByte(byte(c))
				i += 10
				continue
			}
		}
		b.WriteByte(m[i])
		i++
	}
	return b.String()
}

// Combined turns a combination that raises the file (or one tool of a
// snapshot) to High — a credential with somewhere to send it, an
// <IMPORTANT> block naming a credential, steering with a secret — into a
// finding of its own, so "any finding at high" and "risk high" agree. It
// sits where the first part of the combination sits. The file scanner
// appends these to a file's findings before scoring it.
func Combined(fs []Finding) []Finding {
	var out []Finding
	for _, v := range judge(fs) {
		if v.sev < High || len(v.evidence) == 0 {
			continue
		}
		alreadyHigh := false
		for _, f := range fs {
			if f.Tool == v.tool && f.Severity == High {
				alreadyHigh = true
				break
			}
		}
		if alreadyHigh {
			continue
		}
		at := v.evidence[0]
		for _, e := range v.evidence {
			if e.Line < at.Line || (e.Line == at.Line && e.Col < at.Col) {
				at = e
			}
		}
		out = append(out, Finding{
			ID: "risk.combined", Category: at.Category, Severity: High, Line: at.Line, Col: at.Col,
			Match: at.Match, Field: at.Field, Tool: v.tool,
			Explain: "together these amount to an attack: " + strings.TrimPrefix(v.reason(), fmt.Sprintf("tool %q: ", v.tool)),
		})
	}
	return out
}
