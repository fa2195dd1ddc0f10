package policy

import (
	"strings"
	"testing"
	"time"
)

func TestFoldTargetsTightestCover(t *testing.T) {
	for _, c := range []struct {
		name    string
		targets []string
		want    string // "" = refused
	}{
		{"one file is itself", []string{"/srv/data/a.txt", "/srv/data/a.txt"}, "/srv/data/a.txt"},
		{"siblings fold to their directory", []string{"/srv/data/a.txt", "/srv/data/b.txt"}, "/srv/data/**"},
		{"cousins fold to the deepest common directory", []string{"/srv/data/a/x", "/srv/data/b/c/y", "/srv/data/a/z"}, "/srv/data/**"},
		{"a prefix that is not a directory does not count", []string{"/srv/data1/x", "/srv/data2/y"}, "/srv/**"},
		{"never the root", []string{"/etc/a", "/srv/b"}, ""},
		{"never home", []string{"/home/u/a", "/home/u/b/c"}, ""},
		{"never above home", []string{"/home/u/a", "/home/v/b"}, ""},
		{"below home is fine", []string{"/home/u/w/a", "/home/u/w/b"}, "/home/u/w/**"},
		{"glob characters are not folded", []string{"/srv/*", "/srv/a"}, ""},
		{"one host", []string{"https://API.example.com/a", "https://api.example.com./b?c"}, "https://api.example.com/*"},
		{"a bare host", []string{"api.example.com"}, "https://api.example.com/*"},
		{"two hosts are refused", []string{"https://a.example.com/", "https://b.example.com/"}, ""},
		{"two schemes are refused", []string{"https://a.example.com/", "http://a.example.com/"}, ""},
		{"a command is not a host", []string{"rm -rf build"}, ""},
	} {
		got, err := FoldTargets(c.targets, "/home/u")
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: FoldTargets(%q) = %q, want a refusal", c.name, c.targets, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: FoldTargets(%q) = %q, %v; want %q", c.name, c.targets, got, err, c.want)
		}
	}
}

const editBase = `# my policy
mode: guard
rules: []   # none yet
grants: []
overrides: []
`

func TestAppendGrantKeepsCommentsAndLoads(t *testing.T) {
	out, err := AppendGrant([]byte(editBase), GrantSpec{Tool: "Write", Match: "/srv/data/**", Reason: "build output", Added: "2026-11-29"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"# my policy", "# none yet", "- tool: Write", "match: /srv/data/**", "added: \"2026-11-29\""} {
		if !strings.Contains(s, want) {
			t.Errorf("edited policy lacks %q:\n%s", want, s)
		}
	}
	p, err := CheckEdit(out, "policy.yaml", Vars{Home: "/home/u"})
	if err != nil {
		t.Fatalf("edited policy does not load: %v\n%s", err, s)
	}
	if len(p.Grants) != 1 || p.Grants[0].Match != "/srv/data/**" {
		t.Fatalf("grants after edit: %+v", p.Grants)
	}
	// a policy without grants: gets the key
	out, err = AppendGrant([]byte("mode: guard\nrules: []\n"), GrantSpec{Tool: "Read"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := CheckEdit(out, "policy.yaml", Vars{}); err != nil || len(p.Grants) != 1 {
		t.Fatalf("grants: key not added: %v\n%s", err, out)
	}
}

func TestBadEditDoesNotLoad(t *testing.T) {
	out, err := AppendGrant([]byte(editBase), GrantSpec{Tool: "Read", Match: "${nope}/x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckEdit(out, "policy.yaml", Vars{}); err == nil {
		t.Fatalf("a grant with an unknown variable loaded:\n%s", out)
	}
}

func TestRemoveMissingGrantFailsLoudly(t *testing.T) {
	one, _ := AppendGrant([]byte(editBase), GrantSpec{Tool: "Read"})
	for _, n := range []int{0, 2, -1} {
		_, err := RemoveGrant(one, n)
		if err == nil || !strings.Contains(err.Error(), "(there are 1)") {
			t.Errorf("RemoveGrant(%d) = %v, want no grant %d (there are 1)", n, err, n)
		}
	}
	out, err := RemoveGrant(one, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := CheckEdit(out, "policy.yaml", Vars{}); err != nil || len(p.Grants) != 0 || !strings.Contains(string(out), "# my policy") {
		t.Fatalf("after revoke: %v\n%s", err, out)
	}
}

func TestForbidOnFindsTheForbid(t *testing.T) {
	p, err := LoadProfile("default", Vars{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	env := CallEnv{Cwd: "/", Home: "/home/u", NoResolve: true}
	if id, hit := p.ForbidOn("Read", "/home/u/.ssh/id_rsa", env); !hit || id != "secrets.ssh" {
		t.Errorf("ForbidOn(ssh key) = %q, %v; want secrets.ssh", id, hit)
	}
	if id, hit := p.ForbidOn("Write", "/srv/data/a.txt", env); hit {
		t.Errorf("ForbidOn(/srv/data/a.txt) = %q: a plain file met a forbid", id)
	}
	pre, err := (Vars{Home: "/home/u"}).LiteralPrefix("${home}/.aws/**")
	if err != nil || pre != "/home/u/.aws" {
		t.Fatalf("LiteralPrefix = %q, %v", pre, err)
	}
	if id, hit := p.ForbidOn("Read", pre, env); !hit || id != "secrets.aws" {
		t.Errorf("ForbidOn(%s) = %q, %v; want secrets.aws", pre, id, hit)
	}
}

func TestExpiredGrantNeverApplies(t *testing.T) {
	src := "mode: enforce\ndefault: block\nrules: []\ngrants:\n  - tool: Read\n    expires: 2026-11-29\n"
	p, err := CheckEdit([]byte(src), "policy.yaml", Vars{})
	if err != nil {
		t.Fatal(err)
	}
	f := &Facts{Tool: "Read"}
	lastDay := time.Date(2026, 11, 29, 23, 0, 0, 0, time.Local)
	if _, ok := p.CheckGrants(f, lastDay); !ok || p.Grants[0].Expired(lastDay) {
		t.Errorf("a grant is valid through its expiry day")
	}
	next := time.Date(2026, 11, 30, 0, 0, 1, 0, time.Local)
	if _, ok := p.CheckGrants(f, next); ok || !p.Grants[0].Expired(next) {
		t.Errorf("an expired grant still applied")
	}
}
