package policy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentairlock/airlock/policy/shell"
)

// A shell grant by command (grants: - tool: Bash, commands: [...]). A text
// match over a command line cannot stop what is chained after it, nor a
// redirection or an environment assignment in front of it; a commands
// grant is matched against the parsed program instead:
//
//   - every simple command of the call (wrappers such as sudo or sh -c are
//     commands too, and so is what they run) must fit one of the patterns;
//   - a pattern is words separated by single spaces, met word by word
//     against the command's words (quotes removed): a word pattern's '*'
//     is any run of characters within one word and '?' one character (a
//     space inside a word too); a word pattern "**" is any number of words.
//     "git push origin *" is git push origin and one more word, never
//     "git push origin main --force"; and a word that begins with '-' (an
//     option) is met only by a word pattern that begins with '-', so it is
//     never "git push origin --force" either;
//   - the call assigns no environment variable, raises no signal (an
//     unparsed command never fits) and has no word known only when it runs
//     ($V, $(…): a value the grant cannot see; an unquoted *.o or ~name,
//     which the shell replaces by file names or a home; the words xargs
//     and parallel read from their input);
//   - every path and host the call names is one of its commands' words: a
//     redirection (> file, < file) or a path inside interpreter code is
//     not covered by the words the person granted.

// IsShellTool reports whether calls of tool carry a shell command line.
func IsShellTool(tool string) bool { return toolKindOf(tool) == kindShell }

type commandsMatch struct {
	pats [][]string // word patterns, variables expanded
}

func compileGrantCommands(src []string, vars Vars) (matcher, error) {
	var m commandsMatch
	for _, c := range src {
		if c == "" {
			return nil, errors.New("grant commands: an empty command: write the command, e.g. \"git status\"")
		}
		// split, then expand: a variable is one word wherever it is,
		// even a ${home} with a space in it
		words := strings.Split(c, " ")
		ok := true
		for i, w := range words {
			e, wok, err := vars.expand(w)
			if err != nil {
				return nil, fmt.Errorf("grant command %q: %w", c, err)
			}
			words[i], ok = e, ok && wok
		}
		if ok {
			m.pats = append(m.pats, words)
		}
	}
	return m, nil
}

