package shell

import (
	"strings"
)

// tmuxRuns handles tmux: -c CMD, and the shell command operand of
// new-session, new-window, split-window, respawn-pane/-window, run-shell
// and display-popup; send-keys text is typed into a pane's shell. Commands
// separated by ; (or \;) are read one by one.
func (w *walker) tmuxRuns(c *cmdCtx) {
	argv := c.argv
	i := 1
	for i < len(argv) {
		s := argv[i].s
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if s == "-c" && i+1 < len(argv) {
			w.runValue(runRow{kind: runShell}, argv[i+1], c)
			i++
		} else if len(s) == 2 && strings.IndexByte("fLST", s[1]) >= 0 {
			i++
		}
		i++
	}
	for i < len(argv) && !w.full() {
		j := i
		for j < len(argv) && argv[j].s != ";" && argv[j].s != `\;` {
			j++
		}
		w.tmuxCommand(c, argv[i:j])
		i = j + 1
	}
}

var tmuxShellCmds = set("new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp",
	"respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup", "pipe-pane", "pipep", "if-shell", "if")

func (w *walker) tmuxCommand(c *cmdCtx, argv []argVal) {
	if len(argv) == 0 {
		return
	}
	sub := argv[0].s
	valued := "cefFnstxylNpPTwd"
	if sub == "new-session" || sub == "new" || sub == "send-keys" || sub == "send" {
		valued = "cefFnstxylNpPTw" // -d is a flag there
	}
	k := 1
	for k < len(argv) {
		s := argv[k].s
		if s == "--" {
			k++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if strings.IndexByte(valued, s[len(s)-1]) >= 0 {
			k++
		}
		k++
	}
	if k >= len(argv) {
		return
	}
	ops := argv[k:]
	switch {
	case tmuxShellCmds.has(sub):
		if sub == "if-shell" || sub == "if" {
			for _, o := range ops {
				w.runValue(runRow{kind: runShell}, o, c)
			}
			return
		}
		w.runValue(runRow{kind: runShell}, joinArgs(ops), c)
	case sub == "send-keys" || sub == "send":
		var text []string
		for _, o := range ops {
			switch o.s {
			case "Enter", "C-m", "KPEnter", "C-j":
				text = append(text, "\n")
			default:
				text = append(text, o.s)
			}
		}
		w.langRuns("keys", argVal{s: strings.Join(text, " ")}, c.sc)
	}
}

// screenRuns handles screen: the command operand runs as argv (screen -dmS
// NAME CMD…); -X stuff TEXT types TEXT into the window's shell, -X exec and
// -X screen run a command.
func (w *walker) screenRuns(c *cmdCtx) []argVal {
	argv := c.argv
	for i := 1; i < len(argv); i++ {
		s := argv[i].s
		if s == "-X" {
			if i+1 >= len(argv) {
				return nil
			}
			sub := argv[i+1].s
			rest := argv[i+2:]
			switch sub {
			case "stuff":
				text := joinArgs(rest).s
				text = strings.NewReplacer(`\n`, "\n", `\r`, "\n", `\015`, "\n", "^M", "\n", "\r", "\n").Replace(text)
				w.langRuns("keys", argVal{s: text}, c.sc)
			case "exec", "screen":
				if len(rest) > 0 {
					return rest
				}
			}
			return nil
		}
		if len(s) > 1 && s[0] == '-' {
			if len(s) == 2 && strings.IndexByte("cSehpTtrxdDRl", s[1]) >= 0 && s != "-d" && s != "-r" && s != "-x" && s != "-D" && s != "-R" {
				i++
			}
			if strings.HasPrefix(s, "-dmS") || strings.HasPrefix(s, "-mdS") || s == "-S" {
				if s != "-S" && len(s) == 4 {
					i++
				}
			}
			continue
		}
		return argv[i:]
	}
	return nil
}

// capshRuns handles capsh: after --, the arguments go to bash.
func capshRuns(c *cmdCtx) []argVal {
	for i, a := range c.argv {
		if a.s == "--" {
			return append([]argVal{{s: "bash"}}, c.argv[i+1:]...)
		}
	}
	return nil
}
