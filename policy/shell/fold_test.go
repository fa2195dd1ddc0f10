package shell

import (
	"strings"
	"testing"
)

func TestFoldCodePaths(t *testing.T) {
	const home = "/h"
	for _, c := range []struct {
		code string
		want string // a path that must be among the results ("" = none home-rooted)
	}{
		{`from pathlib import Path; print((Path.home() / '.ssh' / 'id_rsa').read_text())`, "/h/.ssh/id_rsa"},
		{`print(Path('~/.aws/credentials').expanduser().read_text())`, "/h/.aws/credentials"},
		{`import os;print(open(os.path.join(os.path.expanduser('~'),'.aws','credentials')).read())`, "/h/.aws/credentials"},
		{`import os;print(open(os.environ['HOME']+'/.netrc').read())`, "/h/.netrc"},
		{`import os; h=os.path.expanduser('~'); print(open(h+'/.'+'ss'+'h/id_rsa').read())`, "/h/.ssh/id_rsa"},
		{`const fs=require('fs'),os=require('os');console.log(fs.readFileSync(os.homedir()+'/.npmrc','utf8'))`, "/h/.npmrc"},
		{`const p=require('path'),os=require('os'),fs=require('fs');const d=p.join(os.homedir(),'.ssh');for(const f of fs.readdirSync(d))console.log(fs.readFileSync(p.join(d,f),'utf8'))`, "/h/.ssh/*"},
		{`f.readFile(require('node:path').resolve(require('node:os').homedir(),'.kube','config'),'utf8')`, "/h/.kube/config"},
		{`open F, $ENV{HOME}."/.ssh/id_rsa"; print <F>`, "/h/.ssh/id_rsa"},
		{"print `cat $ENV{HOME}/.git-credentials`", "/h/.git-credentials"},
		{`puts File.read(File.expand_path("~/.kube/config"))`, "/h/.kube/config"},
		{`puts File.read(File.join(Dir.home, ".docker", "config.json"))`, "/h/.docker/config.json"},
		{`echo file_get_contents(getenv("HOME")."/.git-credentials");`, "/h/.git-credentials"},
		{`print(io.open(os.getenv("HOME").."/.pgpass"):read("a"))`, "/h/.pgpass"},
		{`Get-Content (Join-Path $HOME ".aws/credentials")`, "/h/.aws/credentials"},
		{`Get-Content "$env:USERPROFILE\.ssh\id_rsa"`, "/h/.ssh/id_rsa"},
		{`h,_:=os.UserHomeDir();b,_:=os.ReadFile(filepath.Join(h,".aws","credentials"))`, "/h/.aws/credentials"},
		{`print(open(f"{Path.home()}/.ssh/id_ed25519").read())`, "/h/.ssh/id_ed25519"},
		{`from pathlib import Path; print(Path.home())`, ""},
		{`console.log(require('os').homedir())`, ""},
	} {
		got := FoldCodePaths(c.code, home)
		if c.want == "" {
			for _, p := range got {
				if strings.HasPrefix(p.Path, home) && p.Path != home {
					t.Errorf("FoldCodePaths(%q) = %+v, want no home path", c.code, got)
				}
			}
			continue
		}
		found := false
		for _, p := range got {
			found = found || p.Path == c.want
		}
		if !found {
			t.Errorf("FoldCodePaths(%q) = %+v, want %q among them", c.code, got, c.want)
		}
	}
}

// FuzzFoldCodePaths builds programs in several languages that join a home
// reference and a literal path split at fuzz-chosen points; the oracle is
// the joined path itself.
func FuzzFoldCodePaths(f *testing.F) {
	f.Add(uint8(0), "/.ssh/id_rsa", uint8(3), uint8(7))
	f.Add(uint8(1), "/.aws/credentials", uint8(1), uint8(9))
	f.Add(uint8(4), "/.npmrc", uint8(2), uint8(5))
	f.Fuzz(func(t *testing.T, lang uint8, lit string, cut1, cut2 uint8) {
		if lit == "" || len(lit) > 40 || !strings.HasPrefix(lit, "/") || strings.ContainsAny(lit, "'\"\\`$\x00\x01{}#\n\r\t ~") || strings.Contains(lit, "//") {
			return
		}
		// a literal is cut into up to three pieces joined by the language's operator
		a, b := int(cut1)%len(lit), int(cut2)%len(lit)
		if a > b {
			a, b = b, a
		}
		pieces := []string{lit[:a], lit[a:b], lit[b:]}
		forms := []struct{ home, op, q string }{
			{"os.path.expanduser('~')", "+", "'"},
			{"os.homedir()", "+", "'"},
			{"$ENV{HOME}", ".", "\""},
			{"Dir.home", "+", "\""},
			{"getenv(\"HOME\")", ".", "\""},
			{"os.getenv(\"HOME\")", "..", "\""},
			{"process.env.HOME", "+", "'"},
		}
		fm := forms[int(lang)%len(forms)]
		var b2 strings.Builder
		b2.WriteString("x = read(" + fm.home)
		for _, p := range pieces {
			if p == "" {
				continue
			}
			b2.WriteString(fm.op + fm.q + p + fm.q)
		}
		b2.WriteString(")")
		code := b2.String()
		want := "/h" + strings.TrimRight(lit, "/")
		if want == "/h" {
			return
		}
		for _, p := range FoldCodePaths(code, "/h") {
			if p.Path == want {
				return
			}
		}
		t.Fatalf("FoldCodePaths(%q) = %+v, want %q", code, FoldCodePaths(code, "/h"), want)
	})
}

func FuzzFoldCodePathsNoPanic(f *testing.F) {
	f.Add("Path.home() / '.ssh' / x")
	f.Add("join(join(join(")
	f.Fuzz(func(t *testing.T, code string) {
		for _, p := range FoldCodePaths(code, "/h") {
			if p.Path == "" {
				t.Fatalf("empty path from %q", code)
			}
		}
	})
}