func (m commandsMatch) match(f *Facts) bool {
	if len(f.Commands) == 0 {
		return false
	}
	for i := range f.Commands {
		ok := false
		for _, p := range m.pats {
			if matchWords(p, f.Commands[i].Argv) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	// the words fit: now what rides beside them (the costlier check, a
	// parse of the program for its redirections)
	return commandsCoverable(f)
}

// matchWords meets words against word patterns, "**" standing for any
// number of words. Only the last "**" seen is ever returned to, as in a
// glob's star: O(len(pats) × len(words)).
func matchWords(pats, words []string) bool {
	pi, wi := 0, 0
	star, starWi := -1, 0
	for wi < len(words) {
		switch {
		case pi < len(pats) && pats[pi] == "**":
			star, starWi = pi, wi
			pi++
		case pi < len(pats) && wordFits(pats[pi], words[wi]):
			pi++
			wi++
		case star >= 0:
			starWi++
			pi, wi = star+1, starWi
		default:
			return false
		}
	}
	for pi < len(pats) && pats[pi] == "**" {
		pi++
	}
	return pi == len(pats)
}

// wordFits meets one word against one word pattern. A word that begins
// with '-' (an option: --force, -c, --exec=…, and the '-' of stdin) is met
// only by a pattern that begins with '-' itself: a '*' stands for an
// argument, so a grant for git push origin * (a branch) does not cover git
// push origin --force, as a shell's * does not meet a leading dot.
func wordFits(pat, word string) bool {
	if strings.HasPrefix(word, "-") && !strings.HasPrefix(pat, "-") {
		return false
	}
	return globMatch(pat, word)
}

func commandsCoverable(f *Facts) bool { return whyNotCoverable(f) == "" }

func whyNotCoverable(f *Facts) string {
	switch {
	case f.TooLarge != "":
		return "its arguments are too large to inspect"
	case len(f.Commands) == 0:
		return "it holds no command"
	case len(f.Signals) > 0:
		return fmt.Sprintf("the shell flagged it (%s)", f.Signals[0].Signal)
	case len(f.Env) > 0:
		return fmt.Sprintf("it sets the environment variable %s", f.Env[0].Name)
	}
	if why := shell.HiddenEffect(f.Primary); why != "" {
		return why
	}
	// the words, as written and as the places they name from the
	// command's directory (a path after a cd is recorded absolute)
	words := map[string]bool{}
	for i := range f.Commands {
		c := &f.Commands[i]
		switch c.Program() {
		case "xargs", "parallel":
			// the command it runs takes words from its input
			return fmt.Sprintf("%s gives the command it runs words read from its input, known only when it runs", c.Program())
		}
		for j, w := range c.Argv {
			if strings.Contains(w, "$") {
				return fmt.Sprintf("the word %s is only known when it runs (a variable or a command's output)", w)
			}
			if j > 0 {
				words[w] = true
				if abs := absArg(w, c.Dir); abs != "" {
					words[abs] = true
				}
			}
		}
	}
	for _, p := range f.Paths {
		if !words[p.Raw] && !words[p.Path] {
			return fmt.Sprintf("it reaches %s other than as a command's argument (a redirection or code)", p.Raw)
		}
	}
	for _, h := range f.Hosts {
		if !words[h.Raw] {
			return fmt.Sprintf("it reaches %s other than as a command's argument", h.Raw)
		}
	}
	return ""
}

// FoldCommands is the commands grant for the shell call latest, folded
// over every earlier call in targets that is the same call: the same
// simple commands by program and subcommand (the words up to the first
// positional argument, as written). Per command, calls with the same
// words give the command exactly; calls with as many words, options (a
// word beginning with '-') at the same places, that differ
// give, at each differing word, its longest common beginning and end
// around one '*' (git push origin main and … dev: git push origin *); a
// different number of words is another pattern. covered is the targets
// folded in (latest among them). It refuses a call a commands grant
// cannot cover.
func FoldCommands(tool, latest string, targets []string, env CallEnv) (patterns, covered []string, err error) {
	fl := Classify(tool, TargetInput(tool, latest), env)
	if why := whyNotCoverable(fl); why != "" {
		return nil, nil, fmt.Errorf("a grant by command cannot cover %q: %s", latest, why)
	}
	want := callCommandKeys(fl)
	shapes := map[string][][]string{} // key and word count → the commands' words
	seen := map[string]bool{}
	for _, t := range append([]string{latest}, targets...) {
		if seen[t] {
			continue
		}
		seen[t] = true
		f := fl
		if t != latest {
			f = Classify(tool, TargetInput(tool, t), env)
			if !commandsCoverable(f) || !sameKeys(callCommandKeys(f), want) {
				continue
			}
		}
		covered = append(covered, t)
		for _, c := range f.Commands {
			k, _ := commandKey(c)
			// the shape: as many words, options at the same places (an
			// option never folds with an argument into one '*')
			shape := make([]byte, len(c.Argv))
			for i, w := range c.Argv {
				shape[i] = '.'
				if strings.HasPrefix(w, "-") {
					shape[i] = '-'
				}
			}
			k += "\x00" + string(shape)
			shapes[k] = append(shapes[k], c.Argv)
		}
	}
	keys := make([]string, 0, len(shapes))
	for k := range shapes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	have := map[string]bool{}
	for _, k := range keys {
		if p := foldWords(shapes[k]); !have[p] {
			have[p] = true
			patterns = append(patterns, p)
		}
	}
	sort.Strings(covered)
	return patterns, covered, nil
}

// commandKey is a command's program and subcommand: its words up to and
// including the first positional argument (git -C dir push: all four).
func commandKey(c commandFact) (key, head string) {
	n := 1
	if sub := firstPositional(c.Argv[1:], c.Program()); sub >= 0 {
		n = sub + 2
	}
	return strings.Join(c.Argv[:n], "\x00"), strings.Join(c.Argv[:n], " ")
}

func callCommandKeys(f *Facts) map[string]bool {
	out := map[string]bool{}
	for _, c := range f.Commands {
		k, _ := commandKey(c)
		out[k] = true
	}
	return out
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// foldWords is the tightest pattern covering commands of as many words:
// each word that is the same in all of them as it is, each other their
// common beginning and end around one '*'.
func foldWords(cmds [][]string) string {
	out := make([]string, len(cmds[0]))
	for i := range out {
		w := cmds[0][i]
		same := true
		for _, c := range cmds[1:] {
			same = same && c[i] == w
		}
		if same {
			out[i] = literalPattern(w)
			continue
		}
		prefix := w
		for _, c := range cmds[1:] {
			prefix = prefix[:commonPrefix(prefix, c[i])]
		}
		prefix = validPrefix(prefix)
		suffix := w[len(prefix):]
		for _, c := range cmds[1:] {
			suffix = suffix[len(suffix)-commonSuffix(suffix, c[i][len(prefix):]):]
		}
		suffix = validSuffix(suffix)
		out[i] = literalPattern(prefix) + "*" + literalPattern(suffix)
	}
	return strings.Join(out, " ")
}

// literalPattern makes a word a word pattern that meets itself: the
// wildcards and spaces it holds become '?' (which meets them too, and only
// one character), so a word "**" cannot be read as "any words", and a
// "${" cannot be read as a variable. An empty word stays empty (a pattern
// word "" meets only an empty word).
func literalPattern(s string) string {
	s = strings.NewReplacer("*", "?", " ", "?").Replace(s)
	return strings.ReplaceAll(s, "${", "$?")
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// validPrefix and validSuffix cut a byte-wise common part back to whole
// characters.
func validPrefix(s string) string {
	for s != "" && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func validSuffix(s string) string {
	for s != "" && !utf8.ValidString(s) {
		s = s[1:]
	}
	return s
}
