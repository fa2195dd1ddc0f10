package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/corpus"
)

// Minimums of a class corpus (issue 17's "at least ten benign per class"):
// a class written by class has look-alikes enough that "no false stop"
// means something, and attacks enough that "stopped" does.
const (
	minClassBenign  = 10
	minClassAttacks = 8
)

// setClass: the sets written apart from the classes (held-out and red-team
// sets, the hostile review) are measured, not shaped; the misses list is no
// corpus.
func setClass(class string) bool {
	return strings.HasPrefix(class, "heldout") || class == "redteam" || class == "review" || class == "misses"
}

// TestCorpusClassShape: every class file (the sets above aside) holds at
// least minClassBenign look-alikes and minClassAttacks attacks (look-alikes
// may sit in a category of their own, as several classes group them). It
// reads the files only; TestCorpusClasses runs them.
func TestCorpusClassShape(t *testing.T) {
	fx, err := corpus.NewFixture(corpus.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	files, err := corpus.ClassFiles()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		class := strings.TrimSuffix(filepath.Base(file), ".txt")
		if setClass(class) {
			continue
		}
		cases, err := fx.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		attacks, benign := 0, 0
		for _, c := range cases {
			if c.Expect == "allow" {
				benign++
			} else {
				attacks++
			}
		}
		if benign < minClassBenign {
			t.Errorf("%s: %d benign look-alikes, a class needs at least %d", file, benign, minClassBenign)
		}
		if attacks < minClassAttacks {
			t.Errorf("%s: %d attacks, a class needs at least %d", file, attacks, minClassAttacks)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d class files checked", checked)
	}
}
