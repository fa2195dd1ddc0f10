package scan

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/tidwall/gjson"
)

// acts is what the cheap pass must never skip: a text the full scan
// changes (instructions, hidden text, control sequences) or that taints.
func acts(s string) bool {
	r := readWhole(s)
	return r.Changed() || r.Taints
}

// cheapMisses reports how the cheap pass fails a text the full scan acts
// on: skipped as text, or quiet as a JSON string's content.
func cheapMisses(s string) string {
	if !mayCarry(s) {
		return "the cheap pass skips it"
	}
	if b, err := json.Marshal(s); err == nil && QuietJSON(string(b[1:len(b)-1])) {
		return "quiet as JSON"
	}
	return ""
}

// resultCorpora are the injection and ordinary corpora as the strings a
// result carries: whole files, their paragraphs and lines, and every
// string (and key) of the JSON ones.
func resultCorpora(t testing.TB) (attack, ordinary []string) {
	t.Helper()
	read := func(root string, into *[]string) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := string(b)
			*into = append(*into, s)
			*into = append(*into, strings.Split(s, "\n\n")...)
			*into = append(*into, strings.Split(s, "\n")...)
			if gjson.Valid(s) {
				var walk func(v gjson.Result)
				walk = func(v gjson.Result) {
					switch {
					case v.Type == gjson.String:
						*into = append(*into, v.Str)
					case v.IsObject() || v.IsArray():
						v.ForEach(func(k, x gjson.Result) bool {
							if k.Type == gjson.String {
								*into = append(*into, k.Str)
							}
							walk(x)
							return true
						})
					}
				}
				walk(gjson.Parse(s))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{"testdata/text", "testdata/poisoned", "../testdata/scan/poisoned", "../testdata/scan/clean"} {
		read(root, &attack)
	}
	more, _ := filepath.Glob("../testdata/corpus/*.txt")
	for _, p := range more {
		read(p, &attack)
	}
	for _, root := range []string{"secret/testdata/benign", "../mcpproxy/testdata/results"} {
		read(root, &ordinary)
	}
	return attack, ordinary
}

// variants are spellings of s the engine reads as s (or nearly): case,
// emphasis, white space, entities, quote markers, and s inside ordinary
// text.
func variants(s string) []string {
	title := []rune(strings.ToLower(s))
	for i := range title {
		if i == 0 || title[i-1] == ' ' {
			title[i] = unicode.ToUpper(title[i])
		}
	}
	var ent strings.Builder
	for i, c := range s {
		if i%7 == 0 && c < 0x80 && c > ' ' {
			fmt.Fprintf(&ent, "&#%d;", c)
			continue
		}
		ent.WriteRune(c)
	}
	pad := strings.Repeat("func main() { fmt.Println(\"ok\") } // 2026-12-04 INFO sha256:9f86d081884c7d65\n", 8)
	return []string{
		strings.ToUpper(s), string(title),
		strings.ReplaceAll(s, " ", "\n"), strings.ReplaceAll(s, " ", "  \t"), strings.ReplaceAll(s, " ", "\r\n> "),
		strings.ReplaceAll(s, " ", " **"), strings.ReplaceAll(s, " ", " _"),
		ent.String(),
		pad + s + pad, "> " + s,
	}
}

// TestCheapPassFlagsWhatTheFullScanActsOn is the differential test of the
// cheap pass: over the injection and ordinary corpora and spellings of
// each text the full scan acts on (variants), whatever the full scan
// changes or taints on, the cheap pass sends to it, as text and as JSON
// string content.
func TestCheapPassFlagsWhatTheFullScanActsOn(t *testing.T) {
	attack, ordinary := resultCorpora(t)
	acted, checked := 0, 0
	for _, s := range append(attack, ordinary...) {
		if !acts(s) {
			continue
		}
		acted++
		for _, v := range append([]string{s}, variants(s)...) {
			if v != s && !acts(v) {
				continue
			}
			checked++
			if why := cheapMisses(v); why != "" {
				t.Errorf("%s, but the full scan acts on it: %q", why, clip(v, 240))
			}
		}
	}
	if acted < 200 {
		t.Fatalf("only %d texts of the corpora are acted on: the test reads the wrong files", acted)
	}
	t.Logf("%d texts acted on, %d spellings checked, none skipped", acted, checked)
}

// The ordinary results the proxy's cost budget is measured on (10 KB of
// source, a log, a PNG as a data URI) take the cheap pass alone: a
// needle that sends one of them to the full scan costs the budget ten
// times over.
func TestCheapPassSendsOrdinaryResultsOnTheirWay(t *testing.T) {
	for _, name := range []string{"source-go.json", "log-digests.json", "image-data-uri.json", "source-python.json", "json-structured.json", "markdown-readme.json"} {
		b, err := os.ReadFile(filepath.Join("../mcpproxy/testdata/results", name))
		if err != nil {
			t.Fatal(err)
		}
		ReadAnswer(string(b), func(AnswerString) { t.Errorf("%s: an ordinary result changed or tainted", name) })
		var loud []string
		jsonEach(string(b), func(inner string) {
			if !QuietJSON(inner) {
				loud = append(loud, clip(inner, 60))
			}
		})
		if len(loud) > 0 {
			t.Errorf("%s: %d strings go to the full scan: %q", name, len(loud), loud)
		}
	}
}

// jsonEach calls fn with the content (escapes as written) of every string
// of the JSON value raw.
func jsonEach(raw string, fn func(inner string)) {
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			fn(v.Raw[1 : len(v.Raw)-1])
		case v.IsObject() || v.IsArray():
			v.ForEach(func(_, x gjson.Result) bool { walk(x); return true })
		}
	}
	walk(gjson.Parse(raw))
}

