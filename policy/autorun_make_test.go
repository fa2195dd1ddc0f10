package policy

import (
	"strings"
	"testing"
)

// TestAutorunBuildFiles: Makefiles, setup.py and conftest.py are read by
// what they run; a makefile yields its recipes (through make --eval) and
// its != commands, and nothing else of its text is a command.
func TestAutorunBuildFiles(t *testing.T) {
	for p, id := range map[string]string{
		"/home/a/proj/Makefile": "build.makefile", "/home/a/proj/GNUmakefile": "build.makefile", "/home/a/proj/mk/go.mk": "build.makefile",
		"/home/a/proj/setup.py": "build.setup-py", "/home/a/proj/tests/conftest.py": "test.conftest",
	} {
		if e := lookupAutorun(p); e == nil || e.ID != id {
			t.Errorf("%s: got %v, want %s", p, e, id)
		}
	}
	for _, p := range []string{"/home/a/proj/docs/makefile.md", "/home/a/proj/setup.cfg", "/home/a/proj/tests/test_conftest.py"} {
		if e := lookupAutorun(p); e != nil && strings.HasPrefix(e.ID, "build.") {
			t.Errorf("%s: an ordinary file taken for %s", p, e.ID)
		}
	}
	e := lookupAutorun("/home/a/proj/Makefile")
	out := extractAutorun(e, "SRC != find . -name '*.go'\nall:\n\tgo build ./...\n", false)
	var cmds []string
	for _, c := range out {
		cmds = append(cmds, c.cmd)
	}
	got := strings.Join(cmds, "\n")
	if !strings.HasPrefix(got, "make --eval ") || !strings.Contains(got, "\nfind . -name '*.go'") || len(cmds) != 2 {
		t.Errorf("makefile commands = %q", cmds)
	}
}
