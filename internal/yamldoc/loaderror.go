package yamldoc

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// problem is one thing wrong in a file: where (Line 0 for the file as a
// whole; Column 0 where it is not known) and a message that says what is
// wrong, with what to write instead in Fix when there is a fix to name.
// Neither repeats the line.
type problem struct {
	Line   int
	Column int
	Msg    string
	Fix    string
}

// Text is the problem as a person reads it: the message, then the fix.
func (p problem) Text() string {
	if p.Fix == "" {
		return p.Msg
	}
	return p.Msg + ": " + p.Fix
}

// LoadError is a file that will not load: the file and, for each problem,
// the line and what to write instead. Every loader of a YAML file Airlock
// reads (the policy and its layers, the contracts) returns one.
type LoadError struct {
	File     string
	Problems []problem
}

// Error is one line per problem, "FILE:LINE: TEXT" ("FILE: TEXT" for the
// file as a whole). The column is not shown: the line is what a person
// looks for, and every message has named the line alone. The file is
// shown quoted when its name would print a control or hidden character
// (a repository's directory may be named to forge a line).
func (e *LoadError) Error() string {
	var b strings.Builder
	file := textsafe.Path(e.File)
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		if p.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: %s", file, p.Line, p.Text())
		} else {
			fmt.Fprintf(&b, "%s: %s", file, p.Text())
		}
	}
	return b.String()
}

// Problems collects every problem in one file, so the person fixes them
// in one go. The zero value with File set is ready to use.
type Problems struct {
	File string
	list []problem
}

// Add reports a problem on line (0: the file as a whole). What the
// arguments quote comes from the file, which may not be the user's (an
// overlay from a repository nobody has read): each string or error
// argument shows a bounded piece of it, escaped, never a whole line.
func (p *Problems) Add(line int, format string, args ...any) {
	p.list = append(p.list, problem{Line: line, Msg: fmt.Sprintf(format, shown(args)...)})
}

// AddFix is Add with the fix apart from the message.
func (p *Problems) AddFix(line int, fix, format string, args ...any) {
	p.list = append(p.list, problem{Line: line, Msg: fmt.Sprintf(format, shown(args)...), Fix: fix})
}

// AddProblem adds a problem written whole by Airlock (Parse's, which
// quote what they show of the file), with no control character left in it.
func (p *Problems) AddProblem(q problem) {
	q.Msg, q.Fix = textsafe.EscapeLoose(q.Msg), textsafe.EscapeLoose(q.Fix)
	p.list = append(p.list, q)
}

// Len is the number of problems so far.
func (p *Problems) Len() int { return len(p.list) }

// Err is nil when no problem was found, else a *LoadError listing the
// problems by line, at most MaxShown of them and a last line counting the
// rest: a file of ten thousand bad keys is reported by its first few, not
// echoed.
func (p *Problems) Err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := slices.Clone(p.list)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Line < list[j].Line })
	if n := len(list); n > MaxShown {
		more := problem{Line: list[MaxShown].Line, Msg: fmt.Sprintf("and %d more problems from here on: fix these first", n-MaxShown)}
		list = append(list[:MaxShown:MaxShown], more)
	}
	return &LoadError{File: p.File, Problems: list}
}

// MaxShown bounds the problems a LoadError lists, and MaxQuoted each
// piece of the file a message quotes.
const (
	MaxShown  = 10
	MaxQuoted = 120
)

// shown bounds and escapes the string and error arguments of a message.
func shown(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = textsafe.EscapeLoose(textsafe.Cut(v, MaxQuoted))
		case error:
			args[i] = textsafe.EscapeLoose(textsafe.Cut(v.Error(), MaxQuoted))
		}
	}
	return args
}
