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
	"slices"
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
//	env: K=V       added to the command's environment (repeatable)
//	stdin: TEXT    the command's standard input, one line (a hook event)
//	screen: WxH    run a full-screen command in a W×H terminal (tmux) and
//	until: RE      show its screen once it matches RE and has settled
//
// Other markers:
//
//	<!-- session -->      the block is a transcript: each "$ COMMAND" line is
//	                      run and followed by its output; a comment
//	                      "# exit N" after the command is its exit status
//	<!-- setup: CMD -->   run CMD, show nothing (state for later samples);
//	                      once per stdin: option; its exit is checked only
//	                      when exit: is given
//	<!-- file: PATH       write the lines up to "-->" to PATH (relative to
//	…                     the workspace; ~/ is the home)
//	-->
//	<!-- edit: PATH       replace old: with new: once on line: N of PATH,
//	…                     as sed -i would (a record tampered with)
//	-->
//	<!-- illustration: WHY -->  the block is not run (a notification, a
//	                      person answering at a terminal): WHY says why
//
// In README.md and docs/*.md every fenced block with no language is output and
// must follow one of sample, session or illustration (unmarkedOutput).
//
// Each file's samples run in order in one fresh world, as a newcomer would
// run them: a HOME made from testdata/samples/home (a Claude Code settings
// file, a project .mcp.json in ~/src/app, a Cursor mcp.json with a remote
// server, a Codex config.toml), the binaries in ~/.local/bin, commands run
// in ~/src/app with ~/.local/bin first on PATH, TMPDIR ~/tmp and no
// terminal (the world lives under the user's cache directory, not /tmp,
// which the default profile lets every write into). "./install.sh"
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
	// the egress proxy's port: TCP port 41303
	{regexp.MustCompile(`\bport \d+\b`), "port <port>"},
	// a new ed25519 public key: AIRLOCK_FEED_KEY=gcn44xZ5…Oxy4=
	{regexp.MustCompile(`\bAIRLOCK_FEED_KEY=[A-Za-z0-9+/]{43}=`), "AIRLOCK_FEED_KEY=<public key>"},
	// a date: added: 2026-11-29
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\d\b`), "<date>"},
	// a time of day: 17:19:09, 13:50:28.629Z
	{regexp.MustCompile(`\b\d\d:\d\d:\d\d(\.\d+Z?)?`), "<clock>"},
	// a digest or a record's hash, whole or shortened (sha256:6abc288f78dd…,
	// the board's sha256:6…abb278e01515455): it changes with the time in a
	// record, the home's path, or a bundled profile
	{regexp.MustCompile(`(\bsha256:[0-9a-f]…)?\b[0-9a-f]{12,}\b`), "<hex>"},
	// a duration as Go prints it: 1.234s, 870ms, 12.5µs
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`), "<duration>"},
	// what the kernel offers: "Landlock ABI 7 … — 7 not enforced" (one
	// kernel has fewer gaps than another)
	{regexp.MustCompile(`\bLandlock ABI \d+\b`), "Landlock ABI <n>"},
	{regexp.MustCompile(`\b\d+ not enforced\b`), "<n> not enforced"},
	{regexp.MustCompile(`\bnot enforced \(\d+\)`), "not enforced (<n>)"},
}

// step kinds: what a marker asks for
const (
	kindSample  = "sample"       // run COMMAND, its output is the block
	kindSession = "session"      // the block is a transcript: "$ COMMAND" lines and their output
	kindSetup   = "setup"        // run COMMAND, nothing shown (its exit checked if exit: is given)
	kindFile    = "file"         // write the marker's lines to PATH, nothing shown
	kindIllus   = "illustration" // the block is not run: the marker says why
	kindEdit    = "edit"         // replace old: with new: once on line: of PATH, nothing shown
)

