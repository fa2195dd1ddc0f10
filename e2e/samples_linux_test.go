//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The samples of output in README.md and docs/*.md are checked against the
// real output of the built binaries, so that a page cannot drift from the
// program it describes.
//
// A checked sample is a fenced block right after a marker:
//
//	<!-- sample: airlock init -->
//	```
//	/home/you/.airlock/policy.yaml: wrote (profile default)
//	…
//	```
//
// The marker may span lines and carry options, one a line, before "-->":
//
//	exit: N        the command's expected exit status (default 0)
//	elide: A .. B  from the first line matching the regexp A up to, not
//	               including, the next line matching B (or the end), the
//	               output is shown as one line "…" (indented as the first
//	               line left out): for what differs from machine to machine
//
// Each file's samples run in order in one fresh world, as a newcomer would
// run them: a HOME made from testdata/samples/home (a Claude Code settings
// file, a project .mcp.json in ~/src/app, a Cursor mcp.json with a remote
// server, a Codex config.toml), the binaries in ~/.local/bin, commands run
// in ~/src/app with ~/.local/bin first on PATH and no terminal. "./install.sh"
// runs from the repository root with a PATH that lacks ~/.local/bin, as
// before the PATH step. In the output, HOME is shown as /home/you, and the
// values in normalise are compared by shape only.
//
// To refresh every sample from the real output after a deliberate change:
//
//	go test ./e2e -run TestDocSamples -update
var update = flag.Bool("update", false, "rewrite the checked samples in README.md and docs/ with the real output")

// shownHome is what the samples call the user's home directory.
const shownHome = "/home/you"

// normalise lists every value that differs from run to run; both the
// sample and the output are rewritten with it before they are compared.
var normalise = []struct {
	re   *regexp.Regexp
	with string
}{
	// a backup directory: backups/20261129T152524Z-f5bc632b
	{regexp.MustCompile(`\b\d{8}T\d{6}Z-[0-9a-f]{8}\b`), "<backup-id>"},
	// a timestamp in a file name: policy.yaml.bak-20261129T171828.818788110Z
	{regexp.MustCompile(`\b\d{8}T\d{6}(\.\d+)?Z\b`), "<time>"},
	// an RFC 3339 time
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b`), "<time>"},
	// a duration as Go prints it: 1.234s, 870ms, 12.5µs
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`), "<duration>"},
	// what the kernel offers: "Landlock ABI 7 … — 7 not enforced" (one
	// kernel has fewer gaps than another)
	{regexp.MustCompile(`\bLandlock ABI \d+\b`), "Landlock ABI <n>"},
	{regexp.MustCompile(`\b\d+ not enforced\b`), "<n> not enforced"},
}

// sample is one checked block of one file.
type sample struct {
	file       string
	line       int // the line of the marker, from 1
	command    string
	exit       int
	elide      []elision
	start, end int // the block's content: lines[start:end]
	want       string
}

type elision struct{ from, to *regexp.Regexp }

// docFiles are the pages whose samples are checked.
func docFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root = filepath.Join(filepath.Dir(file), "..")
	files = append(files, filepath.Join(root, "README.md"))
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, append(files, docs...)
}

var markerRe = regexp.MustCompile(`^<!-- sample: (.*?)\s*(-->)?$`)

// parseSamples finds every marker of one file and the block after it.
func parseSamples(file string, lines []string) ([]sample, error) {
	var out []sample
	for i := 0; i < len(lines); i++ {
		m := markerRe.FindStringSubmatch(lines[i])
		if m == nil {
			if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, "<!-- sample") || strings.HasPrefix(t, "<!--sample") {
				return nil, fmt.Errorf("%s:%d: a sample marker is one line \"<!-- sample: COMMAND -->\" (or options on the lines after it, then \"-->\")", file, i+1)
			}
			continue
		}
		s := sample{file: file, line: i + 1, command: m[1]}
		if s.command == "" {
			return nil, fmt.Errorf("%s:%d: the sample marker names no command", file, i+1)
		}
		if m[2] == "" { // options until -->
			for i++; ; i++ {
				if i == len(lines) {
					return nil, fmt.Errorf("%s:%d: the sample marker is never closed with -->", file, s.line)
				}
				opt := strings.TrimSpace(lines[i])
				if opt == "-->" {
					break
				}
				if err := s.option(opt); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
				}
			}
		}
		i++
		if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
			return nil, fmt.Errorf("%s:%d: the sample marker must be followed at once by a fenced block (```)", file, s.line)
		}
		s.start = i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: the sample's fenced block is never closed", file, s.line)
		}
		s.end = i
		s.want = strings.Join(lines[s.start:s.end], "\n") + "\n"
		out = append(out, s)
	}
	return out, nil
}

