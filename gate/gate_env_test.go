package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/internal/depcheck"
)

// TestGateReadsNoEnvironment: no file of the gate reads the process
// environment. Every setting comes through the home.Env the caller built
// once; a fallback to os.Getenv would let a caller that forgot to pass
// one decide under another view of AIRLOCK_FAIL_OPEN or the argument
// budget than the one it recorded.
func TestGateReadsNoEnvironment(t *testing.T) {
	readers := map[string][]string{
		"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
		"syscall": {"Getenv", "Environ"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files (%v)", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]string{} // the name a file imports a package by → its path
		for _, im := range file.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = path
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, fn := range readers[names[id.Name]] {
				if sel.Sel.Name == fn {
					t.Errorf("%s: %s.%s reads the environment: take it from the Gate's home.Env (the caller builds it with home.FromOS)", f, names[id.Name], fn)
				}
			}
			return true
		})
	}
}

// TestGateImportsNoScanNorFrontEnd: the gate is the pipeline every front
// end calls, so it links none of them, nor the scanner's text engine and
// its feed (the proxy's first-sight inspection lives in mcpproxy): the
// per-call hook, which links the gate, pays for neither. scan/secret, the
// masker of what a record or a question shows, is the one piece of scan
// it uses.
func TestGateImportsNoScanNorFrontEnd(t *testing.T) {
	deps, err := depcheck.Deps(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	const m = "github.com/agentairlock/airlock/"
	banned := []string{m + "scan=", m + "setup", m + "hook", m + "mcpproxy", m + "cmd", m + "sandbox"}
	if bad := depcheck.Banned(deps, banned); len(bad) > 0 {
		t.Fatalf("the gate links %s", strings.Join(bad, ", "))
	}
}
