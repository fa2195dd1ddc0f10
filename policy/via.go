package policy

import (
	"fmt"
	"strings"
)

// via says where a refusal's target came from and what the call does
// with it, for the reason a person and the model read: "read by cat in
// argument command" is an access; "named in argument body (prose, read by
// nobody)" is a text match. It runs only for a decision that refuses, so
// the hot path of an allowed call never builds it.
func (f *Facts) via(hit Hit) string {
	if hit.Arg == "" || hit.Arg == f.PrimaryArg && f.argRole(hit.Arg) == roleTarget && !f.pathOf(hit) {
		// the call's own target as a text or a host: the reason has said it
		return ""
	}
	for i := range f.Paths {
		p := &f.Paths[i]
		if p.Arg == hit.Arg && p.Path == hit.Target {
			return f.pathVia(p)
		}
	}
	for i := range f.Hosts {
		h := &f.Hosts[i]
		if h.Arg == hit.Arg && h.Host == hit.Target {
			switch f.argRole(h.Arg) {
			case roleTarget:
				if h.Arg == f.PrimaryArg {
					return ""
				}
				return fmt.Sprintf("reached by %s (argument %s)", f.Tool, h.Arg)
			case roleCommand:
				return fmt.Sprintf("reached by %s in argument %s", f.programNaming(h.Arg, h.Raw, h.Host), h.Arg)
			}
			return fmt.Sprintf("in argument %s, whose use %s does not say: taken as a destination", h.Arg, f.Tool)
		}
	}
	for i := range f.Commands {
		c := &f.Commands[i]
		if c.Arg == hit.Arg && strings.Join(c.Argv, " ") == hit.Target {
			if c.Arg == f.PrimaryArg {
				return "" // the command the call runs: the target says it
			}
			return "run in argument " + c.Arg
		}
	}
	for i := range f.Signals {
		if g := &f.Signals[i]; g.Arg == hit.Arg && g.Detail == hit.Target {
			return "found in the data flow of argument " + g.Arg
		}
	}
	for i := range f.Env {
		if e := &f.Env[i]; e.Arg == hit.Arg && e.Name+"="+e.Value == hit.Target {
			return "set by the command in argument " + e.Arg
		}
	}
	for i := range f.Texts {
		t := &f.Texts[i]
		if t.Arg != hit.Arg || clip(t.Raw, 120) != hit.Target {
			continue
		}
		if r := f.roleOf(t.Arg, lastKey(t.Arg)); r.textOnly() || r == roleBrief {
			return fmt.Sprintf("named in argument %s (%s, read by nobody), matched as text", t.Arg, r)
		}
		return fmt.Sprintf("in argument %s, matched as text", t.Arg)
	}
	return ""
}

func (f *Facts) pathVia(p *PathFact) string {
	verb := accessVerb(p.Access)
	switch f.argRole(p.Arg) {
	case roleCommand:
		return fmt.Sprintf("%s by %s in argument %s", verb, f.programNaming(p.Arg, p.Raw, p.Path), p.Arg)
	case roleTarget:
		if p.Arg == f.PrimaryArg {
			return "" // the call's own target: the reason has said it all
		}
		return fmt.Sprintf("%s by %s (argument %s)", verb, f.Tool, p.Arg)
	case roleContent:
		return fmt.Sprintf("named in the code %s writes (argument %s), which runs when the file does", f.Tool, p.Arg)
	}
	if p.Access == accessAny {
		return fmt.Sprintf("named in argument %s, whose use %s does not say: taken as read and written", p.Arg, f.Tool)
	}
	return fmt.Sprintf("named in argument %s of %s: taken as %s", p.Arg, f.Tool, verb)
}

// argRole is an argument's role with the classifier's own reading of
// targets and commands added: the primary argument of a tool that acts
// on a file or URL is its target; an argument whose text was parsed as
// shell is a command.
func (f *Facts) argRole(arg string) role {
	if r := f.roleOf(arg, lastKey(arg)); r != roleUnknown {
		return r
	}
	for i := range f.Commands {
		if f.Commands[i].Arg == arg {
			return roleCommand
		}
	}
	for i := range f.Signals {
		if f.Signals[i].Arg == arg {
			return roleCommand
		}
	}
	if arg == f.PrimaryArg {
		if toolKindOf(f.Tool) == kindShell {
			return roleCommand
		}
		return roleTarget
	}
	return roleUnknown
}

// programNaming is the program of the first command in arg whose words
// spell raw (or the path it denotes), or "the command".
func (f *Facts) programNaming(arg, raw, abs string) string {
	for i := range f.Commands {
		c := &f.Commands[i]
		if c.Arg != arg || len(c.Argv) == 0 {
			continue
		}
		for _, w := range c.Argv[1:] {
			if raw != "" && strings.Contains(w, raw) || abs != "" && strings.Contains(w, abs) {
				return c.Program()
			}
		}
	}
	return "the command"
}

func accessVerb(a Access) string {
	switch a {
	case accessRead:
		return "read"
	case accessWrite:
		return "written"
	case accessExec:
		return "run"
	case accessRead | accessWrite:
		return "read and written"
	case accessAny:
		return "read or written"
	}
	return "used"
}

// pathOf reports whether the hit is one of the call's path facts.
func (f *Facts) pathOf(hit Hit) bool {
	for i := range f.Paths {
		if f.Paths[i].Arg == hit.Arg && f.Paths[i].Path == hit.Target {
			return true
		}
	}
	return false
}
