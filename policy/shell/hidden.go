package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// HiddenEffect is what the shell program src does that its commands' words
// do not show, so a grant matching the words cannot stand for it, or ""
// when nothing: a redirection to or from a file ("it redirects >
// out.txt": a descriptor copy (2>&1) and /dev/null reach no file), a
// here-document or here-string as the input of anything but a shell
// (inputProblem), or a command's word the shell turns into other words
// when it runs (a file-name pattern, ~user). A program that does not parse
// is named as such. Like Parse it reads nothing and runs nothing.
func HiddenEffect(src string) string {
	f, err := parseShellSource(src)
	if err != nil {
		return "it redirects (it does not parse)"
	}
	found := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != "" {
			return false
		}
		if st, ok := n.(*syntax.Stmt); ok {
			if why := inputProblem(st); why != "" {
				found = why
				return false
			}
			return true
		}
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, w := range c.Args {
				if why := runtimeWord(w); why != "" {
					found = fmt.Sprintf("the word %s %s", nodeText(src, w), why)
					return false
				}
			}
			return true
		}
		r, ok := n.(*syntax.Redirect)
		if !ok {
			return true
		}
		lit := ""
		if r.Word != nil {
			lit = r.Word.Lit()
		}
		switch {
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc:
		case (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && (lit == "-" || (lit != "" && strings.Trim(lit, "0123456789") == "")):
		case lit == "/dev/null" && r.Op != syntax.RdrIn:
		case r.Word == nil:
			found = "it redirects " + r.Op.String()
		default:
			found = "it redirects " + r.Op.String() + " " + nodeText(src, r.Word)
		}
		return found == ""
	})
	return found
}

// inputProblem says why the here-document or here-string that st feeds
// its command is not covered by the command's words, or "": the input of
// an interpreter, a database client or ssh is its program. A shell's input
// is parsed (each of its commands must fit a pattern) and may be covered.
func inputProblem(st *syntax.Stmt) string {
	for _, r := range st.Redirs {
		if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc && r.Op != syntax.WordHdoc {
			continue
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 && progs.has(progName(c.Args[0].Lit())) {
			continue
		}
		return "its input is a here-document or here-string, which the command's words do not cover (for an interpreter it is the program)"
	}
	return ""
}

// runtimeWord says how the shell would turn the command word w into other
// words when it runs, or "" when it would not: an unquoted file-name
// pattern (*, ?, [...], @(...)) becomes the names of the files it meets
// (git push origin * in a directory holding --force and main is git push
// origin --force main), ~name is that user's home (~, ~/ and ~+ are
// expanded by the parse; ~name is refused even for the user's own name)
// and bash expands a ~ after NAME= in any word.
func runtimeWord(w *syntax.Word) string {
	bracket := false
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.ExtGlob:
			return "is a file-name pattern the shell expands when it runs (quote it)"
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				name, _, _ := strings.Cut(v[1:], "/")
				if name != "" && name != "+" {
					return "names a home (~" + name + ") the shell finds when it runs"
				}
			}
			if i == 0 {
				// bash expands a ~ after the = of a word written as an
				// assignment, even as an argument: make X=~root/y
				if name, rest, ok := strings.Cut(v, "="); ok && isName(name) && strings.HasPrefix(rest, "~") {
					return "holds a ~ the shell expands when it runs (quote it)"
				}
			}
			for j := 0; j < len(v); j++ {
				switch v[j] {
				case '\\':
					j++
				case '*', '?':
					return "is a file-name pattern the shell expands when it runs (quote it)"
				case '[':
					bracket = true
				case ']':
					if bracket {
						return "is a file-name pattern the shell expands when it runs (quote it)"
					}
				}
			}
		}
	}
	return ""
}
