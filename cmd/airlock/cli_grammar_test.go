package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v2"
)

// TestNormalize: what every command line becomes for urfave/cli, or the
// usage error it is.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string // the normalised line, "help: PATH", or "error: SUBSTRING"
	}{
		// flags anywhere before --
		{"scan DIR --fail-on-findings", "airlock scan --fail-on-findings -- DIR"},
		{"scan --sarif DIR1 DIR2 --all", "airlock scan --sarif --all -- DIR1 DIR2"},
		{"scan DIR --min-severity med", "airlock scan --min-severity med -- DIR"},
		{"scan DIR --min-severity=med", "airlock scan --min-severity=med -- DIR"},
		{"scan -- --sarif", "airlock scan -- --sarif"},
		{"scan - --json", "airlock scan --json -- -"},
		{"policy check FILE --forbids", "airlock policy check --forbids -- FILE"},
		{"allow --match G TOOL", "airlock allow --match G -- TOOL"},
		{"allow TOOL --match G --dry-run", "airlock allow --match G --dry-run -- TOOL"},
		{"allow last --dry-run --reason R", "airlock allow last --dry-run --reason R"},
		{"pins approve NAME --hash H", "airlock pins approve --hash H -- NAME"},
		{"pins --json list", "airlock pins list --json"},
		{"allow --match G list", `error: airlock allow list: --match is not a flag of this command`},
		{"--version scan", `error: airlock scan: --version is not a flag of this command`},
		{"-h scan", "help: scan"},
		{"allow T --match --", `error: --match needs a value, and -- is a flag`},
		{"allow T --reason --help", `error: --reason needs a value, and --help is a flag`},
		{"allow T --reason -x", "airlock allow --reason -x -- T"},
		{"verify —json", `error: airlock verify: unknown flag —json (did you mean --json?)`},
		{"uninstall -y", "airlock uninstall -y"},
		{"update sign FEED -o - --key K", "airlock update sign -o - --key K -- FEED"},
		{"log -n -1", "airlock log -n -1"},
		{"check --input -", "airlock check --input -"},
		{"--version", "airlock --version"},
		// a command line run under airlock run is kept verbatim
		{"run -- sh -c 'exit 7'", "airlock run -- sh -c 'exit 7'"},
		{"run --no-egress-proxy -- ls --help -- x", "airlock run --no-egress-proxy -- ls --help -- x"},
		{"run --yes cat --bogus -h", "airlock run --yes -- cat --bogus -h"},
		{"run --require-landlock 4 -- true", "airlock run --require-landlock 4 -- true"},
		// help
		{"", "help: "},
		{"--help", "help: "},
		{"help", "help: "},
		{"help scan", "help: scan"},
		{"help policy check", "help: policy check"},
		{"scan DIR --sarif -h", "help: scan"},
		{"policy", "help: policy"},
		{"contracts", "help: contracts"},
		{"run --help", "help: run"},
		// usage errors
		{"scna", `error: airlock: unknown command "scna" (did you mean "scan"?)`},
		{"help scna", `error: airlock help: unknown command "scna" (did you mean "scan"?)`},
		{"help policy chek", `error: airlock help: unknown command "policy chek" (did you mean "check"?)`},
		{"policy chek", `error: airlock policy: unknown command "chek" (did you mean "check"?)`},
		{"pins lst", `error: airlock pins: unknown command "lst" (did you mean "list"?)`},
		{"xyzzy", `error: airlock: unknown command "xyzzy"`},
		{"export cef", `error: airlock export: unexpected argument "cef": it takes none (did you mean --format cef?)`},
		{"log block", `error: airlock log: unexpected argument "block": it takes none (did you mean --decision block?)`},
		{"verify json", `error: airlock verify: unexpected argument "json": it takes none (did you mean --json?)`},
		{"verify -- json", `error: airlock verify: unexpected argument "json": it takes none`},
		{"init paranoid", `error: (did you mean --profile paranoid?)`},
		{"allow A B", `error: airlock allow: unexpected argument "B": it takes TOOL`},
		{"allow", `error: airlock allow: missing TOOL`},
		{"allow revoke", `error: airlock allow revoke: missing N`},
		{"run", `error: airlock run: missing the command to run`},
		{"run --bogus -- true", `error: airlock run: unknown flag --bogus`},
		{"scan --sarf", `error: airlock scan: unknown flag --sarf (did you mean "--sarif"?)`},
		{"uninstall --yse", `error: airlock uninstall: unknown flag --yse (did you mean "--yes"?)`},
		{"log --decision", `error: airlock log: --decision needs a value`},
		{"allow T --match --dry-run", `error: --match needs a value, and --dry-run is a flag`},
		{"allow T --match=--dry-run --dry-run", "airlock allow --match=--dry-run --dry-run -- T"},
		{"check --tool", `error: airlock check: --tool needs a value`},
		{"--bogus", `error: airlock: unknown flag --bogus`},
		{"log ---json", `error: airlock log: unknown flag ---json (did you mean "--json"?)`},
		{"log --t\x1b[2J", `error: airlock log: unknown flag "--t\x1b[2J"`},
		{"DIR", `error: airlock: unknown command "DIR"`},
		{"-- scan", `error: airlock: unexpected argument "scan": name a command first`},
		{"run --pretend-abi 3 -- true", "airlock run --pretend-abi 3 -- true"},          // hidden, still accepted
		{"run --pretend-ab 3 -- true", `error: airlock run: unknown flag --pretend-ab`}, // and never suggested
		{"__demo-servr", `error: airlock: unknown command "__demo-servr"`},
	} {
		t.Run(tc.line, func(t *testing.T) {
			app := newApp()
			p, err := normalize(app, append([]string{"airlock"}, shellWords(tc.line)...))
			got := ""
			var ue *usageError
			switch {
			case errors.As(err, &ue):
				got = "error: " + ue.msg
			case err != nil:
				t.Fatalf("normalize: %v", err)
			case p.help:
				got = "help: " + pathName(p.path)
			default:
				got = strings.Join(quoteAll(p.args), " ")
			}
			if msg, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
				if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, msg) {
					t.Fatalf("got  %s\nwant an error with %s", got, msg)
				}
				if strings.Contains(tc.want, "did you mean") != strings.Contains(got, "did you mean") {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " '") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

// shellWords splits a line as sh would for the simple lines of these
// tests and the help's examples: quotes, and the redirections dropped.
func shellWords(line string) []string {
	var out []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	for i, w := range out {
		if w == ">" || w == ">>" || w == "<" {
			return out[:i]
		}
	}
	return out
}

// walkCommands calls f with every command's path under airlock.
func walkCommands(cmds []*cli.Command, prefix string, f func(path string, c *cli.Command)) {
	for _, c := range cmds {
		path := strings.TrimSpace(prefix + " " + c.Name)
		f(path, c)
		walkCommands(c.Subcommands, path, f)
	}
}

// TestSkipFlagParsingIsVerbatim: a command that reads its own line (none
// today) gets every word after its name untouched, help and -- included.
func TestSkipFlagParsingIsVerbatim(t *testing.T) {
	app := newApp()
	app.Commands = append(app.Commands, &cli.Command{Name: "raw", SkipFlagParsing: true, Action: func(*cli.Context) error { return nil }})
	line := []string{"airlock", "raw", "--x", "-h", "--", "y"}
	p, err := normalize(app, line)
	if err != nil || p.help || !slices.Equal(p.args, line) {
		t.Fatalf("normalize(%q) = %+v, %v; want the line as it is", line, p, err)
	}
}

// TestEveryCommandHasAShape: a new command declares what it takes; a
// forgotten entry would silently take nothing.
func TestEveryCommandHasAShape(t *testing.T) {
	seen := map[string]bool{}
	walkCommands(newApp().Commands, "", func(path string, c *cli.Command) {
		seen[path] = true
		if _, ok := argShapes[path]; c.Action != nil && !ok {
			t.Errorf("%s: no entry in argShapes (cli_grammar.go)", path)
		}
	})
	for path := range argShapes {
		if !seen[path] {
			t.Errorf("argShapes has %q, which is not a command", path)
		}
	}
}

// TestEveryCommandHasHelp: purpose, examples and exit codes for every
// command a person can see, a category for every top-level one, and
// every example a line the grammar accepts.
func TestEveryCommandHasHelp(t *testing.T) {
	app := newApp()
	seen := map[string]bool{"": true}
	walkCommands(app.Commands, "", func(path string, c *cli.Command) {
		if c.Hidden {
			return
		}
		seen[path] = true
		h, ok := helpTable[path]
		switch {
		case c.Usage == "":
			t.Errorf("%s: no Usage (its purpose)", path)
		case !ok || len(h.examples) == 0:
			t.Errorf("%s: no examples in helpTable (cli_help.go)", path)
		case c.Action != nil && len(h.exits) == 0:
			t.Errorf("%s: no exit codes in helpTable (cli_help.go)", path)
		}
		if !strings.Contains(path, " ") && (c.Category == "" || !slices.Contains(commandOrder, path)) {
			t.Errorf("%s: no category, or not in commandOrder (cli_help.go)", path)
		}
	})
	for path, h := range helpTable {
		if !seen[path] {
			t.Errorf("helpTable has %q, which is not a visible command", path)
		}
		for _, ex := range h.examples {
			words := shellWords(ex)
			if len(words) == 0 || words[0] != "airlock" {
				t.Errorf("%s: example %q does not start with airlock", path, ex)
				continue
			}
			p, err := normalize(app, words)
			if err != nil {
				t.Errorf("%s: example %q: %v", path, ex, err)
			} else if p.help && len(words) > 1 && words[1] != "help" {
				t.Errorf("%s: example %q only shows a help", path, ex)
			}
		}
	}
}

func TestDidYouMean(t *testing.T) {
	cands := []string{"scan", "verify", "report", "run", "policy", "pins", "profile"}
	for _, tc := range []struct{ typed, want string }{
		{"scna", "scan"},
		{"verfiy", "verify"},
		{"reprot", "report"},
		{"rn", "run"},
		{"polic", "policy"},
		{"prof", "profile"}, // the only one it starts
		{"p", ""},           // too short to guess
		{"xyzzy", ""},
		{"pi", "pins"},
	} {
		got := didYouMean(cands, tc.typed, "")
		want := ""
		if tc.want != "" {
			want = ` (did you mean "` + tc.want + `"?)`
		}
		if got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", tc.typed, got, want)
		}
	}
}

// FuzzNormalize: any command line either is refused as a usage error or
// becomes a line that normalizes to itself, so urfave/cli reads exactly
// what normalize read (words are split on spaces).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"scan DIR --sarif", "allow --match G TOOL", "run -- sh -c x", "pins --json list",
		"allow T --match=--dry-run", "update sign F -o - --key K", "policy check F --forbids",
		"log -n -1 --decision block", "run --yes cat -- --help", "help policy check",
	} {
		f.Add(s)
	}
	app := newApp()
	f.Fuzz(func(t *testing.T, line string) {
		argv := append([]string{"airlock"}, strings.Split(line, " ")...)
		p, err := normalize(app, argv)
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) || !strings.HasPrefix(ue.msg, "airlock") {
				t.Fatalf("%q: not a usage error: %v", line, err)
			}
			// one line, and nothing typed reaches the terminal raw
			for _, r := range ue.msg {
				if !unicode.IsPrint(r) && r != ' ' {
					t.Fatalf("%q: the error holds %U: %q", line, r, ue.msg)
				}
			}
			return
		}
		if p.help {
			return
		}
		again, err := normalize(app, p.args)
		if err != nil {
			t.Fatalf("%q → %q is refused: %v", line, p.args, err)
		}
		if !slices.Equal(again.args, p.args) || again.help {
			t.Fatalf("%q → %q → %q: not a fixed point", line, p.args, again.args)
		}
	})
}
