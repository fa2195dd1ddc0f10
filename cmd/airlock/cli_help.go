package main

// The help of every command: its purpose (the command's Usage and
// Description, in its own file), and here its category, examples and exit
// codes, in one table so that the texts are reviewed together and
// docs/cli.md is generated from them (TestCLIReference).

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// Categories of airlock --help, in the order shown.
const (
	catStart    = "getting started"
	catEveryday = "everyday"
	catEvidence = "evidence"
	catMCP      = "MCP"
	catSandbox  = "sandbox"
)

var categoryOrder = []string{catStart, catEveryday, catEvidence, catMCP, catSandbox}

// commandOrder is the order of the top-level commands within their
// categories.
var commandOrder = []string{
	"demo", "init", "doctor", "uninstall",
	"check", "allow", "taint", "log", "monitor", "profile", "policy", "scan",
	"verify", "report", "breach", "export", "forward", "audit",
	"pins", "mcp", "contracts", "update",
	"run", "askd",
}

var commandCategory = map[string]string{
	"demo": catStart, "init": catStart, "doctor": catStart, "uninstall": catStart,
	"check": catEveryday, "allow": catEveryday, "taint": catEveryday, "log": catEveryday, "monitor": catEveryday,
	"profile": catEveryday, "policy": catEveryday, "scan": catEveryday,
	"verify": catEvidence, "report": catEvidence, "breach": catEvidence, "export": catEvidence, "forward": catEvidence, "audit": catEvidence,
	"pins": catMCP, "mcp": catMCP, "contracts": catMCP, "update": catMCP,
	"run": catSandbox, "askd": catSandbox,
}

// exitCode is one line of a command's EXIT CODES.
type exitCode struct {
	code    int
	meaning string
}

// cmdHelp is what the table adds to a command's help.
type cmdHelp struct {
	examples []string
	exits    []exitCode // 64 (usage) is added to every command
}

const usageMeaning = "usage error: an unknown flag or command, a bad value, a missing or unexpected argument"

