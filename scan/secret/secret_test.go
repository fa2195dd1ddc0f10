package secret

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

type corpusCase struct {
	line   int
	kind   string // "keep" for a benign look-alike
	text   string // the input, markers removed
	secret string // the marked secret
}

// loadCorpus reads testdata/shapes.txt (see its header for the format).
func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/shapes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cs []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kind, text, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("shapes.txt:%d: no tab", n)
		}
		c := corpusCase{line: n, kind: kind, text: text}
		if kind != "keep" {
			pre, rest, ok1 := strings.Cut(text, "{{")
			sec, post, ok2 := strings.Cut(rest, "}}")
			if !ok1 || !ok2 || sec == "" {
				t.Fatalf("shapes.txt:%d: a %s case needs its secret in {{…}}", n, kind)
			}
			c.text, c.secret = pre+sec+post, sec
		}
		cs = append(cs, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestMaskCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range loadCorpus(t) {
		got := Mask(c.text)
		if c.kind == "keep" {
			if got != c.text {
				t.Errorf("shapes.txt:%d: a benign text was masked:\n in: %s\nout: %s", c.line, c.text, got)
			}
			continue
		}
		seen[c.kind] = true
		if strings.Contains(got, c.secret) {
			t.Errorf("shapes.txt:%d: %s left in place:\n%s", c.line, c.kind, got)
		}
		if !strings.Contains(got, "[masked "+c.kind) {
			t.Errorf("shapes.txt:%d: want a %s mask, got:\n%s", c.line, c.kind, got)
		}
		// The mask replaces the secret and nothing around it.
		pre, _, _ := strings.Cut(c.text, c.secret)
		if !strings.HasPrefix(got, pre) {
			t.Errorf("shapes.txt:%d: text before the secret changed:\n in: %s\nout: %s", c.line, c.text, got)
		}
		if again := Mask(got); again != got {
			t.Errorf("shapes.txt:%d: masking twice changed the text:\n%s\n%s", c.line, got, again)
		}
	}
	for _, s := range shapes() {
		if !seen[s.Kind] {
			t.Errorf("no corpus case for %s (add one to testdata/shapes.txt)", s.Kind)
		}
	}
}

func TestMaskTag(t *testing.T) {
	tok := "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO"
	want := "[masked github-token sha256:" + digest(tok) + "]"
	if got := Mask("token " + tok); got != "token "+want {
		t.Errorf("Mask = %q, want %q", got, "token "+want)
	}
	if len(digest(tok)) != 8 {
		t.Errorf("digest %q: want 8 hex digits", digest(tok))
	}
	// a password a person chose has no digest: 32 bits would confirm a guess
	if got := Mask("psql postgres://app:hunter2@db/app"); got != "psql postgres://app:[masked url-password]@db/app" {
		t.Errorf("url password: %q", got)
	}
	// a vendor token in a password-shaped context keeps its digest
	if got := Mask("GITHUB_TOKEN=" + tok); got != "GITHUB_TOKEN="+want {
		t.Errorf("assignment: %q", got)
	}
	// the same token masks the same way wherever it is, so two records can
	// be correlated; a different one differently
	other := "ghp_" + strings.Repeat("A", 36)
	if Mask(tok) == Mask(other) {
		t.Errorf("two tokens got one mask")
	}
}

func TestMaskRealNewlines(t *testing.T) {
	key := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5nMlDq\nAwEHoUQDQgAE\n-----END EC PRIVATE KEY-----"
	got := Mask("cat <<EOF > k\n" + key + "\nEOF\nchmod 600 k")
	if strings.Contains(got, "MHcCAQEE") || !strings.Contains(got, "[masked private-key sha256:") || !strings.HasSuffix(got, "\nEOF\nchmod 600 k") {
		t.Errorf("private key with newlines: %q", got)
	}
}

// TestMaskAdjacent: a secret exposed only once its neighbour is masked is
// masked too (Mask runs to a fixed point).
func TestMaskAdjacent(t *testing.T) {
	// rubygems_ keys are lower-case hex, so the key id glued to one is
	// not a word of its own until the key is masked
	in := "rubygems_165e4d74cbf5836c438bc25ee933184a6092feef606284a1AKIAEXDGE3HDKEATCIYJ"
	got := Mask(in)
	if strings.Contains(got, "AKIAEXDGE3HDKEATCIYJ") || strings.Contains(got, "165e4d74") {
		t.Errorf("adjacent secrets: %q", got)
	}
	if Mask(got) != got {
		t.Errorf("not idempotent: %q", got)
	}
}

func TestMaskCleanTextIsUntouched(t *testing.T) {
	s := strings.Repeat("go build ./... && git status ", 10)
	if got := Mask(s); got != s {
		t.Fatalf("clean text changed: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { Mask(s) }); n != 0 {
		t.Errorf("Mask of a clean text allocates %v times", n)
	}
}

// TestShapesDocumented keeps docs/secrets.md and the table in step: every
// kind is listed there.
func TestShapesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/secrets.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shapes() {
		if !strings.Contains(string(b), "`"+s.Kind+"`") {
			t.Errorf("docs/secrets.md does not list %s", s.Kind)
		}
		if s.Source == "" {
			t.Errorf("%s has no source", s.Kind)
		}
		for _, k := range s.Keywords {
			if k == "" || strings.ToLower(k) != k {
				t.Errorf("%s: keyword %q must be lower case and not empty", s.Kind, k)
			}
		}
	}
}

// TestKeywordsCoverMatches: the prefilter is only sound if every match of
// a rule contains one of its keywords. Each corpus secret's rule must have
// been a candidate on the secret's own text.
func TestKeywordsCoverMatches(t *testing.T) {
	tb := compiled()
	for i, r := range rules {
		re := regexp.MustCompile(r.pattern)
		for _, c := range loadCorpus(t) {
			for _, m := range re.FindAllString(c.text, -1) {
				if tb.candidates(m)&(1<<i) == 0 {
					t.Errorf("%s matched %q, which holds none of its keywords %v", r.kind, m, r.keywords)
				}
			}
		}
	}
}

func TestTooManyIsStable(t *testing.T) {
	if Mask(tooMany) != tooMany || len(Find(tooMany)) != 0 {
		t.Fatalf("the give-up text is itself masked")
	}
}
