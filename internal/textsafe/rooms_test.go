package textsafe

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEscapeNeedsNoAudit: the packages that imported audit for its
// escaper alone no longer import it (audit holds the log, not the text
// escaper), and no file names audit.Escape, which is gone: a branch
// written before the move fails here with the fix in the message.
func TestEscapeNeedsNoAudit(t *testing.T) {
	const audit = "github.com/agentairlock/airlock/audit"
	root := filepath.Join("..", "..")
	for _, dir := range []string{"pins", "pins/schema", "notify", "scan", "policy"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range ast.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == audit {
					t.Errorf("%s imports audit", f)
				}
			}
		}
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "audit" || rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || rel == "internal/textsafe/rooms_test.go" || rel == "internal/textsafe/table_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "audit.Escape(") {
			t.Errorf("%s calls audit.Escape: use textsafe.Escape", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