// sample is one step of one file: a checked block, a setup or an
// illustration.
type sample struct {
	kind       string
	file       string
	line       int    // the line of the marker, from 1
	command    string // sample, setup: the command; file: the path; illustration: why
	exit       int
	exitSet    bool // exit: was given (a setup's exit is checked only then)
	elide      []elision
	env        []string // KEY=VALUE
	stdin      []string // sample: at most one; setup: one run of the command each
	screen     [2]int   // sample: run in a terminal of this width and height (tmux)
	until      *regexp.Regexp
	editLine   int    // edit: the line, from 1
	editOld    string // edit: what is replaced, once
	editNew    string
	content    string // file: what is written
	start, end int    // the block's content: lines[start:end] (sample, session, illustration)
	want       string
	cmds       []sessionCmd // session
}

// sessionCmd is one "$ COMMAND" of a session block.
type sessionCmd struct {
	text   string // as shown after "$ ", with its comment
	exit   int    // from a comment "# exit N"
	output []string
	gap    bool // a blank line separates it from the next command
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

var markerRe = regexp.MustCompile(`^<!-- (sample|setup|file|illustration|edit): (.*?)\s*(-->)?$|^<!-- (session)\s*(-->)?$`)

// parseSamples finds every marker of one file and the block after it.
func parseSamples(file string, lines []string) ([]sample, error) {
	var out []sample
	for i := 0; i < len(lines); i++ {
		m := markerRe.FindStringSubmatch(lines[i])
		if m == nil {
			t := strings.TrimSpace(lines[i])
			for _, k := range []string{kindSample, kindSession, kindSetup, kindFile, kindIllus, kindEdit} {
				if strings.HasPrefix(t, "<!-- "+k) || strings.HasPrefix(t, "<!--"+k) {
					return nil, fmt.Errorf("%s:%d: a %s marker is one line \"<!-- %s: … -->\" (or options on the lines after it, then \"-->\")", file, i+1, k, k)
				}
			}
			continue
		}
		s := sample{file: file, line: i + 1, kind: m[1], command: m[2]}
		closed := m[3] != ""
		if m[4] != "" {
			s.kind, closed = kindSession, m[5] != ""
		}
		if s.kind != kindSession && s.command == "" {
			return nil, fmt.Errorf("%s:%d: the %s marker names nothing", file, i+1, s.kind)
		}
		if !closed { // options (or a file's content) until -->
			var content []string
			for i++; ; i++ {
				if i == len(lines) {
					return nil, fmt.Errorf("%s:%d: the %s marker is never closed with -->", file, s.line, s.kind)
				}
				if strings.TrimSpace(lines[i]) == "-->" {
					break
				}
				if s.kind == kindFile {
					content = append(content, lines[i])
					continue
				}
				if err := s.option(strings.TrimSpace(lines[i])); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
				}
			}
			if len(content) > 0 {
				s.content = strings.Join(content, "\n") + "\n"
			}
		}
		if (s.screen[0] == 0) != (s.until == nil) || (s.screen[0] != 0 && s.kind != kindSample) {
			return nil, fmt.Errorf("%s:%d: screen: and until: go together, on a sample", file, s.line)
		}
		if s.kind == kindSample && len(s.stdin) > 1 {
			return nil, fmt.Errorf("%s:%d: a sample reads one stdin: (a setup runs once per stdin:)", file, s.line)
		}
		if (s.kind == kindEdit) != (s.editLine > 0) || (s.kind == kindEdit && s.editOld == "") {
			return nil, fmt.Errorf("%s:%d: line: and old: (with new:) go together, on an edit", file, s.line)
		}
		if s.kind == kindSetup || s.kind == kindFile || s.kind == kindEdit {
			out = append(out, s)
			continue
		}
		i++
		if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
			return nil, fmt.Errorf("%s:%d: the %s marker must be followed at once by a fenced block (```)", file, s.line, s.kind)
		}
		s.start = i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: the sample's fenced block is never closed", file, s.line)
		}
		s.end = i
		s.want = strings.Join(lines[s.start:s.end], "\n") + "\n"
		if s.kind == kindSession {
			cmds, err := parseSession(lines[s.start:s.end])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, s.line, err)
			}
			s.cmds = cmds
		}
		out = append(out, s)
	}
	return out, nil
}

