package policy

import (
	"strings"
	"testing"
)

// The index in front of KernelPathRules may only skip paths no rule
// denies: a path built from every forbid glob (each "**" and "*" filled
// in) must reach the full match and be denied, at several depths.
func TestKernelPathsIndexNeverHidesADeniedPath(t *testing.T) {
	vars := Vars{Home: "/home/dev", Tmp: "/tmp", Workspace: "/home/dev/proj", User: "dev", AirlockHome: "/home/dev/.airlock"}
	p, err := LoadProfile("paranoid", vars)
	if err != nil {
		t.Fatal(err)
	}
	k := p.KernelPaths()
	n := 0
	for _, r := range k.rules {
		for _, g := range r.path.globs {
			for _, alt := range g.alts {
				for _, fill := range []string{"a", "a/b/c", "Upper/Case"} {
					path := strings.ReplaceAll(alt, "**", fill)
					path = strings.ReplaceAll(path, "*", "x")
					path = strings.ReplaceAll(path, "?", "q")
					if !strings.HasPrefix(path, "/") {
						path = "/" + path
					}
					fold := FoldPath(path)
					_, full := k.denied(fold, path, accessAny)
					if !full {
						continue // an except, or an access the fill does not meet
					}
					n++
					if !k.candidate(fold) {
						t.Errorf("%s: denied by %s but the index skips it", path, r.ID)
					}
					read, write := k.DeniedAccess(path)
					dir, name := path[:strings.LastIndexByte(path, '/')], path[strings.LastIndexByte(path, '/')+1:]
					if dir != "" {
						r2, w2 := k.DeniedEntry(FoldPath(dir), name, path)
						if r2 != read || w2 != write {
							t.Errorf("%s: DeniedEntry (%v,%v) differs from DeniedAccess (%v,%v)", path, r2, w2, read, write)
						}
					}
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d denied paths were built from the globs: the test is not testing", n)
	}
}

func TestKernelPathsSeesSecretsAndSparesOrdinaryFiles(t *testing.T) {
	vars := Vars{Home: "/home/dev", Tmp: "/tmp", Workspace: "/home/dev/proj", User: "dev", AirlockHome: "/home/dev/.airlock"}
	p, err := LoadProfile("default", vars)
	if err != nil {
		t.Fatal(err)
	}
	k := p.KernelPaths()
	for _, c := range []struct {
		path        string
		read, write bool
	}{
		{"/home/dev/.ssh/id_rsa", true, true},
		{"/home/dev/.ssh", true, true},
		{"/home/dev/.SSH/config", true, true},
		{"/home/dev/proj/.env", true, false}, // issue 17: reading a .env is the secret access, writing one is not
		{"/home/dev/proj/.env.example", false, false},
		{"/home/dev/.airlock/audit.jsonl", true, true},
		{"/etc/shadow", true, true},
		{"/home/dev/.bashrc", false, true},
		{"/home/dev/proj/main.go", false, false},
		{"/usr/bin/ls", false, false},
	} {
		r, w := k.DeniedAccess(c.path)
		if r != c.read || w != c.write {
			t.Errorf("%s: denied read %v write %v, want %v %v", c.path, r, w, c.read, c.write)
		}
	}
}
