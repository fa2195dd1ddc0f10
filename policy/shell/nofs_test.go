package shell

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoFileSystem holds the package to DESIGN's rule that the shell
// analyzer never reads the file system, runs a process or looks at the
// environment: its code imports none of the packages that could, and of
// mvdan.cc/sh/v3/expand (which can) it calls only BracesSeq, which is pure
// text.
func TestNoFileSystem(t *testing.T) {
	forbidden := map[string]bool{
		"os": true, "os/exec": true, "os/user": true, "io/fs": true, "io/ioutil": true,
		"path/filepath": true, "syscall": true, "net": true, "net/http": true,
		"golang.org/x/sys/unix": true, "unsafe": true, "plugin": true,
		"mvdan.cc/sh/v3/interp": true, "mvdan.cc/sh/v3/fileutil": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[p] {
				t.Errorf("%s imports %s: the shell analyzer must not read the file system, run anything or read the environment", name, p)
			}
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if i := strings.Index(line, "expand."); i >= 0 && !strings.HasPrefix(strings.TrimSpace(line), "//") && !strings.Contains(line[i:], "expand.BracesSeq(") {
				t.Errorf("%s uses %s: of mvdan.cc/sh/v3/expand only BracesSeq is pure text", name, strings.TrimSpace(line))
			}
		}
	}
	if n == 0 {
		t.Fatal("no source files found")
	}
}