var helpTable = map[string]cmdHelp{
	"": {
		examples: []string{
			"airlock demo",
			"airlock init",
			"airlock doctor",
			"airlock help scan",
		},
		exits: []exitCode{
			{0, "ok"},
			{1, "a \"no\" the command documents (a finding, a refusal, a check that failed)"},
			{2, "broken or tampered, where the command documents it"},
		},
	},
	"demo": {
		examples: []string{"airlock demo", "airlock demo --keep"},
		exits: []exitCode{
			{0, "every step came out as it must"},
			{1, "a step did not (a regression: please report it), or the demo could not run"},
		},
	},
	"init": {
		examples: []string{
			"airlock init --dry-run",
			"airlock init",
			"airlock init --profile paranoid --mcp-config ./team-mcp.json",
		},
		exits: []exitCode{
			{0, "every agent found is behind Airlock"},
			{1, "a file or server was left alone (named above), or the setup failed; nothing half-written"},
		},
	},
	"doctor": {
		examples: []string{"airlock doctor", "airlock doctor --fix", "airlock doctor --json"},
		exits: []exitCode{
			{0, "enforcing: every check is in force (warnings are limits Airlock cannot close)"},
			{1, "not enforcing: a check failed, or nothing is wired (run airlock init); or doctor could not check (stderr says why)"},
		},
	},
	"uninstall": {
		examples: []string{"airlock uninstall", "airlock uninstall -y", "airlock uninstall -y --purge"},
		exits: []exitCode{
			{0, "every file init edited is restored"},
			{1, "not confirmed, or a file could not be restored safely (its backup is kept)"},
		},
	},
	"check": {
		examples: []string{
			`airlock check --tool Bash --input '{"command":"cat ~/.ssh/id_rsa"}'`,
			`airlock check --tool Read --input '{"file_path":"README.md"}' --cwd ~/proj`,
			"airlock check < hook-event.json",
		},
		exits: []exitCode{
			{0, "allow"},
			{2, "block (also when the policy does not load: fail closed, unless AIRLOCK_FAIL_OPEN=1, as the hook)"},
			{3, "ask"},
			{64, "usage error, or an event or --input that is not what the hook would read"},
		},
	},
	"allow": {
		examples: []string{
			"airlock allow recent",
			"airlock allow last --dry-run",
			"airlock allow Read --match '${workspace}/**' --reason 'the repository'",
			"airlock allow WebFetch --match 'docs.example.com' --expires 2027-01-31",
			"airlock allow list",
			"airlock allow revoke 2",
		},
		exits: []exitCode{
			{0, "the grant was written (or shown, with --dry-run)"},
			{1, "refused (a built-in forbid, a pins hold, a rule decided after grants, a path --match on a shell tool) or the policy could not be read or written; nothing written"},
			{64, "usage error: no --match (--match '*' grants every call on purpose), or --expires not a date or already past"},
		},
	},
	"allow recent": {
		examples: []string{"airlock allow recent"},
		exits:    []exitCode{{0, "listed (or nothing was gated)"}, {1, "the policy or the audit log could not be read"}},
	},
	"allow last": {
		examples: []string{"airlock allow last --dry-run", "airlock allow last --expires 2027-01-31"},
		exits: []exitCode{
			{0, "the grant was written (or shown, with --dry-run)"},
			{1, "refused: nothing was gated, a forbid, a pins hold, nothing to fold, or the grant would not lift the call; nothing written"},
			{64, "usage error, or --expires is not YYYY-MM-DD or already past"},
		},
	},
	"allow list": {
		examples: []string{"airlock allow list"},
		exits:    []exitCode{{0, "listed"}, {1, "the policy could not be read"}},
	},
	"allow revoke": {
		examples: []string{"airlock allow list", "airlock allow revoke 2"},
		exits:    []exitCode{{0, "revoked"}, {1, "no such grant, or the policy could not be written (unchanged)"}, {64, "usage error, or N is not a number"}},
	},
	"taint": {
		examples: []string{"airlock taint"},
		exits:    []exitCode{{0, "the tainted sessions were listed (none is not an error)"}, {1, "the home could not be used"}},
	},
	"taint clear": {
		examples: []string{"airlock taint", "airlock taint clear 5f0c6a8e-3b7d-4f1e-9a2c-8d4b6e1f3a57"},
		exits:    []exitCode{{0, "the session is not tainted (now or already)"}, {1, "the clear could not be recorded or written (the taint stays)"}, {64, "usage error: no SESSION"}},
	},
	"log": {
		examples: []string{"airlock log", "airlock log -n 50 --decision block", "airlock log --tool 'mcp__*' --since 2d --json"},
		exits:    []exitCode{{0, "the records were printed (none is not an error)"}, {1, "the log could not be read"}, {64, "usage error: a --decision, --since or --until that is not one of its values"}},
	},
	"monitor": {
		examples: []string{"airlock monitor", "airlock monitor --plain", "airlock monitor --once -n 50"},
		exits:    []exitCode{{0, "stopped (q, Ctrl-C), or --once printed the tail"}, {1, "the log could not be followed"}},
	},
	"profile": {
		examples: []string{"airlock profile", "airlock profile paranoid", "airlock profile default --force"},
		exits: []exitCode{
			{0, "shown, or switched"},
			{1, "the policy was edited and --force was not given (it was left alone), or it could not be written"},
			{64, "usage error, or not a bundled profile"},
		},
	},
	"policy": {
		examples: []string{"airlock policy check", "airlock policy check ./policy.yaml --forbids", "airlock policy propose --since 7d"},
	},
	"policy check": {
		examples: []string{"airlock policy check", "airlock policy check ./policy.yaml", "airlock policy check --forbids"},
		exits:    []exitCode{{0, "the policy loads (warnings, if any, are printed)"}, {1, "it does not load: the error names the file, the line and the fix"}},
	},
	"policy test": {
		examples: []string{"airlock policy test", "airlock policy test -v ./policy.yaml", "airlock policy test --no-forbids team.yaml"},
		exits:    []exitCode{{0, "every test ran passed"}, {1, "a test failed, or a policy or its tests did not load (the error names the file and the line)"}},
	},
	"policy replay": {
		examples: []string{"airlock policy replay candidate.yaml", "airlock policy replay --since 30d --show 50 team-v2.yaml"},
		exits:    []exitCode{{0, "replayed (what would change is listed)"}, {1, "the candidate does not load, or the log could not be read"}, {64, "usage error, or a bad --since"}},
	},
	"policy propose": {
		examples: []string{"airlock policy propose", "airlock policy propose --since 14d --apply"},
		exits:    []exitCode{{0, "proposed (and with --apply, written)"}, {1, "the log could not be read or the policy not written (unchanged)"}, {64, "usage error, or a bad --since"}},
	},
	"scan": {
		examples: []string{
			"airlock scan .",
			"airlock scan . --sarif > airlock.sarif",
			"airlock scan ~/.claude/skills --fail-on-findings --min-severity med",
			"airlock scan --user-configs --json",
		},
		exits: []exitCode{
			{0, "scanned (findings do not fail without --fail-on-findings)"},
			{1, "--fail-on-findings and a finding reaches --min-severity"},
			{2, "a path could not be read, or the report not written"},
		},
	},
	"verify": {
		examples: []string{"airlock verify", "airlock verify --json", "airlock verify --anchor --anchor-dir /mnt/anchors", "airlock verify --strict", "airlock verify --export /var/log/siem/airlock.log"},
		exits: []exitCode{
			{0, "intact (warnings are printed)"},
			{1, "broken, or it cannot be verified (no home, unreadable); with --export, the copy has a gap, an edit or no record"},
			{2, "the tail is unprovable, or --strict and an intact log has warnings"},
		},
	},
	"report": {
		examples: []string{"airlock report", "airlock report --since 2d --markdown > report.md", "airlock report --html report.html", "airlock report --html report.html --force", "airlock report --html - > page.html"},
		exits: []exitCode{{0, "the report was written (a broken log is reported in it, first)"}, {1, "it could not be written"},
			{64, "usage error: --markdown and --html together, or --html names an existing file without --force"}},
	},
	"breach": {
		examples: []string{"airlock breach", "airlock breach --since 7d --session S", "airlock breach --simulate"},
		exits:    []exitCode{{0, "no secret left"}, {1, "burns found: a secret was read and something left after it"}, {2, "the log cannot be trusted or checked"}, {64, "usage error, or a bad --since or --until"}},
	},
	"export": {
		examples: []string{"airlock export --format cef --since 1d", "airlock export --format syslog >> /var/log/airlock.log", "airlock export > audit.jsonl"},
		exits:    []exitCode{{0, "exported"}, {1, "the log could not be read"}, {64, "usage error: an unknown --format, a bad --since or --until"}},
	},
	"forward": {
		examples: []string{"airlock forward --target relp://siem.example:2514", "airlock forward --target 'tls://siem.example:6514?ca=/etc/airlock/siem-ca.pem&format=cef'", "airlock forward --target otlp+http://localhost:4318 --print-unit systemd"},
		exits:    []exitCode{{0, "stopped by a signal, or --once shipped everything"}, {1, "cannot go on: the cursor names a record the chain no longer has, or the cursor cannot be written"}, {64, "usage error: no --target, a bad target URL"}},
	},
	"audit": {
		examples: []string{"airlock audit ack --verdict clean", "airlock audit ack --list", "airlock audit seal --reason 'disk full on 2026-11-30'"},
	},
	"audit ack": {
		examples: []string{"airlock audit ack --verdict clean --since 7d", "airlock audit ack --verdict anomalous --note 'see ticket 12' --yes", "airlock audit ack --list"},
		exits:    []exitCode{{0, "recorded (or listed, chain intact)"}, {1, "not signed off, refused (a broken log cannot be clean), or no --verdict"}, {64, "usage error: a --verdict or --since that is not one of its values"}},
	},
	"audit seal": {
		examples: []string{"airlock verify", "airlock audit seal --reason 'disk full on 2026-11-30'"},
		exits:    []exitCode{{0, "sealed, or nothing to seal"}, {1, "refused: a break that cannot be sealed, or no home"}},
	},
	"pins": {
		examples: []string{"airlock pins", "airlock pins diff github", "airlock pins approve github --hash 3f2a9c1b", "airlock pins reject github"},
		exits:    []exitCode{{0, "listed"}, {1, "the pins could not be read"}},
	},
	"pins list": {
		examples: []string{"airlock pins list", "airlock pins list --json"},
		exits:    []exitCode{{0, "listed"}, {1, "the pins could not be read"}},
	},
	"pins diff": {
		examples: []string{"airlock pins diff github"},
		exits:    []exitCode{{0, "shown"}, {1, "no such server (the known ones are named), or the pins could not be read"}},
	},
	"pins approve": {
		examples: []string{"airlock pins diff github", "airlock pins approve github --hash 3f2a9c1b"},
		exits:    []exitCode{{0, "pinned; the hold is released"}, {1, "nothing pending, the pending toolset is not --hash, or no such server"}},
	},
	"pins reject": {
		examples: []string{"airlock pins reject github"},
		exits:    []exitCode{{0, "rejected; the server stays held"}, {1, "nothing pending, or no such server"}},
	},
	"pins forget": {
		examples: []string{"airlock pins forget github"},
		exits:    []exitCode{{0, "forgotten"}, {1, "no such server, or the pins could not be written"}},
	},
	"mcp": {
		examples: []string{"airlock mcp login linear", "airlock mcp logout linear"},
	},
	"mcp login": {
		examples: []string{"airlock mcp login linear", "airlock mcp login linear --url https://mcp.linear.app/mcp"},
		exits:    []exitCode{{0, "logged in; the token is kept in the home"}, {1, "the login failed, or the server's address is unknown (give --url)"}},
	},
	"mcp logout": {
		examples: []string{"airlock mcp logout linear"},
		exits:    []exitCode{{0, "the tokens are deleted, or there were none"}, {1, "the login file could not be removed"}},
	},
	"contracts": {
		examples: []string{"airlock contracts list", "airlock contracts show github", "airlock contracts promote github"},
	},
	"contracts list": {
		examples: []string{"airlock contracts list"},
		exits:    []exitCode{{0, "listed"}, {1, "contracts.yaml or the footprints could not be read"}},
	},
	"contracts show": {
		examples: []string{"airlock contracts show github"},
		exits:    []exitCode{{0, "shown"}, {1, "no contract and nothing observed for it, or a file could not be read"}},
	},
	"contracts promote": {
		examples: []string{"airlock contracts promote github"},
		exits:    []exitCode{{0, "written"}, {1, "nothing observed to promote, or contracts.yaml could not be written"}},
	},
	"update": {
		examples: []string{"airlock update --status", "airlock update https://feeds.example.com/airlock.signed.json", "airlock update ./feed.json --allow-unsigned"},
		exits: []exitCode{
			{0, "installed, already active, or the status shown"},
			{1, "refused (a bad or untrusted signature, unsigned without --allow-unsigned, a malformed feed) or not fetched"},
			{64, "usage error, or neither a feed nor --status"},
		},
	},
	"update keygen": {
		examples: []string{"airlock update keygen --out ~/feed-keys"},
		exits:    []exitCode{{0, "the key pair was written"}, {1, "a key file already exists (nothing is replaced), or it could not be written"}},
	},
	"update sign": {
		examples: []string{"airlock update sign feed.json --key ~/feed-keys/airlock-feed.key", "airlock update sign feed.json --key k.key -o -"},
		exits:    []exitCode{{0, "signed"}, {1, "the feed or the key is not valid, or the output could not be written"}, {64, "usage error, no --key, or -o names an existing file without --force"}},
	},
	"run": {
		examples: []string{"airlock run -- claude", "airlock run --require-landlock 4 -- npm test", "airlock run --no-egress-proxy -- make"},
		exits: []exitCode{
			{0, "the command exited 0; any other status of the command is passed back as it is (128+N when signal N ended it)"},
			{64, "usage error, or no command after --"},
			{78, "the policy, the audit log or the kernel cannot give the sandbox asked for: nothing was started"},
			{126, "the command is there but cannot be run (not executable, or outside what the sandbox runs)"},
			{127, "the command was not found, or a script's #! interpreter, as a shell says"},
		},
	},
	"askd": {
		examples: []string{"airlock askd"},
		exits:    []exitCode{{0, "stopped (Ctrl-C, Ctrl-D)"}, {1, "another askd is already answering"}, {78, "the Airlock home or its socket could not be set up"}},
	},
}

