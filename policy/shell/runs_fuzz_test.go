package shell

import (
	"testing"
)

// FuzzCodeExecs checks the literal extraction of interpreter code: it
// never panics and its output is bounded whatever the code.
func FuzzCodeExecs(f *testing.F) {
	for _, s := range []struct{ lang, code string }{
		{"python", `import os; os.system("cat ~/.ssh/id_rsa")`},
		{"python", `subprocess.run(["cat", "x"], check=True)`},
		{"python", `os.system(f"cat {os.environ['HOME']}/x")`},
		{"python", `os.execv("/bin/sh", ["sh", "-c", "id"])`},
		{"perl", "print `id`; open(F, \"ls |\"); qx{id}; system 'id'"},
		{"ruby", `%x(id); system "id"; exec("a", ["b"])`},
		{"node", "require('child_process').execSync(`cat ${os.homedir()}/x`)"},
		{"php", `shell_exec("id"); passthru('ls'); pcntl_exec("/bin/sh", ["-c", "id"]);`},
		{"lua", `os.execute("id"); io.popen('ls')`},
		{"awk", `BEGIN { "id" | getline x; print x | "sort"; system("ls") }`},
		{"tcl", `spawn /bin/sh; exec ls -la`},
		{"python", `os.system("unterminated`},
		{"python", `subprocess.run([`},
	} {
		f.Add(s.lang, s.code)
	}
	f.Fuzz(func(t *testing.T, lang, code string) {
		runs := codeExecs(lang, code)
		if len(runs) > maxCodeRuns {
			t.Fatalf("%d runs, budget %d", len(runs), maxCodeRuns)
		}
		for _, r := range runs {
			if len(r.shell) > maxWord {
				t.Fatalf("shell text of %d bytes", len(r.shell))
			}
			if len(r.argv) > maxCodeArgv {
				t.Fatalf("argv of %d words", len(r.argv))
			}
			if r.shell == "" && len(r.argv) == 0 {
				t.Fatalf("empty run from %q", code)
			}
		}
	})
}

// FuzzSedScript checks the sed script reader: no panic, bounded output.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{`1e cat x`, `s/a/b/e`, `s|x|y|w /tmp/o`, `/re/,$ { e id
}`, `w out`, `r in`, `s/\//x/g;e id`, `\,x,d`, `s/a`, `y/abc/xyz/`, "3!e ls\nq"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		sf := sedScript(script)
		if n := len(sf.runs) + len(sf.reads) + len(sf.writes); n > maxCodeRuns+1 {
			t.Fatalf("%d facts from %d bytes", n, len(script))
		}
	})
}

// FuzzLangRuns checks the program-language readers (ex, gdb, make, cron,
// TeX, SQL escapes) through Parse: no panic, and Parse's invariants hold.
func FuzzLangRuns(f *testing.F) {
	for _, s := range []string{
		`vim -c ':!id' -c 'call system("ls")'`, `gdb -ex '!id' -ex 'python import os'`,
		`make --eval=$'x:\n\tid'`, `echo '* * * * * id' | crontab -`, `pdflatex '\write18{id}'`,
		`sqlite3 x '.shell id'`, `tmux new -d 'id' \; send-keys 'ls' Enter`, `screen -X stuff 'id\n'`,
		`git -c core.pager='less' -c 'alias.x=!id' x`, `PAGER='id' LESSOPEN='|id %s' less x`,
	} {
		f.Add(s)
	}
	save := recoverPanics
	recoverPanics = false
	f.Cleanup(func() { recoverPanics = save })
	f.Fuzz(func(t *testing.T, src string) {
		r := Parse(src, testCwd, testHome, testUser)
		checkShellInvariants(t, src, r)
		if len(r.Commands) > maxCommands {
			t.Fatalf("%d commands", len(r.Commands))
		}
	})
}
