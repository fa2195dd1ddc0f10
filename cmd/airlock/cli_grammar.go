package main

// One grammar for every command. urfave/cli v2 stops reading flags at the
// first positional argument, so `scan DIR --sarif` used to hand "--sarif"
// to scan as a path, and `export cef` ignored the word. normalize reads the
// whole command line first, driven by each command's own flag definitions
// and the positional shape declared in argShapes, and hands urfave a line
// it cannot misread: each level's flags, then `--`, then the positionals.
// Everything it refuses is a usageError (exit 64, stdout untouched).

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/internal/yamldoc"
)

// exitUsage is the exit status of every usage error (sysexits EX_USAGE).
const exitUsage = 64

// argShape is what a command takes after its flags.
type argShape struct {
	min, max int    // how many positionals; max < 0: any number
	usage    string // how the usage line names them, e.g. "[PATH…]"
	// passthrough: the first positional, or `--`, starts a command line
	// of its own, kept verbatim (airlock run -- CMD ARGS…).
	passthrough bool
	// wordFlag is the flag an unexpected word most likely belonged to,
	// for the hint: `export cef` → did you mean --format cef?
	wordFlag string
}

const anyNumber = -1

// argShapes declares the positionals of every command that runs
// something, by its path under airlock. A command missing here takes
// none; TestEveryCommandHasAShape makes the choice deliberate.
var argShapes = map[string]argShape{
	"check":             {usage: "[< hook-event.json]"},
	"policy check":      {max: 1, usage: "[FILE]"},
	"policy test":       {max: anyNumber, usage: "[FILE…]"},
	"policy replay":     {min: 1, max: 1, usage: "CANDIDATE.yaml", wordFlag: "since"},
	"policy propose":    {},
	"profile":           {max: 1, usage: "[yolo|default|paranoid]"},
	"verify":            {wordFlag: "json"},
	"log":               {wordFlag: "decision"},
	"monitor":           {},
	"pins":              {},
	"pins list":         {},
	"pins diff":         {min: 1, max: 1, usage: "NAME"},
	"pins approve":      {min: 1, max: 1, usage: "NAME"},
	"pins reject":       {min: 1, max: 1, usage: "NAME"},
	"pins forget":       {min: 1, max: 1, usage: "NAME"},
	"mcp login":         {min: 1, max: 1, usage: "NAME"},
	"mcp logout":        {min: 1, max: 1, usage: "NAME"},
	"contracts list":    {},
	"contracts show":    {min: 1, max: 1, usage: "NAME"},
	"contracts promote": {min: 1, max: 1, usage: "NAME"},
	"export":            {wordFlag: "format"},
	"forward":           {wordFlag: "target"},
	"report":            {},
	"breach":            {},
	"audit ack":         {},
	"audit seal":        {},
	"scan":              {max: anyNumber, usage: "[PATH…]"},
	"update":            {max: 1, usage: "[FILE|URL]"},
	"update keygen":     {},
	"update sign":       {min: 1, max: 1, usage: "FEED"},
	"init":              {wordFlag: "profile"},
	"uninstall":         {},
	"demo":              {},
	"doctor":            {},
	"__demo-server":     {},
	"run":               {min: 1, max: anyNumber, usage: "-- CMD [ARGS…]", passthrough: true},
	"askd":              {},
	"allow":             {min: 1, max: 1, usage: "TOOL"},
	"allow recent":      {},
	"allow last":        {},
	"allow list":        {},
	"allow revoke":      {min: 1, max: 1, usage: "N"},
	"taint":             {},
	"taint clear":       {min: 1, max: 1, usage: "SESSION"},
}

// usageError is a command line airlock refuses to guess at.
type usageError struct {
	path string // the command's path under airlock ("" for airlock itself)
	msg  string // one line naming the problem
}

func (e *usageError) Error() string { return e.msg }

func usagef(path, format string, args ...any) *usageError {
	name := "airlock"
	if path != "" {
		name += " " + path
	}
	return &usageError{path: path, msg: name + ": " + fmt.Sprintf(format, args...)}
}

// flagArg is one flag as typed: its name, whether it takes a value, and
// its words (the flag, and its value when that is a word of its own).
type flagArg struct {
	name  string
	value bool
	toks  []string
}

// parsedLine is a command line normalize understood.
type parsedLine struct {
	path []*cli.Command // the commands named, outermost first (empty: airlock itself)
	args []string       // the line to hand urfave/cli
	help bool           // show the help of the last command in path instead of running it
}

func pathName(path []*cli.Command) string {
	names := make([]string, len(path))
	for i, c := range path {
		names[i] = c.Name
	}
	return strings.Join(names, " ")
}