// applyHelp gives every command its category and the usage line its
// declared positionals, and routes urfave's own flag errors to a
// usageError. It runs once, when the app is built.
func applyHelp(app *cli.App) {
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usagef("", "%v", err) }
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			if prefix == "" {
				c.Category = commandCategory[c.Name]
			}
			if s, ok := argShapes[path]; ok && c.Action != nil {
				c.ArgsUsage = s.usage
			}
			c.HideHelp, c.HideHelpCommand = true, true
			c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usagef(path, "%v", err) }
			walk(path, c.Subcommands)
		}
	}
	walk("", app.Commands)
}

// usageLines are a command's usage, one line per form.
func usageLines(path []*cli.Command) []string {
	name := "airlock"
	if len(path) > 0 {
		name += " " + pathName(path)
	}
	if len(path) == 0 {
		return []string{"airlock COMMAND [flags] [ARGS…]", "airlock help COMMAND"}
	}
	c := path[len(path)-1]
	var out []string
	if c.Action != nil {
		line := name
		if len(visibleFlags(c.Flags)) > 0 {
			line += " [flags]"
		}
		if c.ArgsUsage != "" {
			line += " " + c.ArgsUsage
		}
		out = append(out, line)
	}
	if subs := visibleCommands(c.Subcommands); len(subs) > 0 {
		names := make([]string, len(subs))
		for i, s := range subs {
			names[i] = s.Name
		}
		out = append(out, name+" "+strings.Join(names, "|")+" …")
	}
	return out
}