// naiveMarks is what the needles mean in the folded text t, found by
// comparing every needle at every place: the reference find is held to.
func naiveMarks(t []byte) uint {
	var found uint
	for _, nd := range resultNeedleList() {
		for i := 0; i+len(nd.n) <= len(t); i++ {
			if string(t[i:i+len(nd.n)]) != nd.n {
				continue
			}
			if nd.at != atAny && (i > 0 && foldedWord(t[i-1])) != (nd.at == atGlued) {
				continue
			}
			if len(nd.n) == 3 && nd.after != 0 {
				next := byte(0)
				if i+3 < len(t) {
					next = t[i+3]
				}
				if foldedWord(next) != (nd.after == afterWord) {
					continue
				}
			}
			if nd.mark == hitDefault {
				if containsAny(t[max(0, i-40):i], defaultBefore) {
					found |= hitNeedle
				}
				continue
			}
			found |= nd.mark
		}
	}
	return found
}

// FuzzNeedleKeys: the needle set's keyed lookup (a bitmap of four-byte
// keys at even offsets, short needles keyed by the neighbours they can
// have, long ones where they are rarest) finds every needle a plain
// comparison finds, on the folded text of any input; and whatever the
// full scan acts on, the cheap pass sends to it (as text and as JSON).
// Seeded with the corpora's files and the needles themselves.
func FuzzNeedleKeys(f *testing.F) {
	attack, _ := resultCorpora(f)
	for _, s := range attack {
		if len(s) <= 4096 && acts(s) {
			f.Add(s)
		}
	}
	for _, nd := range resultNeedleList() {
		f.Add("x " + nd.n + " y")
		f.Add(nd.n)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		buf := make([]byte, len(s)+quadPad)
		lower, stop := foldCheap(s, buf, false)
		if !stop {
			n := len(lower)
			p := lower[:n+quadPad]
			clear(p[n:])
			want, got := naiveMarks(lower), resultNeedleSet().find(p, n)
			if miss := want &^ got; miss != 0 {
				t.Fatalf("the keyed lookup misses marks %b of %q (folded %q)", miss, s, lower)
			}
		}
		if acts(s) {
			if why := cheapMisses(s); why != "" {
				t.Fatalf("%s, but the full scan acts on it: %q", why, s)
			}
		}
	})
}
