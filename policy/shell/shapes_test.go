package shell

import "testing"

func TestPathShapes(t *testing.T) {
	type want struct {
		path              string
		glob, tree, names bool
	}
	for _, c := range []struct {
		src  string
		want []want
	}{
		{`cat ~/.ss?/id_*`, []want{{path: testHome + "/.ss?/id_*", glob: true}}},
		{`cat '~/.ss?'`, []want{{path: testCwd + "/~/.ss?"}}}, // quoted: a name, not a pattern
		{`cat .env*`, []want{{path: testCwd + "/.env*", glob: true}}},
		{`tar czf /tmp/h.tgz ~`, []want{{path: testHome, tree: true}}},
		{`zip -qr /tmp/c.zip ~/.config`, []want{{path: testHome + "/.config", tree: true}}},
		{`cp -a ~ /tmp/x`, []want{{path: testHome, tree: true}}},
		{`rsync -av ~/.config /tmp/cfg`, []want{{path: testHome + "/.config", tree: true}}},
		{`grep -r KEY ~`, []want{{path: testHome, tree: true}}},
		{`rg token`, []want{{path: testCwd, tree: true}}},
		{`grep -r API_KEY --include='.env*' .`, []want{{path: testCwd + "/**/.env*", glob: true}, {path: testCwd, names: true}}},
		{`ls -la ~/.ssh`, []want{{path: testHome + "/.ssh", names: true}}},
		{`ssh-keygen -y -f ~/.ssh/id_ed25519`, []want{{path: testHome + "/.ssh/id_ed25519", names: true}}},
		{`ls ~/.ssh | xargs -I{} cat ~/.ssh/{}`, []want{{path: testHome + "/.ssh/*", glob: true}}},
		{`python3 -c "from pathlib import Path; print((Path.home() / '.ssh' / 'id_rsa').read_text())"`, []want{{path: testHome + "/.ssh/id_rsa"}}},
		{`node --env-file=.env -e 'console.log(process.env)'`, []want{{path: testCwd + "/.env"}}},
		// counts and sizes: wc's operands, and a file redirected into a names-only program's stdin
		{`wc -c ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa", names: true}}},
		{`wc -l < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa", names: true}}},
		{`timeout 5 wc -c < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa", names: true}}},
		// but not names a program reads from the file and prints back, nor stdin another reader takes
		{`wc --files0=- < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa"}}},
		{`du --files0-from ~/.netrc`, []want{{path: testHome + "/.netrc"}}},
		{`tree --fromfile ~/.netrc`, []want{{path: testHome + "/.netrc"}}},
		{`xargs wc < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa"}}},
		{`f() { cat; wc -c; }; f < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa"}}},
		{`{ wc -c; cat; } < ~/.ssh/id_rsa`, []want{{path: testHome + "/.ssh/id_rsa"}}},
	} {
		r := Parse(c.src, testCwd, testHome, "u")
		for _, w := range c.want {
			found := false
			for _, p := range r.Paths {
				if p.Path == w.path && p.Glob == w.glob && p.Tree == w.tree && p.Names == w.names {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no path %+v in %+v", c.src, w, r.Paths)
			}
		}
	}
}
