package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md from the commands' help")

const referenceFile = "../../docs/cli.md"

// TestCLIReference: docs/cli.md is every command's real --help, so the
// reference cannot drift from the program. -update rewrites it.
func TestCLIReference(t *testing.T) {
	got := renderReference(newApp())
	if *updateDocs {
		if err := os.WriteFile(referenceFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatalf("%v (write it with: go test ./cmd/airlock -run TestCLIReference -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			g, w := lineAt(gl, i), lineAt(wl, i)
			if g != w {
				t.Fatalf("docs/cli.md is stale from line %d:\n  file: %q\n  help: %q\nrewrite it with: go test ./cmd/airlock -run TestCLIReference -update", i+1, w, g)
			}
		}
	}
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}

// TestHelpIsWhatRunPrints: the reference renders what `airlock help X`
// and `airlock X --help` print, on stdout, with nothing on stderr.
func TestHelpIsWhatRunPrints(t *testing.T) {
	app := newApp()
	for _, path := range referencePaths(app) {
		var want bytes.Buffer
		writeHelp(&want, app, path)
		name := pathName(path)
		for _, line := range [][]string{
			append([]string{"airlock", "help"}, strings.Fields(name)...),
			append(append([]string{"airlock"}, strings.Fields(name)...), "--help"),
		} {
			var out, errb bytes.Buffer
			if code := runCLI(line, &out, &errb); code != 0 || errb.Len() > 0 || out.String() != want.String() {
				t.Errorf("%q: exit %d, stderr %q, stdout equal to the reference: %v", line, code, errb.String(), out.String() == want.String())
			}
		}
	}
}

// referencePaths are the commands the reference shows, in its order:
// airlock, then each category's commands with their subcommands.
func referencePaths(app *cli.App) [][]*cli.Command {
	out := [][]*cli.Command{nil}
	var walk func(path []*cli.Command)
	walk = func(path []*cli.Command) {
		out = append(out, path)
		for _, s := range visibleCommands(path[len(path)-1].Subcommands) {
			walk(append(append([]*cli.Command{}, path...), s))
		}
	}
	for _, n := range commandOrder {
		if c := findCommand(app.Commands, n); c != nil && !c.Hidden {
			walk([]*cli.Command{c})
		}
	}
	return out
}

func renderReference(app *cli.App) []byte {
	var b bytes.Buffer
	b.WriteString("# The airlock command line\n\n")
	b.WriteString("<!-- Generated from the commands' own help by `go test ./cmd/airlock -run TestCLIReference -update`; do not edit. -->\n\n")
	b.WriteString("Each section is what `airlock help COMMAND` (or `airlock COMMAND --help`) prints.\n")
	b.WriteString("Flags may come before or after a command's arguments; after `--` every word is an argument\n")
	b.WriteString("(`airlock run -- CMD…` hands everything after it to CMD untouched). An unknown flag or command,\n")
	b.WriteString("a missing value, a missing or unexpected argument is a usage error: exit 64, the problem and the\n")
	b.WriteString("usage on stderr, nothing on stdout.\n\n")
	b.WriteString("## Exit codes\n\n| command | exit codes |\n|---|---|\n")
	paths := referencePaths(app)
	for _, path := range paths[1:] {
		c := path[len(path)-1]
		if c.Action == nil {
			continue
		}
		var cells []string
		for _, e := range exitsOf(pathName(path)) {
			if e.meaning == usageMeaning {
				e.meaning = "usage error"
			}
			cells = append(cells, fmt.Sprintf("**%d** %s", e.code, strings.ReplaceAll(e.meaning, "|", `\|`)))
		}
		fmt.Fprintf(&b, "| `airlock %s` | %s |\n", pathName(path), strings.Join(cells, "<br>"))
	}
	for _, path := range paths {
		title := strings.TrimSpace("airlock " + pathName(path))
		fmt.Fprintf(&b, "\n## %s\n\n```text\n", title)
		writeHelp(&b, app, path)
		b.WriteString("```\n")
	}
	return b.Bytes()
}
