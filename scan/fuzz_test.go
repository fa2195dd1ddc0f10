package scan

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func seeds(f *testing.F, glob string) {
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds for %s: %v", glob, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzText(f *testing.F) {
	seeds(f, "testdata/text/*")
	seeds(f, "testdata/poisoned/*.json")
	f.Add([]byte("ig\u200bnore previous\U000E0041 <!-- x --> \u202e\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := string(b)
		for _, ctx := range []Context{Instructions, Prose} {
			for _, fd := range Text(s, ctx) {
				checkFinding(t, s, fd, true)
			}
		}
	})
}

func FuzzTool(f *testing.F) {
	seeds(f, "testdata/poisoned/*.json")
	for _, raw := range loadTools(f, "testdata/benign") {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := Tool(b)
		for _, fd := range fs {
			checkFinding(t, "", fd, false)
		}
		Risk(fs)
		Poisoned(fs)
	})
}

// checkFinding asserts what every finding promises: a position inside the
// text (when the text is known), a valid-UTF-8 bounded match.
func checkFinding(t *testing.T, s string, fd Finding, exact bool) {
	t.Helper()
	if fd.Line < 1 || fd.Col < 1 {
		t.Fatalf("%s: position %d:%d not 1-based", fd.ID, fd.Line, fd.Col)
	}
	if !utf8.ValidString(fd.Match) || !utf8.ValidString(fd.Explain) || !utf8.ValidString(fd.Field) {
		t.Fatalf("%s: invalid UTF-8 in %q / %q / %q", fd.ID, fd.Match, fd.Explain, fd.Field)
	}
	if utf8.RuneCountInString(fd.Match) > maxMatch {
		t.Fatalf("%s: match of %d runes", fd.ID, utf8.RuneCountInString(fd.Match))
	}
	if !exact {
		return
	}
	lines := strings.Split(s, "\n")
	if fd.Line > len(lines) {
		t.Fatalf("%s: line %d of %d", fd.ID, fd.Line, len(lines))
	}
	if n := utf8.RuneCountInString(lines[fd.Line-1]); fd.Col > n+1 {
		t.Fatalf("%s: col %d on a line of %d runes", fd.ID, fd.Col, n)
	}
}