var exitComment = regexp.MustCompile(`^exit (\d+)\b`)

// parseSession reads a transcript: each "$ COMMAND" line, then its output
// up to the next "$ " line; a blank line just before a "$ " line separates.
func parseSession(block []string) ([]sessionCmd, error) {
	var cmds []sessionCmd
	for _, l := range block {
		if text, ok := strings.CutPrefix(l, "$ "); ok {
			if n := len(cmds); n > 0 && len(cmds[n-1].output) > 0 && cmds[n-1].output[len(cmds[n-1].output)-1] == "" {
				cmds[n-1].output = cmds[n-1].output[:len(cmds[n-1].output)-1]
				cmds[n-1].gap = true
			}
			c := sessionCmd{text: text}
			_, comment, err := splitComment(text, "")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", text, err)
			}
			if m := exitComment.FindStringSubmatch(comment); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
			}
			cmds = append(cmds, c)
			continue
		}
		if len(cmds) == 0 {
			return nil, errors.New("a session block starts with a \"$ COMMAND\" line")
		}
		cmds[len(cmds)-1].output = append(cmds[len(cmds)-1].output, l)
	}
	return cmds, nil
}

// shown is a session as the page shows it, with outputs.
func shownSession(cmds []sessionCmd, outputs []string) string {
	var b strings.Builder
	for i, c := range cmds {
		b.WriteString("$ " + c.text + "\n")
		b.WriteString(outputs[i])
		if c.gap && i < len(cmds)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (s *sample) option(opt string) error {
	key, val, ok := strings.Cut(opt, ":")
	val = strings.TrimSpace(val)
	switch {
	case !ok:
		return fmt.Errorf("sample option %q is not KEY: VALUE (exit, elide, env, stdin)", opt)
	case key == "exit":
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("sample option exit: %q is not a number", val)
		}
		s.exit, s.exitSet = n, true
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
	case key == "env":
		if k, _, ok := strings.Cut(val, "="); !ok || k == "" {
			return fmt.Errorf("sample option env: %q is not KEY=VALUE", val)
		}
		s.env = append(s.env, val)
	case key == "stdin":
		s.stdin = append(s.stdin, val)
	case key == "screen":
		w, h, ok := strings.Cut(val, "x")
		var err1, err2 error
		s.screen[0], err1 = strconv.Atoi(w)
		s.screen[1], err2 = strconv.Atoi(h)
		if !ok || err1 != nil || err2 != nil || s.screen[0] < 20 || s.screen[1] < 5 {
			return fmt.Errorf("sample option screen: %q is not WIDTHxHEIGHT (e.g. 120x18)", val)
		}
	case key == "line":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("edit option line: %q is not a line number", val)
		}
		s.editLine = n
	case key == "old":
		s.editOld = val
	case key == "new":
		s.editNew = val
	case key == "until":
		re, err := regexp.Compile(val)
		if err != nil {
			return fmt.Errorf("sample option until: %w", err)
		}
		s.until = re
	default:
		return fmt.Errorf("unknown sample option %q (exit, elide, env, stdin, screen, until)", key)
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
	// not under the temp dir: the default profile lets every write to
	// /tmp through, and the pages show writes outside the workspace
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(cache, "airlock-samples-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	w := &sampleWorld{root: root, home: filepath.Join(dir, "home")}
	w.ws = filepath.Join(w.home, "src", "app")
	fixture := filepath.Join(root, "e2e", "testdata", "samples", "home")
	err = filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
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
	// the temp dir is the world's own, so a path under HOME is not "tmp"
	if err := os.MkdirAll(filepath.Join(w.home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// real turns what the page shows into what the world has: the page's
// /home/you is the world's home.
func (w *sampleWorld) real(s string) string { return strings.ReplaceAll(s, shownHome, w.home) }

// run runs one command as the page shows it and returns what a terminal
// would show (stdout and stderr interleaved) and the exit status. env adds
// to the world's environment; stdin, if not nil, is the command's input.
func (w *sampleWorld) run(t *testing.T, command string, env []string, stdin *string) (string, int) {
	t.Helper()
	args, _, err := splitComment(w.real(command), w.home)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if len(args) == 0 {
		t.Fatalf("%s: empty command", command)
	}
	base := []string{"HOME=" + w.home, "USER=you", "LOGNAME=you", "SHELL=/bin/bash", "TERM=dumb", "LANG=C.UTF-8", "TMPDIR=" + filepath.Join(w.home, "tmp")}
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
		base = append(base, "PATH="+filepath.Dir(goBin)+":/usr/bin:/bin")
		base = append(base, w.goEnv...)
	case "airlock", "airlock-mcp", "airlock-hook":
		cmd = exec.Command(filepath.Join(w.home, ".local", "bin", args[0]), args[1:]...)
		cmd.Dir = w.ws
		base = append(base, "PATH="+filepath.Join(w.home, ".local", "bin")+":/usr/bin:/bin")
	default:
		t.Fatalf("sample command %q: only ./install.sh and the airlock binaries are run", command)
	}
	for _, e := range env {
		base = append(base, w.real(e))
	}
	cmd.Env = base
	if stdin != nil {
		cmd.Stdin = strings.NewReader(w.real(*stdin) + "\n")
	}
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

// writeFile writes a file step's content (a relative path is in the
// workspace, ~/ and /home/you are the world's home).
func (w *sampleWorld) writeFile(path, content string) error {
	path = w.real(path)
	if strings.HasPrefix(path, "~/") {
		path = w.home + path[1:]
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.ws, path)
	}
	if !strings.HasPrefix(path, w.home+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the sample home", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(w.real(content)), 0o644)
}

// screen runs a full-screen sample in a terminal of its size (a tmux pane
// on a private server) and returns the screen once it shows until and has
// settled (two captures alike), the home shown as /home/you, trailing
// blank lines dropped; then it sends q.
func (w *sampleWorld) screen(t *testing.T, s sample) string {
	t.Helper()
	args, _, err := splitComment(w.real(s.command), w.home)
	if err != nil || len(args) == 0 || !strings.HasPrefix(args[0], "airlock") {
		t.Fatalf("%s: a screen sample runs an airlock binary (%v)", s.command, err)
	}
	env := []string{"HOME=" + w.home, "USER=you", "LOGNAME=you", "SHELL=/bin/bash", "LANG=C.UTF-8",
		"TMPDIR=" + filepath.Join(w.home, "tmp"), "PATH=" + filepath.Join(w.home, ".local", "bin") + ":/usr/bin:/bin"}
	for _, e := range s.env {
		env = append(env, w.real(e))
	}
	pane := newTmuxPane(t, env)
	var sh strings.Builder
	sh.WriteString("cd " + shellQuote(w.ws) + " && exec env")
	for _, kv := range env {
		sh.WriteString(" " + shellQuote(kv))
	}
	sh.WriteString(" TERM=xterm-256color " + shellQuote(filepath.Join(w.home, ".local", "bin", args[0])))
	for _, a := range args[1:] {
		sh.WriteString(" " + shellQuote(a))
	}
	pane.must("new-session", "-d", "-s", "board", "-x", strconv.Itoa(s.screen[0]), "-y", strconv.Itoa(s.screen[1]), sh.String())
	last := ""
	screen := pane.waitFor(fmt.Sprintf("%q on the screen of %s", s.until, s.command), func(screen string) bool {
		settled := screen == last && s.until.MatchString(screen)
		last = screen
		return settled
	})
	_, _ = pane.cmd("send-keys", "-t", "board", "q")
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.ReplaceAll(strings.Join(lines, "\n")+"\n", w.home, shownHome)
}

// edit replaces editOld with editNew once on one line of a file, as
// "sed -i 'Ns/OLD/NEW/'" would: someone tampering with a record.
func (w *sampleWorld) edit(s sample) error {
	path := w.real(s.command)
	if strings.HasPrefix(path, "~/") {
		path = w.home + path[1:]
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.ws, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	if s.editLine > len(lines) || !strings.Contains(lines[s.editLine-1], s.editOld) {
		return fmt.Errorf("%s line %d does not hold %q", s.command, s.editLine, s.editOld)
	}
	lines[s.editLine-1] = strings.Replace(lines[s.editLine-1], s.editOld, s.editNew, 1)
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600)
}

// splitComment splits a command into words as a shell would: spaces
// separate, single or double quotes group, an unquoted ~ that starts a word
// (alone or before /) is home when home is not "", and an unquoted # at the
// start of a word begins a comment (returned).
func splitComment(s, home string) (words []string, comment string, err error) {
	var cur strings.Builder
	in, quote := false, rune(0)
	for i, r := range s {
		switch {
		case r == '~' && !in && quote == 0 && home != "" && (i+1 == len(s) || s[i+1] == '/' || s[i+1] == ' '):
			cur.WriteString(home)
			in = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#' && !in:
			return words, strings.TrimSpace(s[i+1:]), nil
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
		return nil, "", fmt.Errorf("unclosed %c", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, "", nil
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
		rel, _ := filepath.Rel(root, file)
		for _, e := range unmarkedOutput(rel, lines) {
			t.Error(e)
		}
		checked := 0
		for _, s := range samples {
			if s.kind == kindSample || s.kind == kindSession {
				checked++
			}
		}
		if checked == 0 {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			w := newSampleWorld(t, root)
			changed := false
			got := make([]string, len(samples))
			for i, s := range samples {
				var shown string
				switch s.kind {
				case kindIllus:
					continue
				case kindFile:
					if err := w.writeFile(s.command, s.content); err != nil {
						t.Fatalf("%s:%d: file: %v", rel, s.line, err)
					}
					continue
				case kindEdit:
					if err := w.edit(s); err != nil {
						t.Fatalf("%s:%d: edit: %v", rel, s.line, err)
					}
					continue
				case kindSetup:
					runs := s.stdin
					if len(runs) == 0 {
						runs = []string{""}
					}
					for j := range runs {
						var in *string
						if len(s.stdin) > 0 {
							in = &s.stdin[j]
						}
						out, code := w.run(t, s.command, s.env, in)
						if s.exitSet && code != s.exit {
							t.Fatalf("%s:%d: setup %s exited %d, the marker says %d (option exit: N)\n%s", rel, s.line, s.command, code, s.exit, out)
						}
					}
					continue
				case kindSample:
					if s.screen[0] != 0 {
						shown = w.screen(t, s)
						break
					}
					var in *string
					if len(s.stdin) == 1 {
						in = &s.stdin[0]
					}
					out, code := w.run(t, s.command, s.env, in)
					if code != s.exit {
						t.Errorf("%s:%d: %s exited %d, the sample says %d (option exit: N)\n%s", rel, s.line, s.command, code, s.exit, out)
					}
					shown = out
				case kindSession:
					outs := make([]string, len(s.cmds))
					for j, c := range s.cmds {
						out, code := w.run(t, c.text, s.env, nil)
						if code != c.exit {
							t.Errorf("%s:%d: %s exited %d, the session says %d (a comment \"# exit N\")\n%s", rel, s.line, c.text, code, c.exit, out)
						}
						outs[j] = out
					}
					shown = shownSession(s.cmds, outs)
				}
				out := shown
				shown, err := applyElide(out, s.elide)
				if err != nil {
					t.Errorf("%s:%d: %s: %v\nthe output:\n%s", rel, s.line, s.command, err, out)
					continue
				}
				got[i] = shown
				if normalised(shown) != normalised(s.want) {
					if *update {
						changed = true
						continue
					}
					what := s.command
					if s.kind == kindSession {
						what = "session"
					}
					t.Errorf("%s:%d: the sample of %q no longer matches the real output (- sample, + output):\n%s\nIf the new output is right, refresh the samples: go test ./e2e -run TestDocSamples -update",
						rel, s.line, what, lineDiff(normalised(s.want), normalised(shown)))
				}
			}
			if !changed {
				return
			}
			// from the last, so that rewriting a block keeps the earlier
			// blocks' line numbers
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
		total += checked
	}
	if total == 0 {
		t.Fatal("no checked sample found in README.md or docs/: the markers (<!-- sample: … -->) are gone")
	}
}

// generatedDocs are checked by their own generator's test, not here.
var generatedDocs = map[string]string{
	filepath.Join("docs", "cli.md"): "TestCLIReference (cmd/airlock) rewrites it from every command's --help",
}

// unmarkedOutput names each block of a page that could be output
// but carries no marker. The rule: a fence with no language (a bare
// three backticks) is output, and right above it there must be a sample,
// session or illustration marker; commands to type are fenced as sh,
// files as json, yaml or text.
func unmarkedOutput(rel string, lines []string) []string {
	if _, ok := generatedDocs[rel]; ok {
		return nil
	}
	var errs []string
	in, comment := false, false
	for i, l := range lines {
		// a file: marker's content is not the page's
		if !in && !comment && strings.HasPrefix(l, "<!--") && !strings.Contains(l, "-->") {
			comment = true
			continue
		}
		if comment {
			comment = !strings.Contains(l, "-->")
			continue
		}
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			continue
		}
		if in {
			in = false
			continue
		}
		in = true
		if strings.TrimSpace(l) != "```" {
			continue
		}
		j := i - 1
		if j >= 0 && strings.TrimSpace(lines[j]) == "-->" { // the options of a marker
			for j--; j >= 0 && !strings.HasPrefix(lines[j], "<!-- "); j-- {
			}
		}
		marked := false
		if j >= 0 {
			m := markerRe.FindStringSubmatch(lines[j])
			marked = m != nil && m[1] != kindSetup && m[1] != kindFile && m[1] != kindEdit
		}
		if !marked {
			errs = append(errs, fmt.Sprintf("%s:%d: a fenced block with no language is output: put a <!-- sample: COMMAND -->, <!-- session --> or <!-- illustration: WHY --> marker right above it, or give the fence a language (sh for commands, json, yaml or text for files)", rel, i+1))
		}
	}
	return errs
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
	if _, err := parseSamples("x.md", []string{"<!-- sample: airlock monitor", "screen: 120x18", "-->", "```", "```"}); err == nil {
		t.Error("a screen: without until: passed (it would capture whatever came first)")
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
	if normalised("sha256:6…33efdd83fc0a0fa x") != normalised("sha256:f…1d1a5d0bace17e2 x") {
		t.Error("two shortened digests differ after normalise")
	}
	if normalised("18 records") == normalised("19 records") {
		t.Error("normalise hides a count")
	}
	// a session: commands, their outputs, "# exit N", blank separators
	ss, err := parseSamples("x.md", []string{"<!-- session -->", "```", "$ airlock log   # exit 1", "a", "", "$ airlock demo", "b", "```"})
	if err != nil || len(ss) != 1 || len(ss[0].cmds) != 2 || ss[0].cmds[0].exit != 1 || !ss[0].cmds[0].gap || ss[0].cmds[1].exit != 0 {
		t.Fatalf("parseSamples(session) = %+v, %v", ss, err)
	}
	if got := shownSession(ss[0].cmds, []string{"A\n", "B\n"}); got != "$ airlock log   # exit 1\nA\n\n$ airlock demo\nB\n" {
		t.Errorf("shownSession = %q", got)
	}
	if _, err := parseSamples("x.md", []string{"<!-- session -->", "```", "output before any command", "```"}); err == nil {
		t.Error("a session that does not start with $ passed")
	}
	// setup and file steps take no block; a file keeps its lines
	ss, err = parseSamples("x.md", []string{"<!-- setup: airlock-hook", "stdin: {}", "stdin: {}", "-->", "<!-- file: ~/a", "x", "-->", "text"})
	if err != nil || len(ss) != 2 || len(ss[0].stdin) != 2 || ss[0].exitSet || ss[1].content != "x\n" {
		t.Errorf("parseSamples(setup, file) = %+v, %v", ss, err)
	}
	// an edit names its line and what it replaces
	if _, err := parseSamples("x.md", []string{"<!-- edit: ~/.airlock/audit.jsonl", "old: allow", "-->"}); err == nil {
		t.Error("an edit without line: passed")
	}
	if _, err := parseSamples("x.md", []string{"<!-- sample: airlock log", "line: 4", "-->", "```", "```"}); err == nil {
		t.Error("line: on a sample passed")
	}
	ew := &sampleWorld{home: t.TempDir()}
	ew.ws = ew.home
	if err := os.WriteFile(filepath.Join(ew.home, "log"), []byte("a allow\nb allow allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ew.edit(sample{command: "~/log", editLine: 2, editOld: "allow", editNew: "block"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ew.home, "log")); string(b) != "a allow\nb block allow\n" {
		t.Errorf("edit wrote %q", b)
	}
	if err := ew.edit(sample{command: "~/log", editLine: 1, editOld: "deny"}); err == nil {
		t.Error("an edit of text the line does not hold passed")
	}
	// the rule: a bare fence needs a marker; a fence with a language does not
	for _, c := range []struct {
		lines []string
		bad   int
	}{
		{[]string{"text", "```", "out", "```"}, 1},
		{[]string{"```sh", "airlock demo", "```"}, 0},
		{[]string{"<!-- illustration: a notification -->", "```", "x", "```"}, 0},
		{[]string{"<!-- sample: airlock log", "exit: 1", "-->", "```", "x", "```"}, 0},
		{[]string{"<!-- session -->", "```", "$ airlock log", "```"}, 0},
		{[]string{"<!-- setup: airlock log -->", "```", "x", "```"}, 1}, // a setup shows nothing
		{[]string{"<!-- file: a", "```", "in the file", "```", "-->", "```", "x", "```"}, 1},
		{[]string{"<!-- sample: airlock log -->", "", "```", "x", "```"}, 1},
	} {
		if got := unmarkedOutput("docs/x.md", c.lines); len(got) != c.bad {
			t.Errorf("unmarkedOutput(%q) = %q, want %d", c.lines, got, c.bad)
		}
	}
	if d := lineDiff("a\nb\nc\n", "a\nB\nc\n"); d != "  a\n- b\n+ B\n  c\n" {
		t.Errorf("lineDiff = %q", d)
	}
	w, c, err := splitComment(`airlock check --tool Bash --input '{"command":"ls -l # x"}'   # exit 3: ask`, "/h")
	if err != nil || len(w) != 6 || w[5] != `{"command":"ls -l # x"}` || c != "exit 3: ask" {
		t.Errorf("splitComment = %q, %q, %v", w, c, err)
	}
	// ~ is the home only unquoted at the start of a word, as in a shell
	if w, _, _ := splitComment(`cat ~/.ssh/id_rsa '~/x' a~/b ~`, "/h"); !slices.Equal(w, []string{"cat", "/h/.ssh/id_rsa", "~/x", "a~/b", "/h"}) {
		t.Errorf("splitComment(~) = %q", w)
	}
}