// writeUsageError is what a usage error prints on stderr: the problem,
// the usage, where the help is.
func writeUsageError(w io.Writer, app *cli.App, e *usageError) {
	if e.msg != "" {
		fmt.Fprintln(w, e.msg)
	}
	path := resolvePath(app, e.path)
	for i, l := range usageLines(path) {
		if i == 0 {
			fmt.Fprintf(w, "usage: %s\n", l)
		} else {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
	fmt.Fprintf(w, "more:  %s\n", strings.TrimSpace("airlock help "+pathName(path)))
}

// resolvePath finds the commands a path under airlock names (as far as
// they exist: `help scna` resolves to airlock itself).
func resolvePath(app *cli.App, path string) []*cli.Command {
	var out []*cli.Command
	subs := app.Commands
	for _, w := range strings.Fields(path) {
		c := findCommand(subs, w)
		if c == nil {
			break
		}
		out = append(out, c)
		subs = c.Subcommands
	}
	return out
}

func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

func visibleCommands(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// writeHelp is the --help of the last command in path (airlock itself
// when path is empty), written to w.
func writeHelp(w io.Writer, app *cli.App, path []*cli.Command) {
	key := pathName(path)
	h := helpTable[key]
	if len(path) == 0 {
		fmt.Fprintf(w, "airlock — %s\n", app.Usage)
	} else {
		fmt.Fprintf(w, "airlock %s — %s\n", key, path[len(path)-1].Usage)
	}
	fmt.Fprintln(w, "\nUSAGE:")
	for _, l := range usageLines(path) {
		fmt.Fprintf(w, "   %s\n", l)
	}
	var flags []cli.Flag
	if len(path) == 0 {
		writeCategories(w, app.Commands)
		flags = []cli.Flag{cli.VersionFlag}
	} else {
		c := path[len(path)-1]
		if c.Description != "" {
			fmt.Fprintln(w)
			for _, l := range strings.Split(strings.TrimRight(c.Description, "\n"), "\n") {
				fmt.Fprintf(w, "   %s\n", strings.TrimRight(l, " "))
			}
		}
		if subs := visibleCommands(c.Subcommands); len(subs) > 0 {
			fmt.Fprintln(w, "\nCOMMANDS:")
			writeCommandList(w, subs)
		}
		flags = visibleFlags(c.Flags)
	}
	fmt.Fprintln(w, "\nFLAGS:")
	writeFlags(w, append(flags, &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"}))
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "\nEXAMPLES:")
		for _, e := range h.examples {
			fmt.Fprintf(w, "   %s\n", e)
		}
	}
	fmt.Fprintln(w, "\nEXIT CODES:")
	exits := exitsOf(key)
	if len(path) > 0 && len(h.exits) == 0 {
		fmt.Fprintf(w, "   each command's own: airlock help %s COMMAND\n", key)
	}
	width := 0
	for _, e := range exits {
		width = max(width, len(fmt.Sprint(e.code))+2)
	}
	for _, e := range exits {
		fmt.Fprintf(w, "   %-*d%s\n", width, e.code, e.meaning)
	}
	if len(path) == 0 {
		fmt.Fprintln(w, "\nEach command's help has its examples and exit codes; all of them: docs/cli.md.")
	}
}

// exitsOf is a command's exit codes with the usage error every command has.
func exitsOf(key string) []exitCode {
	out := append([]exitCode{}, helpTable[key].exits...)
	has64 := false
	for _, e := range out {
		has64 = has64 || e.code == exitUsage
	}
	if !has64 {
		out = append(out, exitCode{exitUsage, usageMeaning})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].code < out[j].code })
	return out
}

func writeCategories(w io.Writer, cmds []*cli.Command) {
	for _, cat := range categoryOrder {
		var in []*cli.Command
		for _, n := range commandOrder {
			if c := findCommand(cmds, n); c != nil && !c.Hidden && c.Category == cat {
				in = append(in, c)
			}
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", strings.ToUpper(cat))
		writeCommandList(w, in)
	}
}

func writeCommandList(w io.Writer, cmds []*cli.Command) {
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "   %-*s  %s\n", width, c.Name, c.Usage)
	}
}