// normalize reads argv (argv[0] is the program) against app's command
// tree; see the file comment.
func normalize(app *cli.App, argv []string) (*parsedLine, error) {
	p := &parsedLine{args: []string{argv[0]}}
	if len(argv) < 2 {
		p.help = true
		return p, nil
	}
	args := argv[1:]
	if args[0] == "help" {
		return helpLine(app, args[1:])
	}
	var (
		subs  = app.Commands
		flags = append(append([]cli.Flag{}, app.Flags...), cli.VersionFlag)
		cmd   *cli.Command // nil: airlock itself
		shape argShape
		level []flagArg // the current command's flags as given
		pos   []string
		dash  bool // a `--` was given (or a passthrough line began)
	)
	name := func() string { return pathName(p.path) }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos, dash = append(pos, args[i+1:]...), true
			break
		}
		if bare, ok := pastedFlag(flags, a); ok {
			// `scan . —sarif` pasted from a page that turned -- into
			// a dash: not a path "—sarif" (exit 2, empty stdout); after
			// -- it is the word as typed
			return nil, usagef(name(), "unknown flag %s (did you mean %s?)", shown(a), dashed(bare))
		}
		if len(a) > 1 && a[0] == '-' {
			fname, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if fname == "h" || fname == "help" {
				p.help = true
				continue
			}
			f := findFlag(flags, fname)
			if f == nil || strings.HasPrefix(a, "---") {
				return nil, usagef(name(), "unknown flag %s%s", shown(a), didYouMean(flagNames(flags), fname, "--"))
			}
			fa := flagArg{name: fname, value: takesValue(f), toks: []string{a}}
			if !fa.value || hasValue {
				level = append(level, fa)
				continue
			}
			if i+1 == len(args) {
				return nil, usagef(name(), "%s needs a value", shown(a))
			}
			// `allow Bash --match --dry-run` must not grant the match
			// "--dry-run" and write it: a value that is a flag of this
			// command, --help or `--` is refused; --match=--dry-run says it.
			if v := args[i+1]; v == "--" || len(v) > 1 && v[0] == '-' && isFlagName(flags, strings.TrimLeft(strings.SplitN(v, "=", 2)[0], "-")) {
				return nil, usagef(name(), "%s needs a value, and %s is a flag (write %s=%s if it is the value)", shown(a), shown(v), shown(a), shown(v))
			}
			fa.toks = append(fa.toks, args[i+1])
			level = append(level, fa)
			i++
			continue
		}
		// a word: a subcommand while no positional has been given
		if len(pos) == 0 && len(subs) > 0 {
			if a == "help" && findCommand(subs, a) == nil {
				// `pins help`, `policy help check`, as urfave answered
				// them: never the TOOL "help" (`allow help` wrote a
				// grant for every call of a tool named help)
				return subHelp(p, subs, args[i+1:])
			}
			if sub := findCommand(subs, a); sub != nil {
				// a flag typed before the subcommand is the subcommand's
				// (`pins --json list`): the parent does not run, and
				// urfave would read the subcommand's own, unset, flag
				for _, fa := range level {
					if f := findFlag(sub.Flags, fa.name); f == nil || takesValue(f) != fa.value {
						return nil, usagef(strings.TrimSpace(name()+" "+sub.Name), "%s is not a flag of this command; put it after the command it belongs to", shown(fa.toks[0]))
					}
				}
				p.args = append(p.args, sub.Name)
				cmd, subs, flags = sub, sub.Subcommands, sub.Flags
				p.path = append(p.path, sub)
				shape = argShapes[name()]
				if sub.SkipFlagParsing {
					// a command that reads its own line gets it verbatim
					p.args = append(p.args, args[i+1:]...)
					return p, nil
				}
				continue
			}
			if cmd == nil || cmd.Action == nil || shape.max == 0 {
				return nil, usagef(name(), "unknown command %q%s", a, didYouMean(commandNames(subs), a, ""))
			}
		}
		if shape.passthrough {
			pos, dash = append(pos, args[i:]...), true
			break
		}
		pos = append(pos, a)
	}
	for _, fa := range level {
		p.args = append(p.args, fa.toks...)
	}
	if p.help {
		return p, nil
	}
	switch {
	case cmd == nil && len(pos) > 0:
		return nil, usagef("", "unexpected argument %q: name a command first", pos[0])
	case cmd == nil:
		// flags only (--version): urfave answers them; nothing at all
		// (`airlock --`) is airlock alone
		p.help = len(p.args) == 1
		return p, nil
	case cmd.Action == nil && len(pos) == 0:
		// a group named alone (`airlock policy`) shows its commands
		p.help = true
		return p, nil
	case shape.max >= 0 && len(pos) > shape.max:
		extra := pos[shape.max]
		hint := ""
		if extra == "help" && !dash {
			// `init help`: not --profile help
			hint = fmt.Sprintf(" (did you mean airlock help %s?)", name())
		} else if findFlag(cmd.Flags, extra) != nil && !dash {
			// `verify json`
			hint = fmt.Sprintf(" (did you mean --%s?)", extra)
		} else if shape.wordFlag != "" && !dash {
			hint = fmt.Sprintf(" (did you mean --%s %s?)", shape.wordFlag, shown(extra))
		}
		if shape.max == 0 {
			return nil, usagef(name(), "unexpected argument %q: it takes none%s", extra, hint)
		}
		return nil, usagef(name(), "unexpected argument %q: it takes %s%s", extra, shape.usage, hint)
	case len(pos) < shape.min && shape.passthrough:
		return nil, usagef(name(), "missing the command to run, after --")
	case len(pos) < shape.min:
		return nil, usagef(name(), "missing %s", shape.usage)
	}
	if len(pos) > 0 {
		p.args = append(p.args, "--")
		p.args = append(p.args, pos...)
	}
	return p, nil
}

