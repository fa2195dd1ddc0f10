// Package corpus reads the attack and benign corpora in testdata/corpus
// (format: testdata/corpus/README.md). Tests load it; nothing else does.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Case is one tool call with the decision the default profile must reach.
type Case struct {
	File     string
	Line     int
	Category string
	Expect   string // block | ask+ | ask | allow
	Tool     string
	Input    string // JSON with placeholders substituted
	Note     string
	Want     string   // for generated cases: a substring of the block reason
	Raw      string   // the line's EXPECT, TOOL and JSON fields before substitution: the case's key in a misses file
	Sources  []string // the category's "# source:" lines (class corpora)
	Profile  string   // the file's "# profile:" line (class corpora); empty means default
}

// Name identifies the case in test output.
func (c Case) Name() string {
	return fmt.Sprintf("%s:%d", filepath.Base(c.File), c.Line)
}

// Dir is testdata/corpus in this module.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "corpus")
}

// Load reads one corpus file, replacing {HOME}, {WS} and {USER}.
func Load(name, home, ws, user string) ([]Case, error) {
	path := filepath.Join(Dir(), name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	return parse(data, path, placeholders{"{HOME}": home, "{WS}": ws, "{USER}": user})
}

// parse reads the cases of one corpus file's data; path names it in errors
// and in each Case.
func parse(data []byte, path string, rep placeholders) ([]Case, error) {
	var out []Case
	cat, profile := "", ""
	var sources []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			cat = strings.TrimSpace(line[3:])
			sources = nil
			continue
		case strings.HasPrefix(line, "# source:"):
			sources = append(sources, strings.TrimSpace(strings.TrimPrefix(line, "# source:")))
			continue
		case strings.HasPrefix(line, "# profile:"):
			if len(out) > 0 || profile != "" {
				return nil, fmt.Errorf("%s:%d: a \"# profile:\" line comes once, before the first case", path, n)
			}
			profile = strings.TrimSpace(strings.TrimPrefix(line, "# profile:"))
			if profile == "" {
				return nil, fmt.Errorf("%s:%d: \"# profile:\" names no profile", path, n)
			}
			continue
		case strings.TrimSpace(line) == "", strings.HasPrefix(line, "#"):
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want EXPECT<TAB>TOOL<TAB>JSON", path, n)
		}
		c := Case{File: path, Line: n, Category: cat, Expect: f[0], Tool: f[1], Input: rep.Replace(f[2]),
			Raw: f[0] + "\t" + f[1] + "\t" + f[2], Sources: sources, Profile: profile}
		if len(f) == 4 {
			c.Note = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f[3]), "#"))
		}
		switch c.Expect {
		case "block", "ask+", "ask", "allow":
		default:
			return nil, fmt.Errorf("%s:%d: EXPECT %q: write block, ask+, ask or allow", path, n, c.Expect)
		}
		if !json.Valid([]byte(c.Input)) {
			return nil, fmt.Errorf("%s:%d: the tool input is not valid JSON", path, n)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	return out, nil
}

// placeholders substitutes {HOME}, {WS} and {USER}, but not inside the
// shell's own ${HOME} or perl's $ENV{HOME}, which an attack may spell
// literally.
type placeholders map[string]string

func (p placeholders) Replace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && (i == 0 || !isIdentOrDollar(s[i-1])) {
			done := false
			for k, v := range p {
				if strings.HasPrefix(s[i:], k) {
					b.WriteString(v)
					i += len(k) - 1
					done = true
					break
				}
			}
			if done {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Fixture is a home directory with a workspace repository inside it, as
// the corpora assume.
type Fixture struct {
	Root, Home, WS, User, AirlockHome string
}

// NewFixture lays out root/home/dev/proj/.git and root/airlock.
func NewFixture(root string) (Fixture, error) {
	f := Fixture{Root: root, Home: filepath.Join(root, "home", "dev"), User: "dev", AirlockHome: filepath.Join(root, "airlock")}
	f.WS = filepath.Join(f.Home, "proj")
	if err := os.MkdirAll(filepath.Join(f.WS, ".git"), 0o755); err != nil {
		return f, fmt.Errorf("corpus fixture: %w", err)
	}
	return f, nil
}

// Env is the process environment for a hook run in the fixture.
func (f Fixture) Env() []string {
	return []string{
		"HOME=" + f.Home, "USER=" + f.User, "AIRLOCK_HOME=" + f.AirlockHome,
		"PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(),
	}
}

// Load reads a corpus file for this fixture.
func (f Fixture) Load(name string) ([]Case, error) {
	return Load(name, f.Home, f.WS, f.User)
}

// ClassFiles lists the class corpora, testdata/corpus/classes/*.txt, as
// names Load takes.
func ClassFiles() ([]string, error) {
	m, err := filepath.Glob(filepath.Join(Dir(), "classes", "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("corpus classes: %w", err)
	}
	out := make([]string, 0, len(m))
	for _, p := range m {
		out = append(out, filepath.Join("classes", filepath.Base(p)))
	}
	return out, nil
}

// Misses reads testdata/corpus/classes/misses.tsv: the class cases the
// gate is known to get wrong, one per line as FILE<TAB>RAW (RAW as in
// Case.Raw). The list only shrinks: a case in it that passes fails the
// test as surely as a case missing from it that fails.
func Misses() (map[string]bool, error) {
	data, err := os.ReadFile(filepath.Join(Dir(), "classes", "misses.tsv"))
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]bool{}, nil
		}
		return nil, fmt.Errorf("corpus misses: %w", err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[line] = true
	}
	return out, nil
}

// MissKey is a case's line in misses.tsv.
func (c Case) MissKey() string {
	return filepath.Base(c.File) + "\t" + c.Raw
}

func isIdentOrDollar(c byte) bool {
	return c == '$' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Root is a fresh directory for a fixture outside the temporary directory:
// the bundled profiles allow writes under /tmp, so a home laid out there
// would let every write into it through. /var/tmp is used where it
// exists (removed when the test ends); elsewhere the test's own TempDir.
func Root(tb testing.TB) string {
	tb.Helper()
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
			dir, err := os.MkdirTemp("/var/tmp", "airlock-corpus-")
			if err == nil {
				tb.Cleanup(func() { os.RemoveAll(dir) })
				return dir
			}
		}
	}
	return tb.TempDir()
}