func writeFlags(w io.Writer, flags []cli.Flag) {
	type line struct{ names, usage string }
	var lines []line
	width := 0
	for _, f := range flags {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		placeholder, usage := "", d.GetUsage()
		if i := strings.IndexByte(usage, '`'); i >= 0 {
			if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
				placeholder = usage[i+1 : i+1+j]
				usage = usage[:i] + placeholder + usage[i+2+j:]
			}
		}
		if d.TakesValue() {
			if placeholder == "" {
				switch f.(type) {
				case *cli.IntFlag:
					placeholder = "N"
				case *cli.DurationFlag:
					placeholder = "DURATION"
				default:
					placeholder = "VALUE"
				}
			}
			if def := d.GetDefaultText(); def != "" && def != `""` && def != "0" {
				usage += " (default: " + strings.Trim(def, `"`) + ")"
			}
		}
		var names []string
		ns := f.Names()
		sort.SliceStable(ns, func(i, j int) bool { return len(ns[i]) < len(ns[j]) })
		for _, n := range ns {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			names = append(names, dash+n)
		}
		l := line{strings.Join(names, ", "), usage}
		if placeholder != "" {
			l.names += " " + placeholder
		}
		width = max(width, len(l.names))
		lines = append(lines, l)
	}
	for _, l := range lines {
		fmt.Fprintf(w, "   %-*s  %s\n", width, l.names, l.usage)
	}
}