// helpLine is `airlock help [COMMAND…]`.
func helpLine(app *cli.App, words []string) (*parsedLine, error) {
	p := &parsedLine{help: true}
	subs := app.Commands
	for _, w := range words {
		sub := findCommand(subs, w)
		if sub == nil {
			return nil, usagef("help", "unknown command %q%s", strings.Join(append(commandPath(p.path), w), " "), didYouMean(commandNames(subs), w, ""))
		}
		p.path = append(p.path, sub)
		subs = sub.Subcommands
	}
	return p, nil
}

// subHelp is `airlock CMD help [SUB…]`: the help of CMD, or of SUB.
func subHelp(p *parsedLine, subs []*cli.Command, words []string) (*parsedLine, error) {
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		sub := findCommand(subs, w)
		if sub == nil {
			return nil, usagef(pathName(p.path), "unknown command %q%s", w, didYouMean(commandNames(subs), w, ""))
		}
		p.path = append(p.path, sub)
		subs = sub.Subcommands
	}
	p.help = true
	return p, nil
}

func commandPath(path []*cli.Command) []string {
	out := make([]string, len(path))
	for i, c := range path {
		out[i] = c.Name
	}
	return out
}

// shown is a word of the command line as an error names it: quoted
// when it holds a space, a character that is not printable or one of
// textsafe's hidden characters (a Hangul filler is "printable"), so that
// a line break or an escape sequence typed (or pasted) never reaches the
// terminal raw.
func shown(word string) string {
	for _, r := range word {
		if r == ' ' || !unicode.IsPrint(r) || textsafe.Hidden(r) {
			return textsafe.EscapeLoose(strconv.Quote(word))
		}
	}
	return word
}

// unicodeDashes are what a page or a word processor makes of - and --:
// en and em dashes, the minus sign, hyphens.
const unicodeDashes = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

// pastedFlag: word is a flag of flags (or help) written with unicode
// dashes (—sarif, –json=x, −h), and bare is its name.
func pastedFlag(flags []cli.Flag, word string) (bare string, ok bool) {
	rest := strings.TrimLeft(word, unicodeDashes)
	if rest == word {
		return "", false
	}
	rest = strings.TrimLeft(rest, "-")
	name, _, _ := strings.Cut(rest, "=")
	return name, name != "" && isFlagName(flags, name)
}

// dashed is a flag's name as it is typed: -h, --sarif.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// isFlagName: a flag of flags, or help.
func isFlagName(flags []cli.Flag, name string) bool {
	return name == "h" || name == "help" || findFlag(flags, name) != nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// flagNames are the names a person is offered: hidden flags are not.
func flagNames(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f.Names()...)
	}
	return append(out, "help")
}

func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Names()...)
		}
	}
	return out
}

// didYouMean names the closest candidate to typed, if one is close:
// a typo (at most one edit in a short word, two in a longer one) or the
// only candidate typed starts.
func didYouMean(candidates []string, typed, prefix string) string {
	if len(typed) < 2 {
		return ""
	}
	best, bestD := "", 1<<30
	limit := 1
	if len(typed) > 4 {
		limit = 2
	}
	for _, c := range candidates {
		if d := yamldoc.Distance(c, typed); d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		var starts []string
		for _, c := range candidates {
			if strings.HasPrefix(c, typed) {
				starts = append(starts, c)
			}
		}
		if len(starts) == 1 {
			best = starts[0]
		}
	}
	if best == "" {
		return ""
	}
	if prefix != "" && len(best) == 1 {
		prefix = "-"
	}
	return fmt.Sprintf(" (did you mean %q?)", prefix+best)
}
