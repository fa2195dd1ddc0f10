package policy

import "github.com/agentairlock/airlock/policy/shell"

// Facts are what a tool call would touch, derived from its arguments before
// any rule is consulted. Rules match facts, not raw strings: a path is
// matched as a path (absolute, cleaned, symlink-resolved), a host as a
// canonical host, a shell command as a parsed argv.

// Access says what a call does to a path: the shell analyzer's bit set
// (AccessRead, AccessWrite, AccessExec; AccessAny means the classifier
// could not tell, as for a secondary argument of an unknown tool, and deny
// rules treat it as every access at once). One type for both, so a path the
// shell reads is the policy's read without a conversion.
type Access = shell.Access

const (
	accessRead  = shell.AccessRead
	accessWrite = shell.AccessWrite
	accessExec  = shell.AccessExec
	accessAny   = shell.AccessAny
)

// PathFact is one file-system target.
type PathFact struct {
	Raw    string // as it appeared in the argument
	Path   string // absolute and cleaned (~ and $HOME expanded, made absolute against cwd)
	Access Access
	Arg    string // where it was found: "file_path", "opts.src", "command", "key:…"

	// The shape of the fact, when it is not one file (see match_shapes.go):
	Glob  bool // Path is a pattern a shell (or a search tool) expands
	Tree  bool // everything under Path is read (tar, cp -r, grep -r, the Grep tool)
	Names bool // only names or metadata reach the caller (ls, stat, du, ssh-keygen -y)

	// Filled by the classifier, not by the parsers:
	Resolved string       // Path with symlinks resolved along its longest existing prefix
	fold     string       // FoldPath(Path), for deny matching
	rfold    string       // FoldPath(Resolved)
	keys     [2]formIndex // the glob index's view of fold and rfold (glob_index.go)
	keyed    bool         // keys are set
	search   bool         // Glob is a search tool's glob: a wildcard matches a leading dot
	home     string       // the caller's home, folded, for a Tree fact
}

// HostFact is one network destination.
type HostFact struct {
	Raw  string // the URL or host as written
	Host string // canonical form (see CanonicalHost)
	Arg  string
}

// commandFact is one simple command of a parsed shell program, with
// wrappers (sudo, env, timeout, nohup, xargs, sh -c …) already unwrapped.
type commandFact struct {
	Argv []string // quotes removed, ~ $HOME ${HOME} $USER expanded; Argv[0] as written
	Dir  string   // working directory the command runs in (cd tracked), absolute
	Home string   // the home of the call, for patterns written "~…" (cmd_options.go)
	Arg  string

	fprog string // FoldText(Program()), filled by the classifier for deny matching
	// pbits: progBits(fprog), filled beside it (cmd_options.go's filter)
	pbits    [2]uint16
	pbitsSet bool
}

// Program is the base name of the command's program ("/usr/bin/rm" → "rm").
func (c commandFact) Program() string {
	if len(c.Argv) == 0 {
		return ""
	}
	p := c.Argv[0]
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}

// Signal names a behaviour the shell classifier recognised from data flow
// rather than from any one word.
type Signal string

const (
	signalDownloadExec Signal = "download-exec"  // fetched bytes reach a shell or interpreter
	signalReverseShell Signal = "reverse-shell"  // /dev/tcp, nc -e, socat exec, socket one-liners
	signalForkBomb     Signal = "fork-bomb"      // a function that pipes into itself in the background
	signalUnparsed     Signal = "unparsed"       // the shell text did not parse; matched as text only
	signalPkgSource    Signal = "package-source" // a package manager's source moved to another host, or its checksum check off

	// what runs (issue 17): policy/shell/obfuscated.go, policy/shell/trust.go, policy/autorun_build.go
	signalObfuscatedExec Signal = "obfuscated-exec"     // decoded text reaches a shell or interpreter
	signalTrustSubverted Signal = "trust-subverted"     // a root CA, a system proxy or the hooks path handed to someone else
	signalTrustWeakened  Signal = "trust-weakened"      // TLS verification switched off for every later call
	signalDepRedirect    Signal = "dependency-redirect" // a dependency replaced by code from another place

	// effects on shared state (issue 17, branch h30-blind): policy/shell/effects.go and the files it names
	signalRemoteDestroy  Signal = "remote-destroy"  // a server's data, refs, releases or audit trail deleted, or exposed to everyone
	signalHistoryDestroy Signal = "history-destroy" // the repository's .git deleted
	signalPublish        Signal = "publish"         // code handed to everyone who installs it, or what they get changed
	signalAccessGrant    Signal = "access-grant"    // a key, scope, runner, webhook or secret added to a forge account
	signalTyposquat      Signal = "typosquat"       // a package installed under a name one slip away from a popular one
)

// textFact is one string from the arguments (a value or a key).
type textFact struct {
	Raw  string
	Arg  string
	fold string // FoldText(Raw), for deny matching
}

// Facts is everything classification derived from one call.
type Facts struct {
	Tool       string
	Primary    string // the main argument (command, file_path, url …) as written
	PrimaryArg string // its name
	Paths      []PathFact
	Hosts      []HostFact
	Commands   []commandFact
	Signals    []signalFact
	Env        []envFact
	Texts      []textFact
	Flows      []flowFact // secrets reaching sinks (flow.go)
	// ltool is strings.ToLower(Tool), for ltoolOf == Tool (tool-scoped
	// rules compare it; computed once per call, not once per rule)
	ltool, ltoolOf string
	// TooLarge is set when a budget ran out; the call must be refused.
	TooLarge string
	// Mentioned holds what a brief names (a Task/Agent prompt: roles.go),
	// nil when nothing is: its paths meet the forbids, which ask rather
	// than block — the sub-agent's own calls are checked when it makes
	// them.
	Mentioned *Facts

	roles roleTable // what the tool says about its arguments (roles.go)
}

// signalFact is a Signal with the text that raised it.
type signalFact struct {
	Signal Signal
	Detail string // the command or fragment, for the reason
	Arg    string
}

// envFact is an environment variable a shell command sets.
type envFact struct {
	Name  string
	Value string
	Arg   string
}