func (s *sample) option(opt string) error {
	key, val, ok := strings.Cut(opt, ":")
	val = strings.TrimSpace(val)
	switch {
	case !ok:
		return fmt.Errorf("sample option %q is not KEY: VALUE (exit, elide)", opt)
	case key == "exit":
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("sample option exit: %q is not a number", val)
		}
		s.exit = n
	case key == "elide":
		from, to, _ := strings.Cut(val, " .. ")
		e := elision{}
		var err error
		if e.from, err = regexp.Compile(from); err != nil {
			return fmt.Errorf("sample option elide: %w", err)
		}
		if to != "" {
			if e.to, err = regexp.Compile(to); err != nil {
				return fmt.Errorf("sample option elide: %w", err)
			}
		}
		s.elide = append(s.elide, e)
	default:
		return fmt.Errorf("unknown sample option %q (exit, elide)", key)
	}
	return nil
}

// applyElide replaces each elided run of lines of out with one "…" line.
func applyElide(out string, els []elision) (string, error) {
	lines := strings.SplitAfter(out, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, e := range els {
		start := -1
		for i, l := range lines {
			if e.from.MatchString(strings.TrimSuffix(l, "\n")) {
				start = i
				break
			}
		}
		if start < 0 {
			return "", fmt.Errorf("elide: no line of the output matches %q", e.from)
		}
		end := len(lines)
		if e.to != nil {
			for i := start + 1; i < len(lines); i++ {
				if e.to.MatchString(strings.TrimSuffix(lines[i], "\n")) {
					end = i
					break
				}
			}
		}
		first := lines[start]
		indent := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
		lines = append(lines[:start], append([]string{indent + "…\n"}, lines[end:]...)...)
	}
	return strings.Join(lines, ""), nil
}

func normalised(s string) string {
	for _, n := range normalise {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// sampleWorld is the fresh HOME one file's samples run in.
type sampleWorld struct {
	root, home, ws string
	goEnv          []string
}

func newSampleWorld(t *testing.T, root string) *sampleWorld {
	t.Helper()
	w := &sampleWorld{root: root, home: filepath.Join(t.TempDir(), "home")}
	w.ws = filepath.Join(w.home, "src", "app")
	fixture := filepath.Join(root, "e2e", "testdata", "samples", "home")
	err := filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		dst := filepath.Join(w.home, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(w.home, ".local", "bin")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"airlock", "airlock-hook", "airlock-mcp"} {
		b, err := os.ReadFile(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(local, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// install.sh builds with the Go of this test, its caches and modules:
	// the fresh HOME must not mean a cold build or a download
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN", "GOROOT"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		w.goEnv = append(w.goEnv, v+"="+strings.TrimSpace(string(out)))
	}
	w.goEnv = append(w.goEnv, "GOPROXY=off")
	return w
}

// run runs one sample's command as the page shows it and returns what a
// terminal would show (stdout and stderr interleaved) and the exit status.
func (w *sampleWorld) run(t *testing.T, command string) (string, int) {
	t.Helper()
	args, err := splitCommand(command)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	env := []string{"HOME=" + w.home, "USER=you", "LOGNAME=you", "SHELL=/bin/bash", "TERM=dumb", "LANG=C.UTF-8"}
	var cmd *exec.Cmd
	switch args[0] {
	case "./install.sh":
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(filepath.Join(w.root, "install.sh"), args[1:]...)
		cmd.Dir = w.root
		// before the PATH step: ~/.local/bin is not on it
		env = append(env, "PATH="+filepath.Dir(goBin)+":/usr/bin:/bin")
		env = append(env, w.goEnv...)
	case "airlock", "airlock-mcp", "airlock-hook":
		cmd = exec.Command(filepath.Join(w.home, ".local", "bin", args[0]), args[1:]...)
		cmd.Dir = w.ws
		env = append(env, "PATH="+filepath.Join(w.home, ".local", "bin")+":/usr/bin:/bin")
	default:
		t.Fatalf("sample command %q: only ./install.sh and the airlock binaries are run", command)
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal, as under an agent
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v", command, err)
		}
		code = ee.ExitCode()
	}
	return strings.ReplaceAll(out.String(), w.home, shownHome), code
}

// splitCommand splits a sample's command into words: spaces separate,
// single or double quotes group.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// lineDiff shows want and got line by line: "-" only in the sample, "+"
// only in the output.
func lineDiff(want, got string) string {
	a := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	b := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	// longest common subsequence, small inputs
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var d strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			d.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			d.WriteString("- " + a[i] + "\n")
			i++
		default:
			d.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return d.String()
}

// TestDocSamples runs every checked sample of README.md and docs/*.md and
// compares it with the real output, byte for byte after normalise.
func TestDocSamples(t *testing.T) {
	root, files := docFiles(t)
	total := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		samples, err := parseSamples(file, lines)
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, file)
		t.Run(rel, func(t *testing.T) {
			w := newSampleWorld(t, root)
			changed := false
			// from the last, so that rewriting a block keeps the earlier
			// blocks' line numbers; but run in order, first to last
			got := make([]string, len(samples))
			for i, s := range samples {
				out, code := w.run(t, s.command)
				shown, err := applyElide(out, s.elide)
				if err != nil {
					t.Errorf("%s:%d: %s: %v\nthe output:\n%s", rel, s.line, s.command, err, out)
					continue
				}
				got[i] = shown
				if code != s.exit {
					t.Errorf("%s:%d: %s exited %d, the sample says %d (option exit: N)\n%s", rel, s.line, s.command, code, s.exit, out)
				}
				if normalised(shown) != normalised(s.want) {
					if *update {
						changed = true
						continue
					}
					t.Errorf("%s:%d: the sample of %q no longer matches the real output (- sample, + output):\n%s\nIf the new output is right, refresh the samples: go test ./e2e -run TestDocSamples -update",
						rel, s.line, s.command, lineDiff(normalised(s.want), normalised(shown)))
				}
			}
			if !changed {
				return
			}
			for i := len(samples) - 1; i >= 0; i-- {
				s := samples[i]
				if got[i] == "" || normalised(got[i]) == normalised(s.want) {
					continue
				}
				block := strings.Split(strings.TrimSuffix(got[i], "\n"), "\n")
				lines = append(lines[:s.start], append(block, lines[s.end:]...)...)
			}
			if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: samples rewritten from the real output; review the diff", rel)
		})
		total += len(samples)
	}
	if total == 0 {
		t.Fatal("no checked sample found in README.md or docs/: the markers (<!-- sample: … -->) are gone")
	}
}

// The checker itself: an elided run, an option it does not know, a sample
// that has gone stale.
func TestDocSampleChecker(t *testing.T) {
	els := []elision{{regexp.MustCompile(`^  socket`), regexp.MustCompile(`^info  kernel`)}}
	got, err := applyElide("info  ask\n  socket: x\n  tty: y\ninfo  kernel\n", els)
	if err != nil || got != "info  ask\n  …\ninfo  kernel\n" {
		t.Errorf("applyElide = %q, %v", got, err)
	}
	if _, err := applyElide("nothing\n", els); err == nil {
		t.Error("an elide that matches nothing passed")
	}
	if _, err := parseSamples("x.md", []string{"<!-- sample: airlock doctor", "colour: red", "-->", "```", "```"}); err == nil {
		t.Error("an unknown option passed")
	}
	if _, err := parseSamples("x.md", []string{"<!--sample: airlock demo -->", "```", "```"}); err == nil {
		t.Error("a misspelt marker passed (it would leave its block unchecked)")
	}
	if s, err := parseSamples("x.md", []string{"a marker is `<!-- sample: COMMAND -->` in prose", "```", "```"}); err != nil || len(s) != 0 {
		t.Errorf("a marker quoted in prose was taken for one: %v, %v", s, err)
	}
	if _, err := parseSamples("x.md", []string{"<!-- sample: airlock demo -->", "", "```", "```"}); err == nil {
		t.Error("a marker not followed at once by its block passed")
	}
	s, err := parseSamples("x.md", []string{"<!-- sample: airlock uninstall", "exit: 1", "-->", "```", "a", "b", "```"})
	if err != nil || len(s) != 1 || s[0].exit != 1 || s[0].want != "a\nb\n" || s[0].command != "airlock uninstall" {
		t.Errorf("parseSamples = %+v, %v", s, err)
	}
	if normalised("backups/20261129T152524Z-f5bc632b/x") != normalised("backups/20261201T234201Z-21f9cb44/x") {
		t.Error("two backup ids differ after normalise")
	}
	if normalised("18 records") == normalised("19 records") {
		t.Error("normalise hides a count")
	}
	if d := lineDiff("a\nb\nc\n", "a\nB\nc\n"); d != "  a\n- b\n+ B\n  c\n" {
		t.Errorf("lineDiff = %q", d)
	}
	w, err := splitCommand(`airlock check --tool Bash --input '{"command":"ls -l"}'`)
	if err != nil || len(w) != 6 || w[5] != `{"command":"ls -l"}` {
		t.Errorf("splitCommand = %q, %v", w, err)
	}
}
