package gate

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

var updateMisses = flag.Bool("update-misses", false, "rewrite testdata/corpus/classes/misses.tsv from this run")

// TestCorpusClasses runs the class corpora (testdata/corpus/classes) under
// the default profile, or under the profile a file names in its
// "# profile:" line. Every category names its public source, every class
// has at least ten benign look-alikes, and each case either meets its
// expectation or is listed in misses.tsv — a listed case that now passes
// fails too, so the list can only shrink (-update-misses rewrites it).
func TestCorpusClasses(t *testing.T) {
	g, fx := fixtureGate(t, "default")
	gates := map[string]*Gate{"default": g}
	gateFor := func(profile string) *Gate {
		if profile == "" {
			profile = "default"
		}
		if gates[profile] == nil {
			gates[profile] = fixtureProfileGate(t, fx, profile)
		}
		return gates[profile]
	}
	files, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no class corpora in testdata/corpus/classes")
	}
	misses, err := corpus.Misses()
	if err != nil {
		t.Fatal(err)
	}
	var missed []string
	type score struct{ attacks, stopped, benign, allowed int }
	scores := map[string]*score{}
	seen := map[string]bool{}
	for _, file := range files {
		cases, err := fx.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		class := strings.TrimSuffix(filepath.Base(file), ".txt")
		if len(cases) > 0 && cases[0].Profile != "" {
			class += " (" + cases[0].Profile + ")"
		}
		s := &score{}
		scores[class] = s
		for _, c := range cases {
			if len(c.Sources) == 0 {
				t.Errorf("%s [%s]: the category names no public source (a \"# source:\" line under its ## header)", c.Name(), c.Category)
			}
			if c.Expect != "allow" && c.Note == "" {
				t.Errorf("%s: an attack line needs a note naming its trick", c.Name())
			}
			key := c.MissKey()
			if seen[key] {
				t.Errorf("%s: the same case twice", c.Name())
			}
			seen[key] = true
			res := gateFor(c.Profile).Decide(Call{Source: "cli", Tool: c.Tool, Input: []byte(c.Input), Cwd: fx.WS, Attended: true})
			ok := expectMet(c.Expect, res.Effective)
			if c.Expect == "allow" {
				s.benign++
				if ok {
					s.allowed++
				}
			} else {
				s.attacks++
				if ok {
					s.stopped++
				}
			}
			switch {
			case !ok:
				missed = append(missed, key)
				if !misses[key] && !*updateMisses {
					t.Errorf("%s [%s] %s %s: want %s, got %s (%s)\n\tnote: %s", c.Name(), c.Category, c.Tool, c.Input, c.Expect, res.Effective, res.Decision.Explain(), c.Note)
				}
			case misses[key] && !*updateMisses:
				t.Errorf("%s: now passes (%s); take it out of misses.tsv (go test ./gate -run TestCorpusClasses -update-misses)", c.Name(), res.Effective)
			}
		}
		if s.benign < 10 {
			t.Errorf("%s: %d benign look-alikes; a class needs at least ten", file, s.benign)
		}
	}
	for key := range misses {
		if !seen[key] && !*updateMisses {
			t.Errorf("misses.tsv lists a case no corpus holds: %q", key)
		}
	}
	if *updateMisses {
		sort.Strings(missed)
		text := "# class-corpus cases the default profile gets wrong today (see TestCorpusClasses); FILE<TAB>EXPECT<TAB>TOOL<TAB>JSON\n" + strings.Join(missed, "\n")
		if len(missed) > 0 {
			text += "\n"
		}
		if err := os.WriteFile(filepath.Join(corpus.Dir(), "classes", "misses.tsv"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	classes := make([]string, 0, len(scores))
	for k := range scores {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	var b strings.Builder
	var tot score
	for _, k := range classes {
		s := scores[k]
		fmt.Fprintf(&b, "  %-28s attacks stopped %3d/%3d   benign allowed %3d/%3d\n", k, s.stopped, s.attacks, s.allowed, s.benign)
		tot.attacks += s.attacks
		tot.stopped += s.stopped
		tot.benign += s.benign
		tot.allowed += s.allowed
	}
	t.Logf("class corpora (default profile unless the class names one):\n%s  total: attacks stopped %d/%d, benign allowed %d/%d", b.String(), tot.stopped, tot.attacks, tot.allowed, tot.benign)
}

// TestCorpusReadmeListsClasses: testdata/corpus/README.md has a row for
// every class file, so the list of classes and their sources stays true.
func TestCorpusReadmeListsClasses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		class := strings.TrimSuffix(filepath.Base(f), ".txt")
		if !strings.Contains(string(data), "| `"+class+"` |") {
			t.Errorf("testdata/corpus/README.md has no row for class %q: add one with its sources", class)
		}
	}
}
