package shell

// The facts Parse derives from one command string. They carry no tool
// argument name: the caller records which argument the command came from.

// Access says what a command does to a path. It is a bit set; AccessAny
// means the analyzer could not tell.
type Access uint8

const (
	AccessRead Access = 1 << iota
	AccessWrite
	AccessExec

	AccessAny = AccessRead | AccessWrite | AccessExec
)

// Path is one file-system target of a command.
type Path struct {
	Raw    string // as it appeared in the command
	Path   string // absolute and cleaned against the command's directory
	Access Access

	Glob  bool // Path is a pattern the shell expands (an unquoted *, ? or [...])
	Tree  bool // everything under Path is read (tar, zip -r, cp -r, rsync -a, grep -r, rg)
	Names bool // only names or metadata reach the output (ls, stat, du, ssh-keygen -y)
}

// Host is one network destination, as written.
type Host struct {
	Raw string // the URL or host as written
}

// Command is one simple command, with wrappers (sudo, env, timeout, nohup,
// xargs, sh -c …) already unwrapped.
type Command struct {
	Argv []string // quotes removed, ~ $HOME ${HOME} $USER expanded; Argv[0] as written
	Dir  string   // working directory the command runs in (cd tracked), absolute
	// Modelled is set when the analyzer knows the role of every operand
	// (data, a path it reads or writes, a program it runs, a host): the
	// command's facts are complete, and a path merely spelled in its words
	// (echo ~/.netrc, git commit -m "…") is text, not a read.
	Modelled bool
}

// Signal names a behaviour recognised from data flow rather than from any
// one word.
type Signal string

const (
	SignalDownloadExec Signal = "download-exec" // fetched bytes reach a shell or interpreter
	SignalReverseShell Signal = "reverse-shell" // /dev/tcp, nc -e, socat exec, socket one-liners
	SignalForkBomb     Signal = "fork-bomb"     // a function that pipes into itself in the background
	SignalUnparsed     Signal = "unparsed"      // the shell text did not parse; matched as text only
)

// raised is a Signal with the text that raised it.
type raised struct {
	Signal Signal
	Detail string // the command or fragment, for the reason
}

func (a Access) String() string {
	switch a {
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write"
	case AccessExec:
		return "exec"
	case AccessAny:
		return "any"
	}
	s := ""
	for _, p := range []struct {
		bit  Access
		name string
	}{{AccessRead, "read"}, {AccessWrite, "write"}, {AccessExec, "exec"}} {
		if a&p.bit != 0 {
			if s != "" {
				s += "+"
			}
			s += p.name
		}
	}
	return s
}

// Program is the base name of the command's program ("/usr/bin/rm" → "rm").
func (c Command) Program() string {
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
