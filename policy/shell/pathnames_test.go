package shell

import (
	"strings"
	"testing"
)

func TestPosixPathNames(t *testing.T) {
	for _, tc := range [][3]string{
		// in, dirname, basename
		{"/home/u/.ssh/x", "/home/u/.ssh", "x"},
		{"/home/u/.ssh/", "/home/u", ".ssh"},
		{"a", ".", "a"},
		{"/", "/", "/"},
		{"//a//b//", "//a", "b"},
		{"/a", "/", "a"},
		{"", ".", ""},
	} {
		if got := posixDirname(tc[0]); got != tc[1] {
			t.Errorf("dirname %q = %q, want %q", tc[0], got, tc[1])
		}
		if got := posixBasename(tc[0], ""); got != tc[2] {
			t.Errorf("basename %q = %q, want %q", tc[0], got, tc[2])
		}
	}
	if got := posixBasename("/x/main.go", ".go"); got != "main" {
		t.Errorf("basename suffix = %q", got)
	}
}

// TestComputedNames: dirname and basename of known words, and recursive
// listings, hand the next command the names they print.
func TestComputedNames(t *testing.T) {
	for _, tc := range []struct {
		src  string
		read string // a path read (prefix of Path), "" none under the home's .ssh
	}{
		{`tar czf /tmp/a.tgz "$(dirname ~/.ssh/x)"`, testHome + "/.ssh"},
		{`cat "$(dirname ~/.aws/x)/credentials"`, testHome + "/.aws/credentials"},
		{`cat ~/.ssh/$(basename /tmp/id_rsa)`, testHome + "/.ssh/id_rsa"},
		{`du -a ~ | xargs -d '\n' cat`, testHome + "/**"},
		{`ls -R ~/.ssh | xargs cat`, testHome + "/.ssh/**"},
		{`tree -fi ~/.aws | xargs cat`, testHome + "/.aws/**"},
		{`tar czf /tmp/a.tgz "$(dirname ./src/x)"`, ""},
		{`du -sh ~`, ""},
		{`du -a . | sort -n | tail`, ""},
	} {
		r := Parse(tc.src, testCwd, testHome, testUser)
		found := false
		for _, p := range r.Paths {
			if p.Access&AccessRead == 0 {
				continue
			}
			if tc.read != "" && strings.HasPrefix(p.Path, tc.read) {
				found = true
			}
			if tc.read == "" && strings.HasPrefix(p.Path, testHome+"/.ssh") {
				t.Errorf("%s: reads %s", tc.src, p.Path)
			}
		}
		if tc.read != "" && !found {
			t.Errorf("%s: %s not read in %+v", tc.src, tc.read, r.Paths)
		}
	}
}
