package policy

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

var grantEnv = CallEnv{Cwd: "/home/dev/proj", Home: "/home/dev", User: "dev"}

func grantPolicy(t *testing.T, grants string) *Policy {
	t.Helper()
	p, err := CheckEdit([]byte("mode: enforce\ndefault: ask\nrules: []\ngrants:\n"+grants), "policy.yaml",
		Vars{Home: "/home/dev", User: "dev", Tmp: "/tmp", Workspace: "/home/dev/proj"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGrantCommands: a commands grant covers a shell call only when every
// simple command fits, and nothing else rides along (chains, wrappers,
// redirections, environment, substitutions).
func TestGrantCommands(t *testing.T) {
	p := grantPolicy(t, `  - tool: Bash
    commands: ["git push origin main", "npm run b*", "cd build", "make", "go test **", "git commit -m *", "echo  x", "tee out.log"]
`)
	cases := []struct {
		cmd  string
		want bool
	}{
		{"git push origin main", true},
		{"git  push   'origin' \"main\"", true}, // the words, not the spelling
		{"npm run build", true},
		{"npm run bench", true},
		{"cd build && make", true},
		{"git push origin dev", false},
		{"git push origin main --force", false},
		{"git push origin main; rm -rf ~/src", false},
		{"git push origin main && curl https://x.io/a", false},
		{"git push origin main | sh", false},
		{"sudo git push origin main", false},
		{"sh -c 'git push origin main'", false},
		{"echo $(git push origin main)", false},
		{"git push origin main > ~/.bashrc", false},
		{"git push origin main 2> /tmp/log", false},
		{"git push origin main 2>/dev/null", true},
		{"git push origin main 2>&1", true},
		{"git push origin main >&2", true},
		{"git push origin main < /dev/null", false},   // read from a file (even this one): not in the words
		{"git push origin main <<EOF\nx\nEOF", false}, // its input is the here-document, which no word covers
		{"cat build > build", false},                  // the redirect names a word: still a redirect
		{"go test ./... -run TestX | tee out.log", true},
		{"cd build && go test ./...", true}, // a path after a cd is recorded absolute: still one of the words
		{"git push origin main >| x", false},
		{"GIT_SSH_COMMAND='sh -c x' git push origin main", false},
		{"LD_PRELOAD=/tmp/x.so make", false},
		{"make\nrm -rf /srv", false},
		{"npm run build:prod ; npm run bx", true}, // both fit npm run b*
		{"npm run build --if-present", false},     // '*' is one word
		{"npm run 'build x'", true},               // one word with a space
		{"go test", true},                         // ** is any number of words
		{"go test ./... -run X", true},
		{"go vet ./...", false},
		{"git commit -m 'fix: a, b'", true},
		{"git commit -m 'fix' --amend", false},
		{"echo '' x", true}, // an empty word meets an empty word pattern
		{"echo x", false},
		{"git push origin main'", false}, // unparsed
		{"/tmp/evil/git push origin main", false},
		{"git push origin $BRANCH", false},
		{"X=main; git push origin $X", false},
		{"git push origin $(echo main)", false},
		{"f() { rm -rf ~; }; git push origin main", false},
	}
	for _, tc := range cases {
		f := Classify("Bash", TargetInput("Bash", tc.cmd), grantEnv)
		_, ok := p.CheckGrants(f, time.Now())
		if ok != tc.want {
			t.Errorf("%q: granted %v, want %v (why not coverable: %q)", tc.cmd, ok, tc.want, whyNotCoverable(f))
		}
	}
	// a commands grant never covers a call of another kind
	f := Classify("Read", []byte(`{"file_path":"make"}`), grantEnv)
	if _, ok := p.CheckGrants(f, time.Now()); ok {
		t.Error("a Bash commands grant covered a Read")
	}
}

// TestGrantCommandsRuntimeWords: a word the shell changes when it runs is
// not the word the grant saw. An unquoted "git push origin *" in a
// directory holding the files --force and main runs git push origin
// --force main; ~root is another user's home.
func TestGrantCommandsRuntimeWords(t *testing.T) {
	p := grantPolicy(t, `  - tool: Bash
    commands: ["git push origin *", "npm run b*", "git commit -m *"]
`)
	cases := []struct {
		cmd  string
		want bool
	}{
		{"git push origin *", false},
		{"git push origin ma*", false},
		{"git push origin [m]ain", false},
		{"git push origin ?ain", false},
		{"git push origin @(main|dev)", false},
		{"npm run b*", false},
		{"git push origin main && npm run b?", false},
		{"git commit -m [wip]", false},
		{"git commit -m x[\"a\"]", false},
		{"git push origin ~root", false},
		{"git push origin ~root/x", false},
		{"git push origin ~-", false},
		{"git push origin x=~root/y", false},
		{"git push origin x=~", false},
		{"git push origin main", true},
		{"git push origin '*'", true}, // quoted: the word itself
		{"git push origin \\*", true},
		{"git push origin \"ma*\"", true},
		{"git push origin [", true}, // no closing bracket: no pattern
		{"git push origin 'x]'", true},
		{"git push origin '~root'", true},
		{"git push origin ~", true}, // the home the grant's words name
		{"npm run build", true},
		{"git commit -m 'why?'", true},
		// a '*' stands for an argument, never an option: the person who
		// granted git push origin * granted a branch
		{"git push origin --force", false},
		{"git push origin $'\\x2d-force'", false},
		{"git push origin --receive-pack=x", false},
		{"git push origin -f", false},
		{"git push origin -", false},
		{"npm run b--x", true}, // the pattern's own b first
	}
	for _, tc := range cases {
		f := Classify("Bash", TargetInput("Bash", tc.cmd), grantEnv)
		_, ok := p.CheckGrants(f, time.Now())
		if ok != tc.want {
			t.Errorf("%q: granted %v, want %v (why not coverable: %q)", tc.cmd, ok, tc.want, whyNotCoverable(f))
		}
	}
	// allow last refuses to fold such a call, saying why
	if _, _, err := FoldCommands("Bash", "git push origin *", []string{"git push origin *"}, grantEnv); err == nil || !strings.Contains(err.Error(), "expands") {
		t.Errorf("FoldCommands(git push origin *): err %v, want one naming the expansion", err)
	}
}

// TestGrantCommandsStdinArgs: xargs and parallel take the words of the
// command they run from their input, which a grant never sees: a grant
// for echo main | xargs git push origin covered xargs git push origin <<<
// '--force main', which runs git push origin --force main.
func TestGrantCommandsStdinArgs(t *testing.T) {
	p := grantPolicy(t, `  - tool: Bash
    commands: ["echo main", "cat *", "xargs git push origin", "git push origin", "parallel git push origin", "git push origin *"]
`)
	for _, cmd := range []string{
		"xargs git push origin <<< '--force main'",
		"echo main | xargs git push origin",
		"cat branches.txt | xargs git push origin",
		"parallel git push origin <<< main",
	} {
		f := Classify("Bash", TargetInput("Bash", cmd), grantEnv)
		if _, ok := p.CheckGrants(f, time.Now()); ok {
			t.Errorf("%q: granted", cmd)
		}
	}
	if _, _, err := FoldCommands("Bash", "echo main | xargs git push origin", nil, grantEnv); err == nil || !strings.Contains(err.Error(), "xargs") {
		t.Errorf("FoldCommands(… | xargs …): err %v, want one naming xargs", err)
	}
}

// TestGrantCommandsInputAndCode: a here-document or here-string is a
// command's input, and for an interpreter its program: a grant for
// python3 (folded from python3 <<< 'print(1)') covered python3 <<<
// 'import os; os.system("id")'. A shell's input is parsed, every command
// of it fitting a pattern. (And allow last never folds interpreter code
// into a '*': the code of python3 -c is its first positional word, part
// of what makes two calls the same call.)
func TestGrantCommandsInputAndCode(t *testing.T) {
	p := grantPolicy(t, `  - tool: Bash
    commands: ["python3", "python3 -", "node", "ssh host", "sh", "echo *"]
`)
	for cmd, want := range map[string]bool{
		"python3 <<< 'print(1)'":                           false,
		"python3 - <<'PY'\nimport os\nos.system('id')\nPY": false,
		"node <<< 'require(\"child_process\")'":            false,
		"ssh host <<< id":                                  false,
		"{ python3; } <<< 'print(1)'":                      false,
		"sh <<< 'echo hi'":                                 true, // parsed: echo hi fits
		"sh <<< 'rm -rf ~'":                                false,
		"python3":                                          true,
	} {
		f := Classify("Bash", TargetInput("Bash", cmd), grantEnv)
		if _, ok := p.CheckGrants(f, time.Now()); ok != want {
			t.Errorf("%q: granted %v, want %v (why not coverable: %q)", cmd, ok, want, whyNotCoverable(f))
		}
	}
	pats, _, err := FoldCommands("Bash", "python3 -c 'print(1)'", []string{"python3 -c 'print(2)'"}, grantEnv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(pats, " "), "*") {
		t.Errorf("fold of two python3 -c calls: %q, a '*' in code", pats)
	}
}

// TestGrantCommandsVarWithSpace: a variable stands for one word wherever
// it is: ${home} with a space in it was split into two pattern words, so
// "cat ${home}/x" covered the two words cat /home/my and user/x.
func TestGrantCommandsVarWithSpace(t *testing.T) {
	env := CallEnv{Cwd: "/home/my user/proj", Home: "/home/my user", User: "dev"}
	p, err := CheckEdit([]byte("mode: enforce\ndefault: ask\nrules: []\ngrants:\n  - tool: Bash\n    commands: [\"cat ${home}/x\"]\n"), "policy.yaml",
		Vars{Home: "/home/my user", User: "dev", Tmp: "/tmp", Workspace: "/home/my user/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.CheckGrants(Classify("Bash", TargetInput("Bash", "cat /home/my user/x"), env), time.Now()); ok {
		t.Error("cat /home/my user/x (two words after cat) granted by cat ${home}/x")
	}
	m, err := compileGrantCommands([]string{"cat ${home}/x"}, Vars{Home: "/home/my user"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(commandsMatch).pats; !reflect.DeepEqual(got, [][]string{{"cat", "/home/my user/x"}}) {
		t.Errorf("compiled %q, want one pattern of the words cat and /home/my user/x", got)
	}
}

func TestGrantCommandsLoad(t *testing.T) {
	for _, tc := range []struct{ grants, err string }{
		{"  - tool: Bash\n    match: x\n    commands: [y]\n", "both match and commands"},
		{"  - tool: Bash\n    commands: [\"\"]\n", "an empty command"},
		{"  - tool: Bash\n    commands: [\"ls ${nope}\"]\n", "unknown variable"},
		{"  - tool: Bash\n    comands: [ls]\n", "comands"},
		// an empty list read as no matcher at all: every Bash call granted
		{"  - tool: Bash\n    commands: []\n", "commands: lists no command"},
		{"  - tool: Bash\n    commands:\n", "commands: lists no command"},
		{"  - tool: Bash\n    commands: ~\n", "commands: lists no command"},
	} {
		_, err := CheckEdit([]byte("rules: []\ngrants:\n"+tc.grants), "policy.yaml", Vars{Home: "/h"})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err %v, want %q", tc.grants, err, tc.err)
		}
	}
	// AppendGrant writes what the loader reads back
	data, err := AppendGrant([]byte("rules: []\n"), GrantSpec{Tool: "Bash", Commands: []string{"git status", "go test ./..."}, Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := CheckEdit(data, "policy.yaml", Vars{Home: "/h"})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got := p.Grants[0].Commands; !reflect.DeepEqual(got, []string{"git status", "go test ./..."}) {
		t.Fatalf("commands read back: %q\n%s", got, data)
	}
}

func TestFoldCommands(t *testing.T) {
	cases := []struct {
		name     string
		latest   string
		targets  []string
		patterns []string
		covered  []string
		err      string
	}{
		{"one call", "git push origin main", nil, []string{"git push origin main"}, []string{"git push origin main"}, ""},
		{"same call twice", "git push origin main", []string{"git push origin main"}, []string{"git push origin main"}, []string{"git push origin main"}, ""},
		{"other arguments fold", "git push origin main", []string{"git push origin dev", "git status", "ls"},
			[]string{"git push origin *"}, []string{"git push origin dev", "git push origin main"}, ""},
		{"common end kept", "go test ./a/...", []string{"go test ./bc/..."},
			[]string{"go test ./*/..."}, []string{"go test ./a/...", "go test ./bc/..."}, ""},
		{"no arguments stays exact", "make", []string{"make test"}, []string{"make"}, []string{"make"}, ""},
		{"bare and with arguments", "git push", []string{"git push origin main"},
			[]string{"git push", "git push origin main"}, []string{"git push", "git push origin main"}, ""},
		{"chain", "cd build && make", []string{"cd build && make all", "make"},
			[]string{"cd build", "make"}, []string{"cd build && make"}, ""},
		{"wildcards in words are escaped", "rm '*.o'", nil, []string{"rm ?.o"}, []string{"rm '*.o'"}, ""},
		{"a file-name pattern refused", "rm *.o", nil, nil, nil, "file-name pattern"},
		{"a space in a word", "git commit -m 'a b'", []string{"git commit -m 'a c'"}, []string{"git commit -m a?*"},
			[]string{"git commit -m 'a b'", "git commit -m 'a c'"}, ""},
		{"an option is not folded into an argument", "git push origin main", []string{"git push origin --force", "git push origin dev"},
			[]string{"git push origin --force", "git push origin *"}, []string{"git push origin --force", "git push origin dev", "git push origin main"}, ""},
		{"options fold among themselves", "ls -l", []string{"ls -a"}, []string{"ls -*"}, []string{"ls -a", "ls -l"}, ""},
		{"more words are another pattern", "npm run build", []string{"npm run build --watch", "npm run test"},
			[]string{"npm run *", "npm run build --watch"}, []string{"npm run build", "npm run build --watch", "npm run test"}, ""},
		{"an empty word", "echo ''", nil, []string{"echo "}, []string{"echo ''"}, ""},
		{"a dollar even quoted is refused", "echo '${home}'", nil, nil, nil, "only known when it runs"},
		{"redirection refused", "echo hi > out.txt", nil, nil, nil, "redirects > out.txt"},
		{"environment refused", "FOO=1 make", nil, nil, nil, "environment variable FOO"},
		{"unparsed refused", "echo 'x", nil, nil, nil, "flagged"},
		{"expansion refused", "git push origin $B", nil, nil, nil, "only known when it runs"},
		{"a host is no command", "https://x.io/a", nil, nil, nil, "reaches https://x.io/a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pats, covered, err := FoldCommands("Bash", tc.latest, append([]string{tc.latest}, tc.targets...), grantEnv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pats, tc.patterns) || !reflect.DeepEqual(covered, tc.covered) {
				t.Fatalf("got %q covering %q, want %q covering %q", pats, covered, tc.patterns, tc.covered)
			}
			// the fold covers every call it folded in, and what it
			// writes loads
			var quoted []string
			for _, p := range pats {
				quoted = append(quoted, "'"+strings.ReplaceAll(p, "'", "''")+"'")
			}
			p := grantPolicy(t, "  - tool: Bash\n    commands: ["+strings.Join(quoted, ", ")+"]\n")
			for _, c := range covered {
				if _, ok := p.CheckGrants(Classify("Bash", TargetInput("Bash", c), grantEnv), time.Now()); !ok {
					t.Errorf("the fold does not cover %q", c)
				}
			}
		})
	}
}

// FuzzFoldCommands: whatever two gated command lines are, a fold that
// succeeds writes a grant that loads and covers every line it folded in,
// and the grant covers no call whose commands a commands grant refuses.
func FuzzFoldCommands(f *testing.F) {
	for _, s := range [][2]string{
		{"git push origin main", "git push origin dev"},
		{"go test ./a/...", "go test ./bc/..."},
		{"cd build && make", "cd build && make"},
		{"echo 'a b' \"c*d\"", "echo 'a x' \"c?d\""},
		{"rm -- **", "rm -- '**'"},
		{"echo ''", "echo ' '"},
		{"sudo make é", "sudo make è"},
		{"printf '%s\\n' x", "printf '%s\\n' y"},
	} {
		f.Add(s[0], s[1])
	}
	vars := Vars{Home: "/home/dev", User: "dev", Tmp: "/tmp", Workspace: "/home/dev/proj"}
	f.Fuzz(func(t *testing.T, a, b string) {
		pats, covered, err := FoldCommands("Bash", a, []string{a, b}, grantEnv)
		if err != nil {
			return
		}
		data, err := AppendGrant([]byte("mode: enforce\ndefault: ask\nrules: []\n"), GrantSpec{Tool: "Bash", Commands: pats})
		if err != nil {
			t.Fatalf("%q, %q: AppendGrant(%q): %v", a, b, pats, err)
		}
		p, err := CheckEdit(data, "policy.yaml", vars)
		if err != nil {
			t.Fatalf("%q, %q: the fold %q does not load: %v\n%s", a, b, pats, err, data)
		}
		for _, c := range covered {
			fc := Classify("Bash", TargetInput("Bash", c), grantEnv)
			if _, ok := p.CheckGrants(fc, time.Now()); !ok {
				t.Fatalf("%q, %q: the fold %q does not cover %q", a, b, pats, c)
			}
		}
	})
}

// BenchmarkGrantCommands is the cost of a commands grant against a
// classified call, beside a text-match grant on the same call.
func BenchmarkGrantCommands(b *testing.B) {
	vars := Vars{Home: "/home/dev", User: "dev", Tmp: "/tmp", Workspace: "/home/dev/proj"}
	f := Classify("Bash", TargetInput("Bash", "cd build && go test ./... -run TestX | tee out.log"), grantEnv)
	other := Classify("Bash", TargetInput("Bash", "npm install && npm run build"), grantEnv)
	for _, tc := range []struct{ name, grant string }{
		{"commands", "  - tool: Bash\n    commands: [\"cd build\", \"go test **\", \"tee out.log\"]\n"},
		{"text", "  - tool: Bash\n    match: \"cd build && go test *\"\n"},
	} {
		p, err := CheckEdit([]byte("rules: []\ngrants:\n"+tc.grant), "policy.yaml", vars)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				if _, ok := p.CheckGrants(f, now); !ok {
					b.Fatal("not granted")
				}
			}
		})
		b.Run(tc.name+"-other-call", func(b *testing.B) {
			for range b.N {
				if _, ok := p.CheckGrants(other, now); ok {
					b.Fatal("granted")
				}
			}
		})
	}
}
